#!/usr/bin/env bash
# bench/startup/run.sh — start-up of `strata-setup … --print` and `strata-launch --dry-run` against
# (a) a bare JVM start and (b) bench/startup/baseline.py (Python 3 doing --print's work), alternating.
#
#   bench/startup/run.sh [rounds] [outdir]        (default 11 rounds, bench/results/<today>-startup)
#
# Needs the built distribution (./strata build, or mvn -pl dist -am package). It measures a copy of the
# distribution with the ORIGINAL picocli jar from the Maven repository (no class file edited) and its
# AOT caches trained again by the copy's own libexec/aot-train.sh. Commands, run once per round in this
# order (round 0 is a warm-up, not counted):
#   jvm            java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -version      (the JVM's floor)
#   python         python3 bench/startup/baseline.py --host-file H --model M --ctx 32768 --experts stream --print
#   setup          bin/strata-setup --host-file H --model M --ctx 32768 --experts stream --engine-lib L --print
#                  (a simple argument list: the fast path, SetupArgs, without picocli's model)
#   setup-picocli  the same with --ctx=32768: not simple, so picocli parses it (what the fast path saves)
#   setup-noaot    `setup` from a copy without the AOT caches
#   launch         bin/strata-launch --dry-run --config C
# M is the demo model (first of 4 shards, written to a temporary folder), H templates/hosts/m4-pro-48.json,
# L a placeholder engine library (its sha256 is pinned), C a config for this machine's backend.
# Writes raw.csv (every run: wall and CPU seconds), the commands' first stdout, and README.md.
. "$(dirname "$0")/../lib.sh"
rounds="${1:-11}"
out="${2:-$(bench_results startup)}"
bench_dist
built="$dist"
export JAVA_HOME="$jdk"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-startup.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The measured distribution: the built one with the original picocli jar, caches trained again.
dist="$work/dist"
cp -R "$built" "$dist"
rm -f "$dist/lib/"*.aot
picocli=$(cd "$dist/lib" && ls picocli-*.jar)
orig=$(find "${MAVEN_REPO:-$HOME/.m2/repository}/info/picocli/picocli" -name "$picocli" | head -n 1)
[ -n "$orig" ] || { echo "run.sh: the original $picocli is not in the Maven repository" >&2; exit 2; }
cp "$orig" "$dist/lib/$picocli"
cp -R "$dist" "$work/noaot"
"$dist/libexec/aot-train.sh" >/dev/null

"$dist/bin/strata-setup" demo-model --out "$work/model" >/dev/null
model="$work/model/strata-demo-00001-of-00004.gguf"
host="$root/templates/hosts/m4-pro-48.json"
printf 'placeholder\n' >"$work/libstrata.dylib"
case $(uname -s) in Darwin) backend=metal lib=$work/libstrata.dylib ;; *) backend=cpu-reference lib=$work/libstrata_ref.so ;; esac
printf 'placeholder\n' >"$lib"
"$dist/bin/strata-setup" --host-file "$host" --model "$model" --ctx 32768 --experts stream --backend "$backend" \
  --engine-lib "$lib" --out "$work/config.yaml" >/dev/null

US=$'\x1f'  # argv separator for timing.py (paths may hold spaces)
j() { local IFS="$US"; echo "$*"; }
common=(--host-file "$host" --model "$model" --experts stream --engine-lib "$work/libstrata.dylib" --print)
cmds=(
  "jvm=$(j "$jdk/bin/java" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -version)"
  "python=$(j python3 "$here/baseline.py" --host-file "$host" --model "$model" --ctx 32768 --experts stream --print)"
  "setup=$(j "$dist/bin/strata-setup" --ctx 32768 "${common[@]}")"
  "setup-picocli=$(j "$dist/bin/strata-setup" --ctx=32768 "${common[@]}")"
  "setup-noaot=$(j "$work/noaot/bin/strata-setup" --ctx 32768 "${common[@]}")"
  "launch=$(j "$dist/bin/strata-launch" --dry-run --config "$work/config.yaml")"
)

load_before=$(uptime)
python3 "$here/timing.py" "$rounds" "$out" "${cmds[@]}" >"$work/medians.tsv"
load_after=$(uptime)
for f in "$out"/stdout-*.txt; do sed -i.bak "s|$work|\$WORK|g" "$f" && rm -f "$f.bak"; done

med() { awk -F'\t' -v n="$1" '$1 == n { print $2 }' "$work/medians.tsv"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
py=$(med python)
jvm=$(med jvm)
{
  echo "# Start-up: strata-setup --print and strata-launch --dry-run — $(date -u +%F)"
  echo
  echo "- Command: \`bench/startup/run.sh $rounds\` ($rounds alternating rounds after one warm-up round; raw.csv has every run)"
  echo "- Machine: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs, $(uname -sm); $("$jdk/bin/java" -version 2>&1 | head -1); $(python3 --version)"
  echo "- Date: $(date -u +%FT%TZ)"
  echo "- uptime before: $load_before"
  echo "- uptime after:  $load_after"
  echo "- Distribution: the build with the original $picocli (no class file edited), AOT caches trained by its libexec/aot-train.sh"
  echo "- Model: the demo model (4 shards), host JSON templates/hosts/m4-pro-48.json, --ctx 32768 --experts stream"
  echo
  echo "| command | median wall s | min wall s | median CPU s | vs python (wall) | vs bare JVM (wall) |"
  echo "|---|---:|---:|---:|---:|---:|"
  while IFS=$'\t' read -r name m lo cpu; do
    echo "| $name | $m | $lo | $cpu | $(ratio "$m" "$py")× | $(ratio "$m" "$jvm")× |"
  done <"$work/medians.tsv"
  echo
  echo "Target (issue 17): setup ≤ 1.0× python, ceiling 1.2×. Measured: setup $(ratio "$(med setup)" "$py")×."
} >"$out/README.md"
cat "$out/README.md"
