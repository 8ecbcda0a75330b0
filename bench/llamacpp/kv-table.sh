#!/usr/bin/env bash
# bench/llamacpp/kv-table.sh — llama.cpp's own KV-cache types against its f16 KV, teacher-forced: the table of
# shared/data/models/README.md ("Checked against llama.cpp"), recomputed. Writes OUTDIR/{table.md, *.json,
# *.compare.txt, commands.txt, uptime.txt}; the log-prob files (25-70 MB each) go to a temporary folder.
#   usage: bench/llamacpp/kv-table.sh [--no-rot-too] [MODELS_DIR] [OUTDIR]
#   MODELS_DIR default: $STRATA_MODELS or ../shared/data/models beside the repository; OUTDIR default
#   bench/results/<today>-llamacpp-ref. About 2.5 min of 2 idle cores (f16 16 s, q8_0 54 s, q4_0 73 s); --no-rot-too adds q8_0 and q4_0 with LLAMA_ATTN_ROT_DISABLE=1.
case "${1:-}" in -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
. "$(dirname "$0")/../lib.sh"
no_rot_too=0
if [ "${1:-}" = "--no-rot-too" ]; then no_rot_too=1; shift; fi
models="${1:-${STRATA_MODELS:-$root/../shared/data/models}}"
[ -n "${1:-}${STRATA_MODELS:-}" ] || [ -d "$models" ] || models="$root/../../shared/data/models"
out="${2:-$(bench_results llamacpp-ref)}"
[ -f "$models/tiny-qwen3-f16.gguf" ] || { echo "kv-table.sh: no tiny-qwen3-f16.gguf in $models" >&2; exit 2; }
"$here/install.sh"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-kv-table.XXXXXX")
trap 'rm -rf "$work"' EXIT
model="$models/tiny-qwen3-f16.gguf"
tokens="$models/val.u16"
{ date -u +%FT%TZ; uptime; nproc; } > "$out/uptime.txt"
: > "$out/commands.txt"
run() { # name, then logits.mjs options
  local name=$1; shift
  local cmd=(node "$here/logits.mjs" --model "$model" --tokens "$tokens" --ctx 1024 --chunks 4 --threads 2 "$@"
    --out "$work/$name.bin" --out-f32 "$work/$name.f32" --json "$out/$name.json")
  echo "${cmd[*]}" >> "$out/commands.txt"
  "${cmd[@]}" > /dev/null
}
variants=(f16 q8_0 q4_0)
run f16 --kv f16
run q8_0 --kv q8_0
run q4_0 --kv q4_0
if [ $no_rot_too = 1 ]; then
  run q8_0-norot --kv q8_0 --no-rot
  run q4_0-norot --kv q4_0 --no-rot
  variants+=(q8_0-norot q4_0-norot)
fi
for v in "${variants[@]}"; do
  echo "python3 $here/compare.py $work/f16.bin $work/$v.f32 --json $out/$v.compare.json" >> "$out/commands.txt"
  python3 "$here/compare.py" "$work/f16.bin" "$work/$v.f32" --json "$out/$v.compare.json" > "$out/$v.compare.txt"
done
echo "$(date -u +%FT%TZ) done; $(uptime)" >> "$out/uptime.txt"
python3 - "$out" "${variants[@]}" > "$out/table.md" <<'PY'
import json, sys
out, variants = sys.argv[1], sys.argv[2:]
cell = {"f16": 2048, "q8_0": 1088, "q4_0": 576}
print("Dense F16 model (tiny-qwen3-f16.gguf), the first 4 chunks of 1,024 tokens of val.u16, positions 512-1022")
print("scored (2,044), llama.cpp through node-llama-cpp 3.21.1 CPU, flash attention on, 2 threads, batch 512.")
print("Base: the f16-KV run's llama-perplexity '_logits_' file; the other side: each run's float32 log-probs.")
print()
print("| KV type (llama.cpp) | rotation | bytes / cell / layer | PPL | mean KL vs f16 KV | median KL | p99 KL | max KL | RMS Δp | same top-1 | eval s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for v in variants:
    s = json.load(open(f"{out}/{v}.json"))
    c = json.load(open(f"{out}/{v}.compare.json"))
    kv = s["kv"]
    rot = "off (LLAMA_ATTN_ROT_DISABLE=1)" if s["rotation"] == "disabled" else "llama.cpp's default"
    print(f"| {kv} | {rot} | {cell.get(kv, '?'):,} | {c['ppl_b']:.4f} | {c['kld_mean']:.6f} | {c['kld_median']:.6f} | "
          f"{c['kld_p99.0']:.5f} | {c['kld_max']:.5f} | {100*c['dp_rms']:.3f}% | {100*c['same_top']:.2f}% | {s['seconds_eval']:.1f} |")
PY
cat "$out/table.md"
