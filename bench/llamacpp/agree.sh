#!/usr/bin/env bash
# bench/llamacpp/agree.sh — strata-ref against llama.cpp itself (node-llama-cpp 3.21.1's CPU build) on the same files
# and tokens, as issue 27's acceptance asks; run by ./strata test (tests: LlamaCppAgreementTest) and by hand.
#   bench/llamacpp/agree.sh OUTDIR [NAME...]
# For each model (default: the five shared files, then the synthetic llama and qwen2 models synth_model writes):
#   - teacher-forced: 4 chunks of 1,024 tokens of val.u16 (2,044 scored positions, llama-perplexity's layout), f16 KV
#     in llama.cpp, fp16 pools in strata-ref; compare.py's statistics → OUTDIR/<name>.cmp.json
#     (synthetic models: 2 chunks; their weights are random, the test is of the families' layouts and keys);
#   - greedy: 32 tokens for each prompt of prompts.jsonl in both engines (f16 KV / fp16 pools, as above) → OUTDIR/<name>.gen.tsv
#     (prompt, first index where the tokens differ or -1, llama.cpp's top-2 log-prob gap there).
# Writes OUTDIR/summary.tsv (one row per model: compare.py's figures, prompts equal, seconds per engine).
# Exit 0 when everything ran (the thresholds are the test's), 2 on a setup problem.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:?usage: agree.sh OUTDIR [NAME...]}"
shift
data="${STRATA_SHARED_DATA:-$root/../shared/data}"
[ -d "$data/models" ] || { echo "agree.sh: no shared data at $data (set STRATA_SHARED_DATA)" >&2; exit 2; }
bin="$root/engine/target/native"
for t in session_test synth_model; do
  [ -x "$bin/$t" ] || { echo "agree.sh: no $bin/$t: build the engine first (./strata build)" >&2; exit 2; }
done
"$here/install.sh" >/dev/null
mkdir -p "$out"
threads="${THREADS:-2}"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  names=(tiny-qwen3-f16 tiny-qwen3-q8_0 tiny-qwen3-q4_k_m tiny-qwen3moe-q8_0 tiny-qwen3moe-q4_k_m synth-llama-f16 synth-qwen2-f16)
fi
printf 'name\tpositions\tsame_top_pct\tmean_kld\tp99_kld\tmax_kld\tppl_ref\tppl_llama\tprompts_equal\tprompts\tseconds_llama\tseconds_ref\n' > "$out/summary.tsv"
for name in "${names[@]}"; do
  chunks=4
  case "$name" in
    synth-llama-f16) model="$out/$name.gguf"; "$bin/synth_model" llama "$model" "$data/gguf/ggml-vocab-llama.gguf" f16; chunks=2 ;;
    synth-qwen2-f16) model="$out/$name.gguf"; "$bin/synth_model" qwen2 "$model" "$data/models/tiny-qwen3-q8_0.gguf" f16; chunks=2 ;;
    *) model="$data/models/$name.gguf" ;;
  esac
  [ -f "$model" ] || { echo "agree.sh: no $model" >&2; exit 2; }
  t0=$(date +%s.%N)
  node "$here/logits.mjs" --model "$model" --tokens "$data/models/val.u16" --ctx 1024 --chunks "$chunks" \
    --threads "$threads" --out "$out/$name.llama.logits" --json "$out/$name.llama.json" > /dev/null 2> "$out/$name.llama.log"
  node "$here/generate.mjs" --model "$model" --prompts-jsonl "$here/prompts.jsonl" --n 32 --threads "$threads" \
    > "$out/$name.llama.gen.jsonl" 2>> "$out/$name.llama.log"
  t1=$(date +%s.%N)
  "$bin/session_test" logits "$model" "$data/models/val.u16" 1024 "$chunks" fp16 "$threads" "$out/$name.ref.lpf32" \
    2> "$out/$name.ref.log"
  : > "$out/$name.ref.gen.txt"
  while IFS= read -r line; do
    # the prompt through a file: a command substitution would drop its trailing newlines
    printf '%s' "$line" | python3 -c 'import json,sys; sys.stdout.write(json.loads(sys.stdin.read())["text"])' > "$out/prompt.txt"
    "$bin/session_test" gen "$model" 32 --kv fp16 --threads "$threads" --prompt-file "$out/prompt.txt" 2>> "$out/$name.ref.log" \
      | head -n 1 >> "$out/$name.ref.gen.txt"
  done < "$here/prompts.jsonl"
  t2=$(date +%s.%N)
  python3 "$here/compare.py" "$out/$name.llama.logits" "$out/$name.ref.lpf32" --json "$out/$name.cmp.json" --quiet \
    > "$out/$name.cmp.txt"
  rm -f "$out/$name.ref.lpf32" "$out/$name.llama.logits"
  python3 "$here/agree_row.py" "$name" "$out" "$t0" "$t1" "$t2" >> "$out/summary.tsv"
done
column -t -s $'\t' "$out/summary.tsv"
