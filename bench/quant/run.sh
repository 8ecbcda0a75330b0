#!/usr/bin/env bash
# strata_gemm_rows throughput per weight type against memcpy in the same run (engine/native/src/quant.h).
#
#   bench/quant/run.sh [--out DIR]
#
# Builds strata-ref's objects (incremental make), compiles bench/quant/quant_bench.c against the quant objects,
# runs it on one thread and writes the table, the command and the machine (with uptime: the machine is shared)
# to DIR (default bench/results/<today>-quant/).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="$ROOT/bench/results/$(date -u +%Y-%m-%d)-quant"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$2"; shift 2 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
NATIVE="$ROOT/engine/target/native"
make -s -C "$ROOT/kernels" OUT="$ROOT/kernels/target/native" lib
make -s -C "$ROOT/engine/native" OUT="$NATIVE" KERNELS="$ROOT/kernels/src/main/metal" "$NATIVE/quant_test"
OBJS=("$NATIVE/obj/quant.o")
for v in base avx2; do
  [ -f "$NATIVE/obj/quant_kern_$v.o" ] && OBJS+=("$NATIVE/obj/quant_kern_$v.o" "$NATIVE/obj/quant_dot_$v.o")
done
BIN="$NATIVE/quant_bench"
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -I"$ROOT/engine/native/src" -o "$BIN" "$ROOT/bench/quant/quant_bench.c" \
  "${OBJS[@]}" -lm
mkdir -p "$OUT"
{
  echo "command: ${STRATA_QUANT_ISA:+STRATA_QUANT_ISA=$STRATA_QUANT_ISA }bench/quant/run.sh $*"
  echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet || echo ' (dirty)')"
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "cpu: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) cores visible"
  echo "memory: $(sed -n 's/^MemTotal: *//p' /proc/meminfo)"
  echo "kernel: $(uname -sr)"
  echo "uptime at start: $(uptime | sed 's/^ *//')"
} > "$OUT/machine.txt"
"$BIN" | tee "$OUT/table.md"
echo "uptime at end: $(uptime | sed 's/^ *//')" >> "$OUT/machine.txt"
cat "$OUT/machine.txt"
