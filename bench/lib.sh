# bench/lib.sh — the start every bench/*/run.sh shares; sourced first thing:
#   . "$(dirname "$0")/../lib.sh"
# Sets strict mode, here (the script's folder) and root (the repository). bench_dist finds the built
# distribution and its JDK.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

# bench_results TOPIC: the default results folder, bench/results/<today>-TOPIC.
bench_results() {
  echo "$root/bench/results/$(date +%F)-$1"
}

# bench_dist: sets dist (the built distribution, dist/target/strata-0.1.0) and jdk (the JDK 25 its
# launchers find); exits 2 with the remedy when either is missing.
bench_dist() {
  dist="$root/dist/target/strata-0.1.0"
  [ -x "$dist/bin/strata-setup" ] || { echo "run.sh: no distribution at $dist: run ./strata build first" >&2; exit 2; }
  # shellcheck source=/dev/null
  . "$dist/libexec/find-jdk.sh"
  jdk=$(strata_find_jdk "$root/dist/target/.strata-java-home") || { echo "run.sh: $STRATA_NO_JDK_MESSAGE" >&2; exit 2; }
}

# bench_begin TOPIC DEFAULT_ROUNDS [ROUNDS] [OUTDIR]: the start of a run.sh taking [rounds] [outdir]:
# sets rounds, out (made; default bench/results/<today>-TOPIC), dist and jdk (bench_dist) and work (a
# temporary folder removed on exit).
bench_begin() {
  rounds="${3:-$2}"
  out="${4:-$(bench_results "$1")}"
  bench_dist
  mkdir -p "$out"
  work=$(mktemp -d "${TMPDIR:-/tmp}/strata-$1.XXXXXX")
  trap 'rm -rf "$work"' EXIT
}

# bench_ratios RAW_CSV: bench/startup/ratios.py's per-round ratio table, with its heading.
bench_ratios() {
  echo "Medians of per-round ratios (bench/startup/ratios.py raw.csv):"
  echo
  python3 "$root/bench/startup/ratios.py" "$1"
}
