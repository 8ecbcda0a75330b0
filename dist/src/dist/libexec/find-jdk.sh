# Sourced by ./strata and by the distribution's bin/ scripts: find a JDK 25+ without starting a JVM.
# Order: $JAVA_HOME when it is 25+, a cached answer, a JDK under /usr/lib/jvm, /usr/libexec/java_home (macOS).
# Defines strata_find_jdk [cache-file]; prints the JDK home or returns 1.

# Shell builtins only (no sed, no cat): every command start runs this, and each fork costs a millisecond
# or more on a loaded machine.
strata_jdk_ok() {
  _h=$1
  [ -x "$_h/bin/java" ] && [ -f "$_h/release" ] || return 1
  _v=
  while IFS= read -r _l || [ -n "$_l" ]; do
    case $_l in
      JAVA_VERSION=*) _v=${_l#JAVA_VERSION=\"}; _v=${_v%%[!0-9]*}; break ;;
    esac
  done <"$_h/release"
  [ -n "$_v" ] && [ "$_v" -ge 25 ]
}

strata_find_jdk() {
  _cache=${1:-}
  if [ -n "${JAVA_HOME:-}" ] && strata_jdk_ok "$JAVA_HOME"; then printf '%s\n' "$JAVA_HOME"; return 0; fi
  if [ -n "$_cache" ] && [ -f "$_cache" ]; then
    IFS= read -r _c <"$_cache" || true
    if strata_jdk_ok "$_c"; then printf '%s\n' "$_c"; return 0; fi
  fi
  for _d in /usr/lib/jvm/*; do
    if strata_jdk_ok "$_d"; then printf '%s\n' "$_d"; return 0; fi
  done
  if [ -x /usr/libexec/java_home ]; then
    _d=$(/usr/libexec/java_home -v 25+ 2>/dev/null || true)
    if [ -n "$_d" ] && strata_jdk_ok "$_d"; then printf '%s\n' "$_d"; return 0; fi
  fi
  return 1
}

STRATA_NO_JDK_MESSAGE='no JDK 25 found: set JAVA_HOME to a JDK 25 or newer (looked at $JAVA_HOME, /usr/lib/jvm/*, /usr/libexec/java_home)'
