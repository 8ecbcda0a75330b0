#!/usr/bin/env bash
# strata-ref's quant kernels against llama.cpp's ggml CPU code (x86-64 with AVX2; see check.c).
#
#   engine/native/tools/ggml_quant_check/run.sh LLAMA_CPP_SOURCE_TREE
#
# LLAMA_CPP_SOURCE_TREE: a llama.cpp checkout (e.g. `git clone
# /work/nlc/node_modules/node-llama-cpp/llama/gitRelease.bundle /tmp/llama.cpp-src`, the build node-llama-cpp
# ships). Needs strata-ref's objects built (make -C engine/native ...).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
L="${1:?usage: run.sh LLAMA_CPP_SOURCE_TREE}/ggml"
OBJ="$ROOT/engine/target/native/obj"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
INC=(-I"$L/include" -I"$L/src" -I"$L/src/ggml-cpu")
cc -O2 -mavx2 -mfma -mf16c -std=gnu11 -D_GNU_SOURCE "${INC[@]}" -c "$L/src/ggml-quants.c" -o "$TMP/ggml-quants.o"
cc -O2 -mavx2 -mfma -mf16c -std=gnu11 -D_GNU_SOURCE "${INC[@]}" -c "$L/src/ggml-cpu/quants.c" -o "$TMP/cpu-quants.o"
cc -O2 -mavx2 -mfma -mf16c -std=gnu11 -D_GNU_SOURCE "${INC[@]}" -c "$L/src/ggml-cpu/arch/x86/quants.c" -o "$TMP/x86-quants.o"
cc -O2 -mf16c -I"$ROOT/engine/native/src" -o "$TMP/check" "$HERE/check.c" "$HERE/stubs.c" "$OBJ/quant.o" \
  "$OBJ/quant_kern_base.o" "$OBJ/quant_kern_avx2.o" "$OBJ/quant_dot_base.o" "$OBJ/quant_dot_avx2.o" "$TMP/ggml-quants.o" "$TMP/cpu-quants.o" "$TMP/x86-quants.o" -lm
"$TMP/check"
