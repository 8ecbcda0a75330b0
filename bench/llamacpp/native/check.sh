#!/usr/bin/env bash
# bench/llamacpp/native/check.sh — cross-checks logits.mjs against llama.cpp's C API. Builds kld-base.cpp
# (perplexity.cpp's record code verbatim, llama-perplexity's batching) against the shared libraries that
# node-llama-cpp ships and the headers of the llama.cpp source bundled with it, writes the "_logits_" file
# both ways for one model and compares them with compare.py (float32 log-probs: they must agree to float
# rounding; PPL to 1e-6). Needs g++ and git; about 40 s of one core.
#   usage: bench/llamacpp/native/check.sh [MODEL.gguf [TOKENS.u16 [CHUNKS [KV]]]]
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
here="$(cd "$(dirname "$0")" && pwd)"
lc="$(cd "$here/.." && pwd)"
root="$(cd "$lc/../.." && pwd)"
models="${STRATA_MODELS:-$root/../shared/data/models}"
[ -d "$models" ] || models="$root/../../shared/data/models"
model="${1:-$models/tiny-qwen3-f16.gguf}"
tokens="${2:-$models/val.u16}"
chunks="${3:-4}"
kv="${4:-f16}"
"$lc/install.sh"
case "$(uname -sm)" in
  "Linux x86_64") plat=linux-x64 ;;
  "Linux aarch64") plat=linux-arm64 ;;
  *) echo "check.sh: Linux x86_64 or aarch64 only" >&2; exit 2 ;;
esac
bins="$lc/node_modules/@node-llama-cpp/$plat/bins/$plat"
[ -f "$bins/libllama.v0.4.0.so" ] || { echo "check.sh: no prebuilt libllama in $bins (linux only)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-native-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
git -c advice.detachedHead=false clone -q "$lc/node_modules/node-llama-cpp/llama/gitRelease.bundle" "$work/src"
g++ -O2 -std=c++17 -I"$work/src/include" -I"$work/src/ggml/include" "$here/kld-base.cpp" -o "$work/kld-base" \
  -L"$bins" -l:libllama.v0.4.0.so -l:libggml.v0.4.0.so -l:libggml-base.so -Wl,-rpath,"$bins"
"$work/kld-base" "$bins" "$model" "$tokens" 1024 "$chunks" 1 "$kv" "$work/native.logits" "$work/native.lpf32"
node "$lc/logits.mjs" --model "$model" --tokens "$tokens" --ctx 1024 --chunks "$chunks" --threads 1 --kv "$kv" \
  --out "$work/nlc.logits" --out-f32 "$work/nlc.lpf32" > /dev/null
python3 "$lc/compare.py" "$work/native.lpf32" "$work/nlc.lpf32" --quiet --json "$work/cmp.json" | grep -E "PPL\(|Mean    KLD|Maximum KLD|Same top"
python3 - "$work/cmp.json" "$work/native.logits" "$work/nlc.logits" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
a, b = open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read()
wa, wb = memoryview(a)[:len(a) // 2 * 2].cast("H"), memoryview(b)[:len(b) // 2 * 2].cast("H")
diff = sum(x != y for x, y in zip(wa, wb)) if len(a) == len(b) else -1
ok = r["same_top"] == 1.0 and r["kld_max"] < 1e-5 and abs(r["ppl_ratio"] - 1) < 1e-6 and len(a) == len(b)
print(f"check.sh: {'OK' if ok else 'FAILED'}: node-llama-cpp (logits.mjs) vs llama.cpp's C API (kld-base), {r['count']} positions:"
      f" same top {100*r['same_top']:.2f}%, PPL ratio {r['ppl_ratio']:.9f}, mean KL {r['kld_mean']:.1e}, max KL {r['kld_max']:.1e};"
      f" '_logits_' files: {len(a)} bytes, {diff} of {len(a)//2} uint16 words differ (float rounding: ±1 in q)")
sys.exit(0 if ok else 1)
PY
