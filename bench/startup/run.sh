#!/usr/bin/env bash
# bench/startup/run.sh — start-up of `strata-setup … --print` and `strata-launch --dry-run` against
# (a) a bare JVM start and (b) bench/startup/baseline.py (Python 3 doing --print's work), alternating.
#
#   bench/startup/run.sh [rounds] [outdir]        (default 11 rounds, bench/results/<today>-startup)
#
# Needs the built distribution (./strata build, or mvn -pl dist -am package). It measures a copy of it
# with picocli's jar taken from the Maven repository (so a tree built before Retarget.java was removed
# cannot measure an edited jar) and its AOT caches trained again by the copy's own libexec/aot-train.sh.
# Commands, run once per round in this order (round 0 is a warm-up, not counted):
#   jvm            java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -version      (the JVM's floor)
#   python         PY bench/startup/baseline.py --host-file H --model M --ctx 32768 --experts stream --print
#                  PY is the interpreter itself (sys.executable), never a version manager's shim: a pyenv
#                  shim is a shell script that costs more than the whole baseline
#   setup          bin/strata-setup --ctx 32768 --host-file H --model M --experts stream --engine-lib L --print
#                  (a simple argument list: the fast path, SetupOptions, without picocli's model)
#   setup-picocli  the same with --ctx=32768: not simple, so picocli parses it (what the fast path saves)
#   setup-noaot    `setup` from a copy without the AOT caches
#   launch         bin/strata-launch --dry-run --config C
#                  (a simple argument list: the fast path, LaunchOptions, without picocli's model)
#   launch-picocli the same with --config=C: not simple, so picocli parses it (what the fast path saves)
# M is the demo model (first of 4 shards, written to a temporary folder), H templates/hosts/m4-pro-48.json
# (a file, as a user passes it), L a path with no library (a config made for another machine: setup
# pins no sha256, as in the AOT training), C a config for this machine made with the distribution's
# strata-ref library (its sha256 pinned; the dry run loads and checks it).
# BENCH_EXTRA="NAME=DIST ..." adds, for each other built distribution DIST (e.g. main's before a change),
# rows setup-NAME, setup-picocli-NAME, launch-NAME and launch-picocli-NAME from a copy of it as it is (jars untouched), its
# caches trained again: a before/after in one run.
# BENCH_NO_LAUNCH=1 leaves out the launch rows (for a machine where the dry run is refused: it exits 3
# when this machine's free memory does not hold the demo config's plan).
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
# The interpreter itself: `python3` on PATH may be a shim (pyenv's is a bash script, ~1 s a call here).
py=$(python3 -c 'import sys; print(sys.executable)')

"$dist/bin/strata-setup" demo-model --out "$work/model" >/dev/null
model="$work/model/strata-demo-00001-of-00004.gguf"
host="$root/templates/hosts/m4-pro-48.json"
ref=$(ls "$dist/lib/native/"libstrata_ref.* 2>/dev/null | head -n 1)
[ -n "$ref" ] || { echo "run.sh: no strata-ref library in $dist/lib/native: run ./strata build" >&2; exit 2; }
"$dist/bin/strata-setup" --model "$model" --ctx 32768 --experts stream --backend cpu-reference \
  --engine-lib "$ref" --out "$work/config.yaml" >/dev/null

US=$'\x1f'  # argv separator for timing.py (paths may hold spaces)
j() { local IFS="$US"; echo "$*"; }
common=(--host-file "$host" --model "$model" --experts stream --engine-lib "$work/absent/libstrata.dylib" --print)
cmds=(
  "jvm=$(j "$jdk/bin/java" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -version)"
  "python=$(j "$py" "$here/baseline.py" --host-file "$host" --model "$model" --ctx 32768 --experts stream --print)"
  "setup=$(j "$dist/bin/strata-setup" --ctx 32768 "${common[@]}")"
  "setup-picocli=$(j "$dist/bin/strata-setup" --ctx=32768 "${common[@]}")"
  "setup-noaot=$(j "$work/noaot/bin/strata-setup" --ctx 32768 "${common[@]}")"
)
[ -n "${BENCH_NO_LAUNCH:-}" ] || cmds+=(
  "launch=$(j "$dist/bin/strata-launch" --dry-run --config "$work/config.yaml")"
  "launch-picocli=$(j "$dist/bin/strata-launch" --dry-run --config="$work/config.yaml")"
)
for spec in ${BENCH_EXTRA:-}; do
  name=${spec%%=*} other=${spec#*=}
  [ -x "$other/bin/strata-setup" ] || { echo "run.sh: BENCH_EXTRA: no distribution at $other" >&2; exit 2; }
  cp -R "$other" "$work/x-$name"
  rm -f "$work/x-$name/lib/"*.aot
  "$work/x-$name/libexec/aot-train.sh" >/dev/null
  cmds+=(
    "setup-$name=$(j "$work/x-$name/bin/strata-setup" --ctx 32768 "${common[@]}")"
    "setup-picocli-$name=$(j "$work/x-$name/bin/strata-setup" --ctx=32768 "${common[@]}")"
  )
  [ -n "${BENCH_NO_LAUNCH:-}" ] || cmds+=(
    "launch-$name=$(j "$work/x-$name/bin/strata-launch" --dry-run --config "$work/config.yaml")"
    "launch-picocli-$name=$(j "$work/x-$name/bin/strata-launch" --dry-run --config="$work/config.yaml")"
  )
done

load_before=$(uptime)
python3 "$here/timing.py" "$rounds" "$out" "${cmds[@]}" >"$work/medians.tsv"
load_after=$(uptime)
for f in "$out"/stdout-*.txt; do sed -i.bak "s|$work|\$WORK|g" "$f" && rm -f "$f.bak"; done

med() { awk -F'\t' -v n="$1" -v c="${2:-2}" '$1 == n { print $c }' "$work/medians.tsv"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
pyw=$(med python)
pyc=$(med python 4)
jvm=$(med jvm)
{
  echo "# Start-up: strata-setup --print and strata-launch --dry-run — $(date -u +%F)"
  echo
  echo "- Command: \`bench/startup/run.sh $rounds\` ($rounds alternating rounds after one warm-up round; raw.csv has every run)"
  echo "- Machine: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs, $(uname -sm); $("$jdk/bin/java" -version 2>&1 | head -1); $("$py" --version) ($py)"
  echo "- Date: $(date -u +%FT%TZ)"
  echo "- uptime before: $load_before"
  echo "- uptime after:  $load_after"
  echo "- Distribution: the build with the original $picocli (no class file edited), AOT caches trained by its libexec/aot-train.sh"
  [ -z "${BENCH_EXTRA:-}" ] || echo "- Other distributions (BENCH_EXTRA, as built, caches trained again): ${BENCH_EXTRA//$HOME/\~}"
  echo "- Model: the demo model (4 shards), host JSON templates/hosts/m4-pro-48.json, --ctx 32768 --experts stream"
  echo
  echo "| command | median wall s | min wall s | median CPU s | vs python (wall) | vs bare JVM (wall) | vs python (CPU) |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  while IFS=$'\t' read -r name m lo cpu; do
    echo "| $name | $m | $lo | $cpu | $(ratio "$m" "$pyw")× | $(ratio "$m" "$jvm")× | $(ratio "$cpu" "$pyc")× |"
  done <"$work/medians.tsv"
  echo
  echo "Target (issue 17): setup ≤ 1.0× python, ceiling 1.2×. Measured: setup $(ratio "$(med setup)" "$pyw")× (wall)."
  echo
  bench_ratios "$out/raw.csv"
} >"$out/README.md"
cat "$out/README.md"
