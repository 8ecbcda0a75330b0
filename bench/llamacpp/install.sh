#!/usr/bin/env bash
# bench/llamacpp/install.sh — installs node-llama-cpp 3.21.1 (llama.cpp's prebuilt CPU build) from the npm
# registry into bench/llamacpp/node_modules, exactly as package-lock.json pins it. Idempotent: does nothing
# when node_modules was installed from the current lock file. Needs node >= 20 and npm; touches no other
# network than the npm registry: install scripts are off (node-llama-cpp's postinstall would only probe the
# binary, and could fall back to downloading llama.cpp's source from GitHub), and so are downloads at run
# time (NODE_LLAMA_CPP_SKIP_DOWNLOAD; the scripts also pass build: "never", skipDownload: true).
# The three GPU variants for linux-x64 (CUDA, CUDA-ext, Vulkan: 620 MB) are replaced by the empty packages
# in stubs/ through package.json "overrides"; everything else is the registry's.
#   usage: bench/llamacpp/install.sh [--force]
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
force=
[ "${1:-}" = "--force" ] && force=--force
export NODE_LLAMA_CPP_SKIP_DOWNLOAD=true
# the pinned install itself (bench/npm-install.sh); the GPU stubs count in its stamp
exec ../npm-install.sh "$here" node-llama-cpp 3.21.1 $force stubs/*/package.json
