#!/usr/bin/env bash
# Expert-arena budget sweep, int8 vs q4_0 KV pools in the same run (issue 15; docs/PERFORMANCE.md).
#
#   bench/expert-arena/run.sh [--reps N] [--tokens N] [--threads N] [--ctx 32768,65536] [--out DIR]
#
# Writes the demo model (the seed geometry: 4 shards, sparse zeros) to a temporary folder with strata-setup,
# then runs bench/expert-arena/sweep.py over strata-ref-run (the C driver over libstrata_ref). Raw engine output,
# the table and the machine go to DIR (default bench/results/<today>-expert-arena/). Needs ./strata build.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="$ROOT/bench/results/$(date -u +%Y-%m-%d)-expert-arena"
PASS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$2"; shift 2 ;;
    --reps|--tokens|--threads|--ctx) PASS+=("$1" "$2"); shift 2 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
make -s -C "$ROOT/engine/native" OUT="$ROOT/engine/target/native" KERNELS="$ROOT/kernels/src/main/metal"
RUN="$ROOT/engine/target/native/strata-ref-run"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
"$ROOT/bin/strata-setup" demo-model --out "$TMP/model" --shards 4 >&2
MODEL="$TMP/model/strata-demo-00001-of-00004.gguf"
mkdir -p "$OUT"
{
  echo "command: bench/expert-arena/run.sh ${PASS[*]:-}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "cpu: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) cores visible"
  echo "memory: $(sed -n 's/^MemTotal: *//p' /proc/meminfo)"
  echo "kernel: $(uname -sr)"
  echo "uptime at start: $(uptime | sed 's/^ *//')"
} > "$OUT/machine.txt"
python3 "$ROOT/bench/expert-arena/sweep.py" "$RUN" "$MODEL" "$OUT" "${PASS[@]}"
echo "uptime at end: $(uptime | sed 's/^ *//')" >> "$OUT/machine.txt"
cat "$OUT/table.md"
