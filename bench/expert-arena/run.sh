#!/usr/bin/env bash
# Expert-arena sweep on the real router (issue 30; docs/PLAN.md "The arena against the measured curve").
#
#   bench/expert-arena/run.sh [--model FILE] [--reps N] [--prefill N] [--decode N] [--ctx N] [--threads N] [--out DIR]
#
# Builds strata-ref and drive.c (the session API over real text: val.u16 from the shared data), copies the model
# (default: the shared tiny-qwen3moe-q8_0.gguf) to a private temporary file so STRATA_ARENA_CACHE=drop can drop its
# pages (the shared file is mapped by other processes), then sweep.py runs every point and plot.gp draws plot.png
# (gnuplot: apt-get install -y gnuplot-nox). DIR (default bench/results/<today>-expert-arena/) gets raw.txt,
# results.json, table.md, curve-*.dat, plot.png and machine.txt (with uptime before and after).
. "$(dirname "$0")/../lib.sh"
data="${STRATA_SHARED_DATA:-$root/../shared/data}"
[ -d "$data/models" ] || data=/work/shared/data
model="$data/models/tiny-qwen3moe-q8_0.gguf"
out="$(bench_results expert-arena)"
pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --model) model="$2"; shift 2 ;;
    --reps|--prefill|--decode|--ctx|--threads) pass+=("$1" "$2"); shift 2 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
make -s -C "$root/kernels" OUT="$root/kernels/target/native" lib
make -s -C "$root/engine/native" OUT="$root/engine/target/native" KERNELS="$root/kernels/src/main/metal"
native="$root/engine/target/native"
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-expert-arena.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -std=c11 -O2 -Wall -Wextra -Werror -I"$root/engine/native/include" "$here/drive.c" -L"$native" -lstrata_ref \
  -Wl,-rpath,"$native" -o "$work/drive"
cp "$model" "$work/model.gguf"
sync -f "$work/model.gguf" # written back, so POSIX_FADV_DONTNEED can drop its pages
mkdir -p "$out"
{
  echo "command: bench/expert-arena/run.sh ${pass[*]:-} (model $(basename "$model"))"
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "cpu: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) cores visible"
  echo "memory: $(sed -n 's/^MemTotal: *//p' /proc/meminfo)"
  echo "kernel: $(uname -sr)"
  echo "page cache: STRATA_ARENA_CACHE=drop (posix_fadvise RANDOM + DONTNEED on a private copy of the model)"
  echo "uptime at start: $(uptime | sed 's/^ *//')"
} > "$out/machine.txt"
python3 "$here/sweep.py" "$work/drive" "$work/model.gguf" "$data/models/val.u16" "$out" "${pass[@]}"
echo "uptime at end: $(uptime | sed 's/^ *//')" >> "$out/machine.txt"
if command -v gnuplot > /dev/null; then
  (cd "$out" && gnuplot -e "model='$(basename "$model" .gguf)'" "$here/plot.gp")
else
  echo "run.sh: no gnuplot (apt-get install -y gnuplot-nox): plot.png not drawn" >&2
fi
