#!/usr/bin/env bash
# kv-places.sh — the places in src/main Java that know about the --kv option by name: the flag's
# constant and literal, every alias of it, its picocli mixin/converter/completion classes and the
# fast path's switch case, a bare KV passed by the classes that declare it ((KV)), and the
# wizard's KV step wherever it is named (Step.KV). Comment lines and imports are not counted.
# strata-quality's own --kv (a list of formats to measure, read by QualityOptions for QualityMain)
# is a different option and is left out.
#   bench/results/2026-12-02-startup/kv-places.sh [repo]     prints the lines, then the count
cd "${1:-$(git rev-parse --show-toplevel)}" || exit 2
grep -rn --include=*.java -E \
  'EngineFlags\.KV\b|"--kv"|\bKvOption\b|SetupArgs\.KV\b|TableValues\.Kv(Names)?\b|case KV\b|static final String KV\b|Options\.KV\b|\bKV\.(name|row)\(|\bStep\.KV\b|\(KV\)' \
  engine/src/main cli/src/main setup/src/main launcher/src/main metal/src/main 2>/dev/null \
  | grep -v -E '/quality/Quality(Main|Options)\.java' \
  | grep -v -E '^[^:]+:[0-9]+:\s*(\*|//|/\*\*|import )' \
  | tee /dev/stderr | wc -l
