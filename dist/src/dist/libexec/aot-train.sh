#!/bin/sh
# aot-train.sh — (re)creates the distribution's AOT caches (JDK 25, JEP 514) by running the real commands
# once each with -XX:AOTCacheOutput:
#   lib/strata-setup.aot   strata-setup --host-file templates/hosts/m4-pro-48.json --model <demo> --ctx 32768 --experts stream --print
#   lib/strata-launch.aot  strata-launch --dry-run --config <a config naming strata-ref, for this machine>
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
# The engine library named in setup's training config is a path that does not exist: setup takes that
# for a config made for another machine (no sha256 pinned). A real file that is not a library is refused
# by setup's library check (exit 3). The launch's config: below.
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
# The launch config. Off the Mac the distribution ships strata-ref (lib/native): a config for this
# machine that names it (its sha256 pinned) lets --dry-run walk every check a user's launch walks — the
# config's trust walk, the library's (sha256 of the open file, the FFM load), the model, the host, the
# plan, the engine's own strata_engine_check and the report — so the cache holds all of it
# (docs/PERFORMANCE.md §2). Where setup refuses that (the library's folder writable by others, a machine
# too small for the plan) and on a Mac (no engine shipped), the config names the absent library above,
# made for another Mac: the dry run then stops at the library check (exit 3), and the cache holds less.
# Either way the dry run is a simple command line, strata-launch's fast path (LaunchOptions): the cache holds
# no picocli class (Java 5 class files never go in), nor the JDK's reflection and annotation classes that
# picocli's model needs (--help, demo, --name=value, ...), which load from the JDK's own CDS archive
# or its modules.
ref=$home/lib/native/libstrata_ref.so
if [ "$(uname -s)" = Darwin ] || [ ! -f "$ref" ] || ! JAVA_HOME=$jdk "$home/bin/strata-setup" \
  --model "$model" --ctx 32768 --experts stream --backend cpu-reference --engine-lib "$ref" \
  --out "$work/config.yaml" >"$work/setup-config-ref.log" 2>&1; then
  run setup-config 0 "$home/bin/strata-setup" --host-file m4-pro-48 --model "$model" --ctx 32768 \
    --experts stream --backend "$backend" --engine-lib "$lib" --out "$work/config.yaml"
fi
JDK_JAVA_OPTIONS="-XX:AOTCacheOutput=\"$launch_aot\"" run launch-dry-run "0 3" \
  "$home/bin/strata-launch" --dry-run --config "$work/config.yaml"

for f in "$setup_aot" "$launch_aot"; do
  if [ -f "$f" ]; then
    printf 'aot-train: wrote %s (%s bytes)\n' "$f" "$(wc -c <"$f" | tr -d ' ')" >&2
  else
    printf 'aot-train: warning: %s was not written (this JDK could not create it); the commands run without it\n' "$f" >&2
  fi
done
