#!/usr/bin/env bash
# Where strata-ref's forward pass first differs from llama.cpp's: both engines evaluate the first N tokens of a
# token file as one batch and dump every layer's tensors; compare_dump.py prints, per tensor of strata-ref's first
# batch (32 tokens), how many values are bit-identical and the largest difference.
#
#   engine/native/tools/llamacpp_dump/run.sh LLAMA_CPP_SOURCE_TREE MODEL.gguf TOKENS.u16 [N] [LAYERS]
#
# N: llama.cpp's batch = ubatch (default 64: >= 64 takes its tiled flash attention, as its 512-token ubatches do);
# LAYERS: compare layers 0..LAYERS (default all). llama.cpp is node-llama-cpp 3.21.1's shipped libraries
# (bench/llamacpp/node_modules; headers from the source tree it was built from, e.g. `git clone
# /work/nlc/node_modules/node-llama-cpp/llama/gitRelease.bundle /tmp/llama.cpp-src`), run through a cb_eval
# callback (lc_dump.c); strata-ref is engine/target/native/session_test with STRATA_DUMP (forward.h). Needs numpy.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
SRC="${1:?usage: run.sh LLAMA_CPP_SOURCE_TREE MODEL TOKENS [N] [LAYERS]}" MODEL="${2:?model}" TOKENS="${3:?tokens}"
N="${4:-64}" LAYERS="${5:-99}"
LIB="$ROOT/bench/llamacpp/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64"
[ -d "$LIB" ] || { echo "run.sh: no $LIB: run bench/llamacpp/install.sh" >&2; exit 2; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
cc -O1 -o "$TMP/lc_dump" "$HERE/lc_dump.c" -I"$SRC/include" -I"$SRC/ggml/include" -L"$LIB" \
  -l:libllama.v0.4.0.so -l:libggml.v0.4.0.so -l:libggml-base.so -Wl,-rpath,"$LIB"
LC_LIBDIR="$LIB/" "$TMP/lc_dump" "$MODEL" "$TOKENS" "$N" "$TMP/llama.bin" "$N" "${THREADS:-2}" 2> "$TMP/llama.log"
STRATA_DUMP="$TMP/ref.bin" "$ROOT/engine/target/native/session_test" logits "$MODEL" "$TOKENS" 512 1 fp16 \
  "${THREADS:-2}" "$TMP/ref.lpf32" 2> /dev/null
python3 "$HERE/compare_dump.py" "$TMP/llama.bin" "$TMP/ref.bin" "$LAYERS"
