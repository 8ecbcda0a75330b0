#!/usr/bin/env bash
# bench/startup/jdk-floor.sh — what the JDK itself costs a short command on this machine, beside the
# Python baseline, in one alternating run (bench/startup/timing.py):
#   jvm          java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -version   (the floor bench/startup/run.sh uses)
#   jvm-main     the same flags running an empty main (class path, launcher helper, main's lookup)
#   jvm-bigdec   the same main touching java.math.BigDecimal once (its static initializer)
#   python       the interpreter itself (sys.executable) running `pass`
#
#   bench/startup/jdk-floor.sh [rounds] [outdir]      (default 15 rounds, bench/results/<today>-jdk-floor)
#
# Why BigDecimal: JDK 25's BigDecimal.<clinit> builds big-integer tables (FIVE_TO_2_TO by repeated
# squaring, BIG_TEN_POWERS_TABLE) in interpreted code. jackson-core's ParserMinimalBase has BigDecimal
# constants, so every Jackson parse pays it once, and so does ByteSize (docs/PERFORMANCE.md §2).
. "$(dirname "$0")/../lib.sh"
bench_begin jdk-floor 15 "$@"
cat >"$work/Empty.java" <<'JAVA'
public class Empty { public static void main(String[] a) { System.out.println("ok"); } }
JAVA
cat >"$work/BigDec.java" <<'JAVA'
public class BigDec { public static void main(String[] a) { System.out.println(java.math.BigDecimal.ONE); } }
JAVA
"$jdk/bin/javac" -d "$work" "$work/Empty.java" "$work/BigDec.java"
py=$(python3 -c 'import sys; print(sys.executable)')
US=$'\x1f'
j() { local IFS="$US"; echo "$*"; }
flags=(-XX:+UseSerialGC -XX:TieredStopAtLevel=1)
load_before=$(uptime)
python3 "$here/timing.py" "$rounds" "$out" \
  "jvm=$(j "$jdk/bin/java" "${flags[@]}" -version)" \
  "jvm-main=$(j "$jdk/bin/java" "${flags[@]}" -cp "$work" Empty)" \
  "jvm-bigdec=$(j "$jdk/bin/java" "${flags[@]}" -cp "$work" BigDec)" \
  "python=$(j "$py" -c pass)" >"$work/medians.tsv"
load_after=$(uptime)
{
  echo "# The JDK's own start and BigDecimal's initializer — $(date -u +%F)"
  echo
  echo "- Command: \`bench/startup/jdk-floor.sh $rounds\` ($rounds alternating rounds after a warm-up; raw.csv has every run)"
  echo "- Machine: $(nproc) CPUs, $(uname -sm); $("$jdk/bin/java" -version 2>&1 | head -1); $("$py" --version)"
  echo "- uptime before: $load_before"
  echo "- uptime after:  $load_after"
  echo
  echo "| command | median wall s | min wall s | median CPU s |"
  echo "|---|---:|---:|---:|"
  while IFS=$'\t' read -r name m lo cpu; do echo "| $name | $m | $lo | $cpu |"; done <"$work/medians.tsv"
  echo
  bench_ratios "$out/raw.csv"
} >"$out/README.md"
cat "$out/README.md"
