#!/usr/bin/env bash
# bench/llamacpp/make-reference.sh — llama.cpp's reference data for strata-ref's tests: for each of the five
# shared model files, teacher-forced log-probs over 2,044 positions of val.u16 (4 chunks of 1,024, positions
# 512..1022 scored, f16 KV) and greedy generation of 32 tokens for the 5 prompts of prompts.jsonl. One
# command, fixed output names under OUTDIR (README.md, "Reference data"):
#   OUTDIR/manifest.json                 build, settings, model sha256s, seconds per run
#   OUTDIR/<model>.logits                llama-perplexity "_logits_" file (33.5 MB) — the KL base
#   OUTDIR/<model>.lpf32                 float32 log-probs (67 MB), only with --f32
#   OUTDIR/<model>.top.tsv               per scored position: next token, its log-prob, top-1/top-2 (90 KB)
#   OUTDIR/<model>.logits.json           summary of the logits run (PPL, seconds)
#   OUTDIR/<model>.generate.jsonl        one JSON line per prompt: tokens, text, top-2 and gap per step
#   OUTDIR/timings.tsv                   seconds per run
# <model> is the GGUF file name without .gguf. One thread by default (--threads T): llama.cpp's results here
# do not depend on the thread count (checked byte for byte), and one thread does not collapse when the
# cores are shared (ggml's threads spin at every barrier). See README.md for the measured times.
#   usage: bench/llamacpp/make-reference.sh [--f32] [--threads T] [--only NAME]... [--models DIR] OUTDIR
#   DIR default: $STRATA_MODELS, else ../shared/data/models beside the repository (or beside its parent).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
f32=0
threads=1
only=()
models="${STRATA_MODELS:-}"
if [ -z "$models" ]; then # the shared models beside the repository (or beside a worktree's parent)
  models="$root/../shared/data/models"
  [ -d "$models" ] || [ ! -d "$root/../../shared/data/models" ] || models="$root/../../shared/data/models"
fi
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --f32) f32=1 ;;
    --only) only+=("$2"); shift ;;
    --threads) threads="$2"; shift ;;
    --models) models="$2"; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "make-reference.sh: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$out" ] || { echo "make-reference.sh: one OUTDIR only" >&2; exit 2; }; out="$1" ;;
  esac
  shift
done
[ -n "$out" ] || { echo "usage: make-reference.sh [--f32] [--threads T] [--only NAME]... [--models DIR] OUTDIR" >&2; exit 2; }
names=(tiny-qwen3-f16 tiny-qwen3-q8_0 tiny-qwen3-q4_k_m tiny-qwen3moe-q8_0 tiny-qwen3moe-q4_k_m)
[ ${#only[@]} -eq 0 ] || names=("${only[@]}")
for n in "${names[@]}"; do
  [ -f "$models/$n.gguf" ] || { echo "make-reference.sh: no $models/$n.gguf" >&2; exit 2; }
done
[ -f "$models/val.u16" ] || { echo "make-reference.sh: no $models/val.u16" >&2; exit 2; }
"$here/install.sh"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
ctx=1024
chunks=4
n_gen=32
printf 'run\tseconds\n' > "$out/timings.tsv"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
t_all=$(now)
for n in "${names[@]}"; do
  m="$models/$n.gguf"
  extra=()
  [ $f32 = 0 ] || extra=(--out-f32 "$out/$n.lpf32")
  t0=$(now)
  node "$here/logits.mjs" --model "$m" --tokens "$models/val.u16" --ctx $ctx --chunks $chunks --kv f16 --threads $threads \
    --out "$out/$n.logits" --out-top "$out/$n.top.tsv" --json "$out/$n.logits.json" "${extra[@]}" > /dev/null
  t1=$(now)
  node "$here/generate.mjs" --model "$m" --prompts-jsonl "$here/prompts.jsonl" --n $n_gen --kv f16 --threads $threads \
    --out "$out/$n.generate.jsonl" > /dev/null
  t2=$(now)
  printf '%s.logits\t%s\n%s.generate\t%s\n' "$n" "$(secs "$t0" "$t1")" "$n" "$(secs "$t1" "$t2")" >> "$out/timings.tsv"
  echo "make-reference.sh: $n: logits $(secs "$t0" "$t1") s, generate $(secs "$t1" "$t2") s" >&2
done
total=$(secs "$t_all" "$(now)")
printf 'total\t%s\n' "$total" >> "$out/timings.tsv"
python3 - "$out" "$models" "$total" "$here/prompts.jsonl" "$threads" "${names[@]}" <<'PY'
import hashlib, json, os, platform, subprocess, sys
out, models, total, prompts, threads, names = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], int(sys.argv[5]), sys.argv[6:]
def sha(p):
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()
timings = dict(l.rstrip("\n").split("\t") for l in open(f"{out}/timings.tsv").readlines()[1:])
runs = []
build = None
for n in names:
    s = json.load(open(f"{out}/{n}.logits.json"))
    build = s.pop("build")
    runs.append({"name": n, "gguf_sha256": sha(f"{models}/{n}.gguf"), "ppl": s["ppl"], "n_scored": s["n_scored"],
                 "seconds_logits": float(timings[f"{n}.logits"]), "seconds_generate": float(timings[f"{n}.generate"])})
manifest = {
    "what": "llama.cpp reference data for strata-ref (bench/llamacpp/make-reference.sh)",
    "settings": {"tokens": "val.u16", "val_u16_sha256": sha(f"{models}/val.u16"), "ctx": 1024, "chunks": 4, "first": 512,
                 "kv": "f16", "flash_attention": True, "threads": threads, "batch": 512, "generate_tokens": 32,
                 "prompts": [json.loads(l) for l in open(prompts) if l.strip()]},
    "build": build,
    "host": {"machine": platform.machine(), "cpus": os.cpu_count(), "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()},
    "seconds_total": total,
    "runs": runs,
}
with open(f"{out}/manifest.json", "w") as f:
    json.dump(manifest, f, indent=2, ensure_ascii=False)
    f.write("\n")
PY
echo "make-reference.sh: done in $total s: $out" >&2
