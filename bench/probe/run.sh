#!/usr/bin/env bash
# The host probe's cost: in-process (first call, then median of N warm calls) and per process
# (a fresh JVM that probes once, against a fresh JVM that does nothing).
# Usage: bench/probe/run.sh [RUNS]   (RUNS fresh JVMs of each kind, default 15)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
RUNS="${1:-15}"
JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
JAVA="$JAVA_HOME/bin/java"
cd "$ROOT"
mvn -B -q -o -Dstyle.color=never -pl setup -am test-compile >/dev/null
M2="${M2_REPO:-$HOME/.m2/repository}/com/fasterxml/jackson/core"
CP="metal/target/classes:metal/target/test-classes:engine/target/classes"
CP="$CP:$M2/jackson-core/2.20.1/jackson-core-2.20.1.jar:$M2/jackson-annotations/2.20/jackson-annotations-2.20.jar"
PICOCLI="${M2_REPO:-$HOME/.m2/repository}/info/picocli/picocli/4.7.7/picocli-4.7.7.jar"
SETUP_CP="setup/target/classes:cli/target/classes:$CP:$PICOCLI"
# The same JVM flags as ./strata uses.
FLAGS=(-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto --enable-native-access=ALL-UNNAMED)

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $("$JAVA" -version 2>&1 | head -1)"
"$JAVA" "${FLAGS[@]}" -cp "$CP" dev.strata.metal.ProbeBench 200 1000

median_ms() { # command... -> median wall time of RUNS runs, in ms
  local t=()
  for _ in $(seq "$RUNS"); do
    local s e
    s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N)
    t+=($(( (e - s) / 1000 )))
  done
  printf '%s\n' "${t[@]}" | sort -n | awk '{a[NR]=$1} END {m=a[int((NR+1)/2)]; printf "%.1f", m/1000}'
}
base=$(median_ms "$JAVA" "${FLAGS[@]}" -cp "$CP" dev.strata.metal.ProbeBench --baseline)
once=$(median_ms "$JAVA" "${FLAGS[@]}" -cp "$CP" dev.strata.metal.ProbeBench --once)
echo "fresh JVM, median of $RUNS: bare start ${base} ms; start + one probe ${once} ms; probe share $(awk -v a="$once" -v b="$base" 'BEGIN{printf "%.1f", a-b}') ms"
"$JAVA" "${FLAGS[@]}" -cp "$SETUP_CP" bench/probe/CliProbeCost.java 200
