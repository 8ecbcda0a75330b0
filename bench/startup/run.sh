#!/usr/bin/env bash
# bench/startup/run.sh — start-up of `strata-setup … --print` and `strata-launch --dry-run` against
# (a) a bare JVM start and (b) bench/startup/baseline.py (Python 3 doing --print's work), alternating.
#
#   bench/startup/run.sh [rounds] [outdir]        (default 11 rounds, bench/results/<today>-startup)
#
# Needs the built distribution (./strata build, or mvn -pl dist -am package). Commands, run once per
# round in this order (round 0 is a warm-up, not counted):
#   jvm            java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -version      (the JVM's floor)
#   python         python3 bench/startup/baseline.py --host-file H --model M --ctx 32768 --experts stream --print
#   setup          dist bin/strata-setup --host-file H --model M --ctx 32768 --experts stream --engine-lib L --print
#   setup-noaot    the same from a copy of the distribution without its AOT caches
#   setup-before   the same from a copy with neither the caches nor the retargeted picocli (main's state)
#   setup-aotonly  the same from a copy with caches trained on the original picocli (no retargeting)
#   setup-wrapper  ./strata setup … --print  (the repository wrapper: up-to-date check + cached JDK path)
#   launch         dist bin/strata-launch --dry-run --config C
#   launch-noaot   the same without the caches; launch-before: neither caches nor retargeted picocli;
#                  launch-aotonly: caches, original picocli
# M is the demo model (first of 4 shards, written to a temporary folder), H templates/hosts/m4-pro-48.json,
# L a placeholder engine library (its sha256 is pinned), C a config for this machine's backend.
# Writes raw.csv (every run: wall and CPU seconds), the commands' first stdout, and README.md.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
rounds="${1:-11}"
out="${2:-$root/bench/results/$(date +%F)-startup}"
dist="$root/dist/target/strata-0.1.0"
[ -x "$dist/bin/strata-setup" ] || { echo "run.sh: no distribution at $dist: run ./strata build first" >&2; exit 2; }
. "$dist/libexec/find-jdk.sh"
jdk=$(strata_find_jdk "$root/dist/target/.strata-java-home") || { echo "run.sh: $STRATA_NO_JDK_MESSAGE" >&2; exit 2; }
export JAVA_HOME="$jdk"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-startup.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The two comparison copies of the distribution (same scripts, same jars otherwise).
cp -R "$dist" "$work/noaot"
rm -f "$work/noaot/lib/"*.aot
cp -R "$work/noaot" "$work/before"
picocli=$(cd "$dist/lib" && ls picocli-*.jar)
orig=$(find "${MAVEN_REPO:-$HOME/.m2/repository}/info/picocli/picocli" -name "$picocli" | head -n 1)
[ -n "$orig" ] || { echo "run.sh: the original $picocli is not in the Maven repository" >&2; exit 2; }
cp "$orig" "$work/before/lib/$picocli"
# and one with the AOT caches but the original picocli (what the caches give without the retargeting)
cp -R "$work/before" "$work/aotonly"
JAVA_HOME="$jdk" "$work/aotonly/libexec/aot-train.sh" >/dev/null

"$dist/bin/strata-setup" demo-model --out "$work/model" >/dev/null
model="$work/model/strata-demo-00001-of-00004.gguf"
host="$root/templates/hosts/m4-pro-48.json"
printf 'placeholder\n' >"$work/libstrata.dylib"
case $(uname -s) in Darwin) backend=metal lib=$work/libstrata.dylib ;; *) backend=cpu-reference lib=$work/libstrata_ref.so ;; esac
printf 'placeholder\n' >"$lib"
"$dist/bin/strata-setup" --host-file "$host" --model "$model" --ctx 32768 --experts stream --backend "$backend" \
  --engine-lib "$lib" --out "$work/config.yaml" >/dev/null
"$root/strata" build >/dev/null  # the wrapper's own build step must be a no-op before timing it

US=$'\x1f'  # argv separator for timing.py (paths may hold spaces)
j() { local IFS="$US"; echo "$*"; }
setup_args=(--host-file "$host" --model "$model" --ctx 32768 --experts stream --engine-lib "$work/libstrata.dylib" --print)
cmds=(
  "jvm=$(j "$jdk/bin/java" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -version)"
  "python=$(j python3 "$here/baseline.py" --host-file "$host" --model "$model" --ctx 32768 --experts stream --print)"
  "setup=$(j "$dist/bin/strata-setup" "${setup_args[@]}")"
  "setup-noaot=$(j "$work/noaot/bin/strata-setup" "${setup_args[@]}")"
  "setup-before=$(j "$work/before/bin/strata-setup" "${setup_args[@]}")"
  "setup-aotonly=$(j "$work/aotonly/bin/strata-setup" "${setup_args[@]}")"
  "setup-wrapper=$(j "$root/strata" setup "${setup_args[@]}")"
  "launch=$(j "$dist/bin/strata-launch" --dry-run --config "$work/config.yaml")"
  "launch-noaot=$(j "$work/noaot/bin/strata-launch" --dry-run --config "$work/config.yaml")"
  "launch-before=$(j "$work/before/bin/strata-launch" --dry-run --config "$work/config.yaml")"
  "launch-aotonly=$(j "$work/aotonly/bin/strata-launch" --dry-run --config "$work/config.yaml")"
)

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)
python3 "$here/timing.py" "$rounds" "$out" "${cmds[@]}" >"$work/medians.tsv"
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)
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
  echo "- Date: $(date -u +%FT%TZ); load average before: $load_before, after: $load_after"
  echo "- Model: the demo model (4 shards, first one read), host JSON templates/hosts/m4-pro-48.json, --ctx 32768 --experts stream"
  echo
  echo "| command | median wall s | min wall s | median CPU s | vs python (wall) | vs bare JVM (wall) |"
  echo "|---|---:|---:|---:|---:|---:|"
  while IFS=$'\t' read -r name m lo cpu; do
    echo "| $name | $m | $lo | $cpu | $(ratio "$m" "$py")× | $(ratio "$m" "$jvm")× |"
  done <"$work/medians.tsv"
  echo
  echo "Target: setup ≤ 1.0× python (must not exceed 1.5×). Measured: setup $(ratio "$(med setup)" "$py")×."
} >"$out/README.md"
cat "$out/README.md"
