#!/usr/bin/env bash
# bench/kv-kernels/run.sh — single-thread throughput of the C++-built KV kernels vs memcpy, same run.
#
#   bench/kv-kernels/run.sh [MiB] [reps] [outdir]
#
# Builds kernels/target/native/libstrata_kernels.a (the library strata-ref links) and kv_bench with
# the kernels' own flags, runs it pinned to one core when taskset exists, and writes raw output,
# command, machine and date to <outdir>/raw.txt (default: bench/results/<today>-kv-kernels). It runs once
# per q4_0 code path this CPU has (STRATA_KERNELS_ISA = portable, simd128, avx2; the last is the default
# the library picks), so the vector paths are measured against the portable kernel in the same session;
# int8 and fp16 take the same code in every run.
. "$(dirname "$0")/../lib.sh"
mib="${1:-64}"
reps="${2:-9}"
out="${3:-$(bench_results kv-kernels)}"
mkdir -p "$out" "$root/kernels/target/native"

make -s -C "$root/kernels" lib
flags="$(make -s -C "$root/kernels" print-flags | sed "s|-Isrc|-I$root/kernels/src|g")"
# shellcheck disable=SC2086
g++ $flags "$here/kv_bench.cpp" "$root/kernels/target/native/libstrata_kernels.a" -pthread \
  -o "$root/kernels/target/native/kv_bench"

pin=()
if command -v taskset >/dev/null; then pin=(taskset -c 0); fi
cmd=("${pin[@]}" "$root/kernels/target/native/kv_bench" "$mib" "$reps")
{
  echo "# date: $(date -u +%FT%TZ)"
  echo "# command: bench/kv-kernels/run.sh $mib $reps  ->  ${cmd[*]#$root/}"
  echo "# machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cpus, $(uname -sm)"
  echo "# compiler: $(g++ --version | head -1)"
  echo "# flags: $flags"
  echo "# load before run: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)"
  for isa in portable simd128 $(grep -qw avx2 /proc/cpuinfo 2>/dev/null && echo avx2); do
    echo
    STRATA_KERNELS_ISA=$isa "${cmd[@]}"
  done
} | tee "$out/raw.txt"
