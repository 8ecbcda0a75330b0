#!/usr/bin/env bash
# bench/quality/run.sh [CHUNKS] [OUTDIR]: KV quality side by side, strata-ref against llama.cpp.
# The same tokens (val.u16 of the shared data, CHUNKS chunks of 1,024, positions 512..1022 scored)
# through llama.cpp (bench/llamacpp/logits.mjs: f16, q8_0 and q4_0 KV, the quantized ones with its
# Hadamard rotation and without, --no-rot) and through strata-ref (bin/strata-quality: fp16, int8,
# FWHT-256 q4_0), on the shared dense and MoE models (F16/Q8_0/Q4_K_M weights as they exist). Each
# engine's formats are measured against that engine's own f16/fp16 KV (per_chunk.py and strata-quality:
# the same definitions, float base); strata-ref's fp16 also against llama.cpp's f16 (the engines' floor).
# Then table.py writes table.md. Default: 4 chunks, bench/results/2026-12-01-kv-quality.
# Env: MODELS (default below), THREADS (2), DATA (the shared data folder).
. "$(dirname "$0")/../lib.sh"
chunks=${1:-4}
out=${2:-$root/bench/results/2026-12-01-kv-quality}
threads=${THREADS:-2}
data=${DATA:-/work/shared/data}
models=${MODELS:-"tiny-qwen3-f16 tiny-qwen3-q8_0 tiny-qwen3-q4_k_m tiny-qwen3moe-q8_0 tiny-qwen3moe-q4_k_m"}
bench_dist
"$root/bench/llamacpp/install.sh" >&2
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-kv-quality.XXXXXX")
trap 'rm -rf "$work"' EXIT
tokens=$data/models/val.u16
{ echo "date: $(date -u +%FT%TZ)"; echo "uptime: $(uptime)"; echo "chunks: $chunks threads: $threads"
  echo "commit: $(git -C "$root" rev-parse HEAD)"; } >"$out/run-info.txt"
for m in $models; do
  gguf=$data/models/$m.gguf
  [ -f "$gguf" ] || { echo "run.sh: no $gguf, skipped" >&2; continue; }
  echo "== $m" >&2
  # llama.cpp: f16 (the base of its own rows, and the cross-engine base), then the quantized types
  node "$root/bench/llamacpp/logits.mjs" --model "$gguf" --tokens "$tokens" --ctx 1024 --chunks "$chunks" \
    --threads "$threads" --kv f16 --out "$work/$m.f16.logits" --out-f32 "$work/$m.f16.lpf32" >"$out/$m.llama-f16.run.json"
  for kv in q8_0 q4_0; do
    for rot in rot no-rot; do
      flag=(); [ $rot = no-rot ] && flag=(--no-rot)
      node "$root/bench/llamacpp/logits.mjs" --model "$gguf" --tokens "$tokens" --ctx 1024 --chunks "$chunks" \
        --threads "$threads" --kv $kv ${flag[@]+"${flag[@]}"} --out-f32 "$work/$m.$kv.$rot.lpf32" \
        >"$out/$m.llama-$kv-$rot.run.json"
      python3 "$here/per_chunk.py" "$work/$m.f16.lpf32" "$work/$m.$kv.$rot.lpf32" --label "llama-$kv-$rot" \
        --tsv "$out/$m.llama-$kv-$rot.chunks.tsv" --json "$out/$m.llama-$kv-$rot.json" >/dev/null
      rm -f "$work/$m.$kv.$rot.lpf32"
    done
  done
  # strata-ref: its formats against its own fp16 (with the prompt-vs-decode check), then against llama.cpp's f16
  "$dist/bin/strata-quality" --model "$gguf" --tokens "$tokens" --ctx 1024 --chunks "$chunks" --threads "$threads" \
    --kv fp16,int8,q4_0 --json --out "$out/$m.strata" >"$out/$m.strata.json"
  "$dist/bin/strata-quality" --model "$gguf" --base "$work/$m.f16.logits" --threads "$threads" \
    --kv fp16,int8,q4_0 --decode-check 0 --json --out "$out/$m.strata-vs-llama-f16" >"$out/$m.strata-vs-llama-f16.json"
  rm -f "$work/$m".f16.*
done
python3 "$here/table.py" "$out" >"$out/table.md"
cat "$out/table.md"
