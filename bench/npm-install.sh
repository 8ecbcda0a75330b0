#!/usr/bin/env bash
# bench/npm-install.sh — the one pinned npm install of the repository's node tools (bench/llamacpp/install.sh,
# tests/openai-client/install.sh): `npm ci` of the folder's package-lock.json with install scripts off, from the
# npm registry only; idempotent through a stamp in node_modules (the hash of the lock, the package files and the
# stamp files given, the node version and the machine), so it does nothing when node_modules is current.
#   usage: bench/npm-install.sh DIR PACKAGE VERSION [--force] [STAMP_FILE...]
#     DIR      the folder with package.json and package-lock.json
#     PACKAGE  the package whose installed version is checked, VERSION the version it must be
#   exit 0 installed or current; 1 the installed version is not VERSION; 2 no node >= 20 or npm, or bad usage.
set -euo pipefail
[ $# -ge 3 ] || { echo "npm-install.sh: usage: npm-install.sh DIR PACKAGE VERSION [--force] [STAMP_FILE...]" >&2; exit 2; }
dir=$1 package=$2 version=$3
shift 3
force=
if [ "${1:-}" = "--force" ]; then force=1; shift; fi
cd "$dir"
command -v node >/dev/null || { echo "install.sh: node (>= 20) not found" >&2; exit 2; }
command -v npm >/dev/null || { echo "install.sh: npm not found" >&2; exit 2; }
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 20 ] || { echo "install.sh: node $(node --version) is too old: $package $version needs >= 20" >&2; exit 2; }
stamp_want="$(sha256sum package-lock.json package.json "$@" | sha256sum | cut -d' ' -f1) node-$(node --version) $(uname -sm)"
stamp=node_modules/.strata-install-stamp
installed() { node -p "require(\"./node_modules/$package/package.json\").version"; }
if [ -z "$force" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_want" ]; then
  echo "install.sh: node_modules is current ($package $(installed))" >&2
  exit 0
fi
rm -f "$stamp"
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >&2
v=$(installed)
[ "$v" = "$version" ] || { echo "install.sh: installed $package $v, expected $version" >&2; exit 1; }
echo "$stamp_want" > "$stamp"
echo "install.sh: $package $v installed in $(pwd)/node_modules" >&2
