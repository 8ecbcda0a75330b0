#!/bin/sh
# aot-train.sh — (re)creates the distribution's AOT caches (JDK 25, JEP 514) by running the real commands
# once each with -XX:AOTCacheOutput:
#   lib/strata-setup.aot   strata-setup --host-file templates/hosts/m4-pro-48.json --model <demo> --ctx 32768 --experts stream --print
#   lib/strata-launch.aot  strata-launch --dry-run --config <a config for this machine's backend>
# The bin/ scripts use a cache when it is there (-XX:AOTCache): classes come pre-parsed, pre-verified and
# pre-linked, which is most of a short command's start-up. A cache holds one training run, hence one per
# command (`strata-setup probe` and the wizard use the setup cache for what they share with --print).
#
#   libexec/aot-train.sh [--if-stale]      (dist/pom.xml runs it at package time, after the jars are copied)
#
# A cache is only valid for the same jars (paths, sizes, times), the same JDK and the same JVM flags, so
# training goes through the bin/ scripts themselves. --if-stale: do nothing when both caches are newer
# than every jar, the bin/ scripts and the JDK's release file. Exit 0 also when the JDK cannot write a
# cache (a warning: the commands work without one); 1 when a command fails in training (a real bug).
set -eu
self=$0
while [ -h "$self" ]; do
  link=$(readlink "$self")
  case $link in /*) self=$link ;; *) case $self in */*) self=${self%/*}/$link ;; *) self=$link ;; esac ;; esac
done
case $self in */*) here=${self%/*} ;; *) here=. ;; esac  # dirname without a fork
home=$(cd "$here/.." && pwd -P)
. "$home/libexec/find-jdk.sh"
jdk=$(strata_find_jdk "$home/.jdk-home") || { printf 'aot-train: %s\n' "$STRATA_NO_JDK_MESSAGE" >&2; exit 2; }
setup_aot=$home/lib/strata-setup.aot
launch_aot=$home/lib/strata-launch.aot

# 0 when the cache $1 is missing or older than a jar, a bin/ script or the JDK
stale() {
  [ -f "$1" ] || return 0
  [ -n "$(find "$home/lib" "$home/bin" "$jdk/release" -newer "$1" \( -name '*.jar' -o -path "$home/bin/*" -o -name release \) -type f -print 2>/dev/null | head -n 1)" ]
}
# Progress and results go to stderr (a build's stdout may be a user's redirected output); nothing at all
# when there is nothing to do.
if [ "${1:-}" = --if-stale ] && ! stale "$setup_aot" && ! stale "$launch_aot"; then
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/strata-aot.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
rm -f "$setup_aot" "$launch_aot"  # the bin scripts must not pass -XX:AOTCache while training

# JAVA_HOME pins the JDK the bin scripts pick to the one found here (the cache is per JDK).
run() { # log-name allowed-exit-codes command...
  _log=$work/$1.log _ok=$2
  shift 2
  _rc=0
  JAVA_HOME=$jdk "$@" >"$_log" 2>&1 || _rc=$?
  case " $_ok " in *" $_rc "*) return 0 ;; esac
  printf 'aot-train: %s exited %s:\n' "$*" "$_rc" >&2
  cat "$_log" >&2
  exit 1
}

run demo-model 0 "$home/bin/strata-setup" demo-model --out "$work/model"
model=$work/model/strata-demo-00001-of-00004.gguf
# The engine library named in the training configs is a path that does not exist: setup takes that for a
# config made for another machine (no sha256 pinned) and the launch's dry-run refuses it with exit 3 after
# its checks. A real file that is not a library is refused by setup's library check (exit 3).
case $(uname -s) in
  Darwin) backend=metal lib=$work/libstrata.dylib ;;
  *) backend=cpu-reference lib=$work/libstrata_ref.so ;;
esac

# JDK_JAVA_OPTIONS (read by the java launcher, quotes allowed) rather than STRATA_JAVA_OPTS, which the
# bin scripts split on spaces: the distribution may live under a path with one.
# The host as a file (the common case): its JSON is parsed from bytes, a profile name from text, and
# each way loads a few parser classes of its own; the file's are the ones the cache then holds.
JDK_JAVA_OPTIONS="-XX:AOTCacheOutput=\"$setup_aot\"" run setup-print 0 \
  "$home/bin/strata-setup" --host-file "$home/templates/hosts/m4-pro-48.json" --model "$model" --ctx 32768 --experts stream \
  --engine-lib "$work/libstrata.dylib" --print
# The launch config: this machine's backend, so that --dry-run walks through every check (on a machine
# too small for the plan it refuses with exit 3 after the plan: still a full training run).
run setup-config 0 "$home/bin/strata-setup" --host-file m4-pro-48 --model "$model" --ctx 32768 \
  --experts stream --backend "$backend" --engine-lib "$lib" --out "$work/config.yaml"
JDK_JAVA_OPTIONS="-XX:AOTCacheOutput=\"$launch_aot\"" run launch-dry-run "0 3" \
  "$home/bin/strata-launch" --dry-run --config "$work/config.yaml"

for f in "$setup_aot" "$launch_aot"; do
  if [ -f "$f" ]; then
    printf 'aot-train: wrote %s (%s bytes)\n' "$f" "$(wc -c <"$f" | tr -d ' ')" >&2
  else
    printf 'aot-train: warning: %s was not written (this JDK could not create it); the commands run without it\n' "$f" >&2
  fi
done
