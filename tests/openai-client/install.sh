#!/usr/bin/env bash
# tests/openai-client/install.sh — installs the official openai npm client, 6.30.1, into
# tests/openai-client/node_modules exactly as package-lock.json pins it (npm ci; install scripts off;
# nothing but the npm registry). Idempotent: does nothing when node_modules was installed from the current
# lock file. openai 7.x needs node >= 22; this machine has node 20, and 6.30.1 is the newest release that
# runs on it. ServeOpenAiClientE2eTest calls this before it drives the server with client.mjs.
#   usage: tests/openai-client/install.sh [--force]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# the pinned install itself (bench/npm-install.sh)
force=
[ "${1:-}" = "--force" ] && force=--force
exec "$here/../../bench/npm-install.sh" "$here" openai 6.30.1 $force
