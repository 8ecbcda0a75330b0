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
command -v node >/dev/null || { echo "install.sh: node (>= 20) not found" >&2; exit 2; }
command -v npm >/dev/null || { echo "install.sh: npm not found" >&2; exit 2; }
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 20 ] || { echo "install.sh: node $(node --version) is too old: node-llama-cpp 3.21.1 needs >= 20" >&2; exit 2; }
stamp_want="$(sha256sum package-lock.json package.json stubs/*/package.json | sha256sum | cut -d' ' -f1) node-$(node --version) $(uname -sm)"
stamp=node_modules/.strata-install-stamp
if [ "${1:-}" != "--force" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_want" ]; then
  echo "install.sh: node_modules is current ($(node -p 'require("./node_modules/node-llama-cpp/package.json").version'))" >&2
  exit 0
fi
rm -f "$stamp"
export NODE_LLAMA_CPP_SKIP_DOWNLOAD=true
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
v=$(node -p 'require("./node_modules/node-llama-cpp/package.json").version')
[ "$v" = "3.21.1" ] || { echo "install.sh: installed node-llama-cpp $v, expected 3.21.1" >&2; exit 1; }
echo "$stamp_want" > "$stamp"
echo "install.sh: node-llama-cpp $v installed in $here/node_modules" >&2
