#!/usr/bin/env bash
# tests/openai-client/install.sh — installs the official openai npm client, 6.30.1, into
# tests/openai-client/node_modules exactly as package-lock.json pins it (npm ci; install scripts off;
# nothing but the npm registry). Idempotent: does nothing when node_modules was installed from the current
# lock file. openai 7.x needs node >= 22; this machine has node 20, and 6.30.1 is the newest release that
# runs on it. ServeOpenAiClientE2eTest calls this before it drives the server with client.mjs.
#   usage: tests/openai-client/install.sh [--force]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
command -v node >/dev/null || { echo "install.sh: node (>= 20) not found" >&2; exit 2; }
command -v npm >/dev/null || { echo "install.sh: npm not found" >&2; exit 2; }
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 20 ] || { echo "install.sh: node $(node --version) is too old: openai 6.30.1 needs >= 20" >&2; exit 2; }
stamp_want="$(sha256sum package-lock.json package.json | sha256sum | cut -d' ' -f1) node-$(node --version)"
stamp=node_modules/.strata-install-stamp
if [ "${1:-}" != "--force" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_want" ]; then
  exit 0
fi
rm -f "$stamp"
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >&2
v=$(node -p 'require("./node_modules/openai/package.json").version')
[ "$v" = "6.30.1" ] || { echo "install.sh: installed openai $v, expected 6.30.1" >&2; exit 1; }
echo "$stamp_want" > "$stamp"
echo "install.sh: openai $v installed in $here/node_modules" >&2
