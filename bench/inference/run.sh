#!/usr/bin/env bash
# bench/inference/run.sh — prefill and decode tokens/s of strata-ref and llama.cpp (node-llama-cpp 3.21.1, its CPU
# build) on the same GGUF file, threads and prompt length, in one run, alternating engine order per round; ratios
# strata-ref / llama.cpp of the medians; and the weight bytes strata-ref reads per decoded token against the
# machine's read bandwidth measured in the same run (bandwidth.c).
#   bench/inference/run.sh [ROUNDS] [OUTDIR] [MODEL...]
# Defaults: 5 rounds; bench/results/<today>-inference; the shared dense Q8_0 and Q4_K_M files (and F16 and the MoE
# Q8_0 / Q4_K_M files when present). Env: THREADS (2), PROMPT (512), NPREDICT (128), KV (f16: llama.cpp's default
# and strata-ref's fp16 pools).
. "$(dirname "$0")/../lib.sh"
rounds="${1:-5}"
out="${2:-$(bench_results inference)}"
shift $(( $# >= 2 ? 2 : $# ))
threads="${THREADS:-2}" prompt="${PROMPT:-512}" npredict="${NPREDICT:-128}" kv="${KV:-f16}"
data="${STRATA_SHARED_DATA:-$root/../shared/data}/models"
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  for m in tiny-qwen3-q8_0 tiny-qwen3-q4_k_m tiny-qwen3-f16 tiny-qwen3moe-q8_0 tiny-qwen3moe-q4_k_m; do
    [ -f "$data/$m.gguf" ] && models+=("$data/$m.gguf")
  done
fi
ref="$root/engine/target/native/strata-ref-run"
[ -x "$ref" ] || { echo "run.sh: no $ref: run ./strata build first" >&2; exit 2; }
"$root/bench/llamacpp/install.sh" >/dev/null
mkdir -p "$out"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cc -O2 -pthread "$here/bandwidth.c" -o "$work/bandwidth"
bw=$("$work/bandwidth" "$threads")
refkv=$([ "$kv" = f16 ] && echo fp16 || echo "$kv")
{
  echo "# bench/inference/run.sh $rounds $out ${models[*]}"
  echo "# $(date -u +%FT%TZ) $(git -C "$root" rev-parse --short HEAD) threads=$threads prompt=$prompt n_predict=$npredict kv=$kv"
  echo "# uptime: $(uptime)"
  echo "# read bandwidth ($threads threads, bandwidth.c): $bw GB/s"
} > "$out/raw.txt"
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf '| model | prefill strata-ref tok/s | prefill llama.cpp tok/s | ratio | decode strata-ref tok/s | decode llama.cpp tok/s | ratio | weight bytes / token | GB/s read (of %s) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n' "$bw" > "$out/table.md"
for m in "${models[@]}"; do
  name=$(basename "$m" .gguf)
  : > "$work/r.p"; : > "$work/r.d"; : > "$work/l.p"; : > "$work/l.d"
  for ((r = 0; r < rounds; r++)); do
    run_ref() {
      "$ref" run --model "$m" --ctx $((prompt + npredict)) --prompt-tokens "$prompt" --n-predict "$npredict" \
        --threads "$threads" --kv "$refkv" > "$work/ref.log" 2>&1
      sed -n 's/^prefill: .*tok_s=\([0-9.]*\).*/\1/p' "$work/ref.log" >> "$work/r.p"
      sed -n 's/^decode: .*tok_s=\([0-9.]*\).*/\1/p' "$work/ref.log" >> "$work/r.d"
      dense=$(sed -n 's/^memory: total=.* dense=\([0-9]*\) .*/\1/p' "$work/ref.log")
      echo "round $r strata-ref: $(grep -E '^(prefill|decode):' "$work/ref.log" | tr '\n' ' ')" >> "$out/raw.txt"
    }
    run_lc() {
      node "$root/bench/llamacpp/bench.mjs" --model "$m" --threads "$threads" --prompt-tokens "$prompt" \
        --n-predict "$npredict" --repeat 1 --kv "$kv" > "$work/lc.json" 2>/dev/null
      python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); m=d["median"]; print(m["prefill_tok_s"]); print(m["decode_tok_s"], file=sys.stderr)' \
        "$work/lc.json" >> "$work/l.p" 2>> "$work/l.d"
      echo "round $r llama.cpp: $(tr -d '\n' < "$work/lc.json" | cut -c1-400)" >> "$out/raw.txt"
    }
    if (( r % 2 == 0 )); then run_ref; run_lc; else run_lc; run_ref; fi
  done
  rp=$(median < "$work/r.p"); rd=$(median < "$work/r.d"); lp=$(median < "$work/l.p"); ld=$(median < "$work/l.d")
  python3 - "$name" "$rp" "$lp" "$rd" "$ld" "$dense" "$bw" >> "$out/table.md" <<'PY'
import sys
name, rp, lp, rd, ld, dense, bw = sys.argv[1], *map(float, sys.argv[2:])
print(f"| {name} | {rp:.1f} | {lp:.1f} | {rp/lp:.2f}× | {rd:.1f} | {ld:.1f} | {rd/ld:.2f}× | {dense/1e6:.1f} MB | {dense*rd/1e9:.2f} |")
PY
done
cat "$out/table.md"
echo "raw: $out/raw.txt"
