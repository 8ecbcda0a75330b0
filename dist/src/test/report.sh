# Sourced by dist-smoke.sh and newcomer.sh: counts their checks and writes the Surefire-style report
# ./strata test reads. The sourcing script sets $suite (the report's name) before it sources this.
passed=0 failed=0 skipped=0 cases=''
record() { # status name [detail]
  local esc
  esc=$(printf '%s' "$2" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/"/\&quot;/g')
  case $1 in
    pass) passed=$((passed + 1)); printf '  ok    %s\n' "$2"
          cases+="<testcase classname=\"$suite\" name=\"$esc\"/>" ;;
    fail) failed=$((failed + 1)); printf '  FAIL  %s\n%s\n' "$2" "${3:-}" | sed '3,$s/^/        /'
          cases+="<testcase classname=\"$suite\" name=\"$esc\"><failure message=\"see build log\"/></testcase>" ;;
    skip) skipped=$((skipped + 1)); printf '  skip  %s (%s)\n' "$2" "${3:-}"
          cases+="<testcase classname=\"$suite\" name=\"$esc\"><skipped/></testcase>" ;;
  esac
}
expect() { # name condition-result detail
  if [ "$2" = 0 ]; then record pass "$1"; else record fail "$1" "$3"; fi
}
report() { # REPORT_DIR (empty: none): writes REPORT_DIR/TEST-$suite.xml with the counts and cases
  [ -n "$1" ] || return 0
  mkdir -p "$1"
  printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="%s" tests="%d" failures="%d" errors="0" skipped="%d">%s</testsuite>\n' \
    "$suite" "$((passed + failed + skipped))" "$failed" "$skipped" "$cases" >"$1/TEST-$suite.xml"
}
