#!/usr/bin/env bash
# A newcomer's first hour, scripted (issue 18): a fresh `git clone` of this repository, the README's two
# commands, the wizard in a real terminal (tmux) with one `back` and one answer changed in the summary,
# `--print` redirected right after a source change (the rebuild must not reach the YAML), and the
# installed distribution used from another folder (setup, then launch).
#
#   newcomer.sh SOURCE_ROOT VERSION [REPORT_DIR [MAVEN_REPO]]
#
# Run by the dist module in `verify`, after dist-smoke.sh (skipped with -DskipTests or
# -Dstrata.newcomer.skip). To stay fast it reuses the build: the clone gets copies of the tree's
# target/ folders (newer than its sources, so nothing is stale; the absolute paths in Maven's and
# make's incremental-build files moved to the clone), and only the source change of step 4 makes it
# build, incrementally, through ./strata as a user's would. `./strata test` in the clone runs one
# module (kernels): the whole suite is the run this script is part of, and .ci/run's on a fresh clone.
# Commands that take 2 s or more print their time (where the minutes go).
# STRATA_NEWCOMER_KEEP=1 keeps the scratch folder (the clone, its build.log) for a look afterwards.
# STRATA_NEWCOMER_COLD=1: no reuse, the clone builds from nothing (minutes; for a release check).
# The clone holds HEAD plus the tracked files' uncommitted changes (git stash create).
# Ends with "newcomer: N passed, M failed, K skipped"; exits 1 when anything failed.
set -u
here=$(cd "$(dirname "$0")" && pwd -P)

root=$(cd "${1:?usage: newcomer.sh SOURCE_ROOT VERSION [REPORT_DIR [MAVEN_REPO]]}" && pwd -P)
version=${2:?version}
reports=${3:-}
m2=${4:-}

cold=${STRATA_NEWCOMER_COLD:-0} keep=${STRATA_NEWCOMER_KEEP:-}
# the engine would be told about STRATA_* variables of the environment (a launch warns): not ours
unset STRATA_NEWCOMER_COLD STRATA_NEWCOMER_KEEP
tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-newcomer.XXXXXX")
sock="strata-newcomer-$$"
cleanup() {
  tmux -L "$sock" kill-server >/dev/null 2>&1
  [ -n "$keep" ] || rm -rf "$tmp"
}
trap cleanup EXIT

suite=newcomer
. "$here/report.sh"
step() { printf '  -- %s (at %ss)\n' "$1" "$SECONDS"; }
run() { # cmd... : stdout, stderr, exit code into $out $err $rc (files $tmp/out $tmp/err)
  local t0=$SECONDS
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  [ $((SECONDS - t0)) -lt 2 ] || printf '        (%ss: %s)\n' "$((SECONDS - t0))" "$*" | cut -c1-140
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}
what() { printf 'rc=%s\nstdout: %s\nstderr: %s' "$rc" "$(printf '%s' "$out" | tail -n 8)" \
  "$(printf '%s' "$err" | tail -n 8)"; }
finish() {
  printf '\nnewcomer: %d passed, %d failed, %d skipped (%ss)\n' "$passed" "$failed" "$skipped" "$SECONDS"
  report "$reports"
  [ "$failed" = 0 ]
  exit $?
}

# A newcomer's environment: a home of their own, no config, the machine's PATH and Maven repository.
home=$tmp/home
mkdir -p "$home" "$tmp/t"
export HOME=$home TMPDIR=$tmp/t
unset STRATA_CONFIG XDG_CONFIG_HOME XDG_CACHE_HOME STRATA_JAVA_OPTS JDK_JAVA_OPTIONS
[ -n "$m2" ] && export MAVEN_OPTS="${MAVEN_OPTS:-} -Dmaven.repo.local=$m2"

echo "newcomer: a fresh clone of $root in $tmp"

# --- 1. a fresh clone ---
step "1. a fresh clone"
clone=$tmp/strata
rev=$(git -C "$root" stash create 2>/dev/null)
run git clone -q "$root" "$clone"
if [ $rc = 0 ] && [ -n "$rev" ]; then
  run git -C "$clone" -c advice.detachedHead=false checkout -q "$rev"
fi
expect "git clone of the repository" $rc "$(what)"
[ $rc = 0 ] || finish
cd "$clone" || finish

if [ "$cold" != 1 ]; then
  # the build's outputs, copied (new times: newer than the clone's sources, so nothing is stale)
  for t in "$root"/*/target; do
    m=$(basename "$(dirname "$t")")
    [ -d "$clone/$m" ] && cp -R "$t" "$clone/$m/target"
  done
  [ -d "$root/tests/support/target" ] && cp -R "$root/tests/support/target" "$clone/tests/support/target"
  # relocated: Maven's incremental-build lists and make's dependency files name the sources by
  # absolute path; left as they are, every module would see "added or removed" sources and compile
  # again
  find "$clone" -path '*/target/*' -type f \( -name '*.lst' -o -name '*.d' \) -print \
    | while IFS= read -r f; do
        sed "s|$root/|$clone/|g" "$f" >"$f.new" && mv "$f.new" "$f"
      done
  rm -f dist/target/strata-"$version"/lib/*.aot  # an AOT cache is bound to the jars' paths
  rm -rf dist/target/surefire-reports
  # The clone's builds leave the AOT caches out (-Dstrata.aot.skip, through Maven's per-project
  # .mvn/maven.config): training them is most of step 4's rebuild, the outer build has trained them,
  # and step 5 installs the outer build's distribution. The rebuild still goes through ./strata and
  # Maven as a user's does: everything Maven prints is routed the same way.
  printf '%s\n' '-Dstrata.aot.skip=true' >.mvn/maven.config
fi

run ./strata --version
[ $rc = 0 ] && [ "$out" = "strata $version" ] && [ -z "$err" ]
expect "./strata --version says 'strata $version' (no JDK or build needed)" $? "$(what)"
run ./strata help
[ $rc = 0 ] && printf '%s\n' "$out" | grep -q './strata demo' && printf '%s\n' "$out" | grep -q 'docs/README.md'
expect "./strata help lists the commands and points at the docs" $? "$(what)"

# --- 2. the README's two commands ---
step "2. the README's two commands"
readme_cmds=$(awk '/^```sh/{b=1;next} /^```/{b=0} b' README.md | sed 's/[[:space:]]*#.*$//' | sed '/^$/d')
[ "$readme_cmds" = "$(printf './strata demo\n./strata test')" ]
expect "README's quick start is ./strata demo and ./strata test" $? "$readme_cmds"

# stdout and stderr into one, as a terminal shows them: the prompt must read whole with its
# continuation, not be cut from it by the plan and the engine's lines (standard error)
prompt='The Linux kernel'
run sh -c 'exec ./strata demo 2>&1'
demo_text=$(printf '%s\n' "$out" | sed -n "/^$prompt/,/^generate: /p" | sed '$d')
[ $rc = 0 ] && printf '%s\n' "$out" | grep -Eq '^generate: prompt=[0-9]+ tokens .* generated=48 tokens ' \
  && printf '%s\n' "$out" | grep -q '^strata demo: done' \
  && [ "${#demo_text}" -gt $((${#prompt} + 20)) ] && ! printf '%s\n' "$demo_text" | grep -q '^strata-launch:\|^memory plan:\|^kv: '
expect "./strata demo: the demo model, a config, strata-ref generating from '$prompt' (text, a generate: line)" $? \
  "$(what)"
again=$(printf '%s\n' "$out" | sed -n 's/^strata demo: done\. Run it again with: //p')
case $again in
  ./strata\ launch\ --config\ *)
    run sh -c "$again"
    # greedy: the same continuation as the demo's (the launch prints the text only, the prompt not)
    [ $rc = 0 ] && printf '%s\n' "$err" | grep -q '^generate: prompt=' \
      && [ "$prompt$out" = "$demo_text" ]
    expect "the demo's 'run it again' command works in a checkout and makes the same text: $again" $? \
      "$(what)
demo's text: $demo_text" ;;
  *) record fail "the demo prints a command that works in a checkout" "printed: '$again'" ;;
esac
democfg=$home/.cache/strata/demo/engine.yaml
if [ -f "$democfg" ]; then
  printf '# my note\n' >>"$democfg"
  run ./strata demo
  [ $rc = 0 ] && grep -q '^# my note' "$democfg" && printf '%s\n' "$out" | grep -q 'edited by hand, so kept'
  expect "a hand-edited demo config is kept (and said so), not replaced" $? "$(what)"
else
  record fail "the demo config is at ~/.cache/strata/demo/engine.yaml" "missing: $democfg"
fi

# one module (the KV kernels: Java tests and the C++ parity run) with what it needs: the whole suite is
# the run this script is part of
run ./strata test -o -pl kernels -am -Dspotless.check.skip=true
[ $rc = 0 ] && printf '%s\n' "$out" | grep -Eq '^strata test: [1-9][0-9]* passed, 0 failed'
expect "./strata test -pl kernels -am ends with its summary line" $? "$(what)"

# --- 3. the wizard in a real terminal: one back, one answer changed in the summary ---
step "3. the wizard in tmux"
wait_for() { # text [seconds]: until the pane shows it
  local i=0 n=$((${2:-60} * 5))
  while [ $i -lt $n ]; do
    tmux -L "$sock" capture-pane -p -J -t nc -S -200 2>/dev/null | grep -qF -- "$1" && return 0
    sleep 0.2
    i=$((i + 1))
  done
  return 1
}
keys() { tmux -L "$sock" send-keys -t nc "$@"; }
# the model the wizard is shown: SETUP.md's demo model (the seed's geometry, a MoE, so the wizard asks
# about the experts too; strata-ref plans it but does not compute qwen3next), in a folder of the user's
model=$home/models/seed
run ./strata setup demo-model --out "$model"
[ $rc = 0 ] && [ -f "$model/strata-demo-00001-of-00004.gguf" ]
expect "./strata setup demo-model --out ~/models/seed writes the seed-geometry demo model" $? "$(what)"
if command -v tmux >/dev/null 2>&1; then
  wiz=$tmp/wizard.yaml
  tmux -L "$sock" new-session -d -s nc -x 100 -y 50 \
    "cd '$model' && '$clone/strata' setup --out '$wiz'; echo \"EXIT=\$?\"; sleep 600"
  steps_ok=0
  {
    wait_for 'Model (first shard' 120 && keys Enter \
      && wait_for 'Context [' && keys '4' Enter \
      && wait_for 'Experts [' && keys '<' Enter \
      && wait_for 'Context [32768]' && keys '5' Enter \
      && wait_for 'at context 65,536' && keys 'stream' Enter \
      && wait_for 'KV format [' && keys 'q4_0' Enter \
      && wait_for 'Engine library (Tab completes)' && keys Enter \
      && wait_for 'Summary' && keys '2' Enter \
      && wait_for 'Context [65536]' && keys '8192' Enter \
      && wait_for '2) context  8,192 tokens' && keys Enter \
      && wait_for 'EXIT='
  } || steps_ok=1
  screen=$(tmux -L "$sock" capture-pane -p -J -t nc -S -400)
  [ $steps_ok = 0 ] && printf '%s\n' "$screen" | grep -q 'EXIT=0' && [ -f "$wiz" ] \
    && grep -q "^- '8192'\$\|^  - '8192'\$" "$wiz" && grep -q 'q4_0' "$wiz" && grep -q "stream" "$wiz"
  expect "the wizard in tmux: back at the experts, 8192 set in the summary, the answers after it kept" $? \
    "$(printf '%s\n' "$screen" | tail -n 25)"
  tmux -L "$sock" kill-server >/dev/null 2>&1
  # the plan on a 60-column terminal: wrapped to it (the width read from the terminal itself, no
  # COLUMNS); -J joins what tmux itself had to wrap, so a line too long shows whole. A server of its
  # own: a new session on the socket just killed can meet the old server still exiting ("server
  # exited unexpectedly", seen on a fresh clone at e434a50)
  sock="strata-newcomer-$$-60"
  tmux -L "$sock" new-session -d -s nc -x 60 -y 50 \
    "env -u COLUMNS '$clone/strata' launch --config '$wiz' --plan --explain 2>'$tmp/plan60.err'; echo \"EXIT=\$?\"; sleep 600"
  wait_for 'EXIT=' 60
  screen=$(tmux -L "$sock" capture-pane -p -J -t nc -S -400)
  printf '%s\n' "$screen" | grep -q 'EXIT=0' && printf '%s\n' "$screen" | grep -q 'page-cache headroom' \
    && [ "$(printf '%s\n' "$screen" | awk '{ sub(/ +$/, "") } length > 60' | wc -l)" -eq 0 ]
  expect "strata-launch --plan --explain on a 60-column terminal: every line wrapped to 60" $? \
    "$(printf '%s\n' "$screen" | awk '{ sub(/ +$/, "") } length > 60' | head -n 5)"
  tmux -L "$sock" kill-server >/dev/null 2>&1
else
  record skip "the wizard in a real terminal" "tmux not installed"
fi

# --- 4. --print redirected right after a source change: the rebuild's messages stay off stdout ---
step "4. --print after a source change (rebuilds)"
touch setup/src/main/java/dev/strata/setup/SetupMain.java
model_first=$model/strata-demo-00001-of-00004.gguf
./strata setup --model "$model_first" --ctx 8192 --experts stream --print >"$tmp/print.yaml" 2>"$tmp/print.err"
rc=$?
out=$(head -n 5 "$tmp/print.yaml") err=$(cat "$tmp/print.err")
[ $rc = 0 ] && grep -q '^strata: building' "$tmp/print.err" && grep -q '^strata: module [0-9]* of [0-9]*' "$tmp/print.err" \
  && ! grep -q '^\[INFO\]\|^Retarget\|^aot-train\|^man pages' "$tmp/print.yaml" \
  && [ "$(head -c 7 "$tmp/print.yaml")" = "schema:" ]
expect "after a source change: build progress on stderr (one line per stage), stdout only the YAML" $? "$(what)"
run ./strata launch --config "$tmp/print.yaml" --plan
expect "that --print output is a valid config (strata-launch --plan reads it)" $rc "$(what)"
run ./strata setup --model "$model_first" --ctx 8192 --experts stream --print
# no build progress; setup's one line on the seed geometry (strata-ref refuses qwen3next) is its own
[ $rc = 0 ] && ! grep -q '^strata: ' <<<"$err" \
  && { [ -z "$err" ] || { [ "$(grep -c '' <<<"$err")" = 1 ] && grep -q '^strata-setup: the launch will be refused: ' <<<"$err"; }; }
expect "nothing to build: the next command says no more than setup's own line on stderr" $? "$(what)"

# --- 5. the installed distribution, from another folder: setup, then launch ---
step "5. the installed copy, elsewhere"
mkdir -p "$home/opt" "$home/bin" "$tmp/elsewhere"
# the distribution as built (with its AOT caches): the outer build's, or the clone's when it built cold
installed=$root/dist/target/strata-$version
[ "$cold" = 1 ] && installed=$clone/dist/target/strata-$version
cp -R "$installed" "$home/opt/strata"
ln -s "$home/opt/strata/bin/strata-setup" "$home/bin/strata-setup"
ln -s "$home/opt/strata/bin/strata-launch" "$home/bin/strata-launch"
cd "$tmp/elsewhere" || finish
PATH=$home/bin:$PATH
run strata-setup demo-model --out demo
expect "installed strata-setup demo-model from another folder" $rc "$(what)"
run strata-setup --model demo --yes --out engine.yaml
[ $rc = 0 ] && grep -q 'lib/native/libstrata_ref' engine.yaml
expect "installed strata-setup finds strata-ref in the distribution's lib/native/" $? "$(what)"
# the engine's own check on the seed geometry: refused in one line that names the architecture
run strata-launch --config engine.yaml --dry-run
[ $rc = 3 ] && printf '%s\n' "$err" | grep -q 'architecture qwen3next is not one strata-ref computes' \
  && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
expect "installed strata-launch --dry-run: strata-ref's check refuses the seed geometry in one line (exit 3)" $? \
  "$(what)"
# INSTALL.md's real model: the distribution's templates/demo-model/, which strata-ref computes
run strata-setup --model "$home/opt/strata/templates/demo-model/tiny-qwen3-q4_k_m.gguf" --yes --out tiny.yaml
expect "installed strata-setup writes a config for the distribution's real demo model" $rc "$(what)"
run strata-launch --config tiny.yaml --dry-run
[ $rc = 0 ] && printf '%s\n' "$out" | grep -q "verdict from the engine's own check"
expect "installed strata-launch --dry-run loads that strata-ref and its check accepts the config" $? "$(what)"
# A launch from the installed copy: the demo (docs/INSTALL.md's own generation with tiny.yaml is run
# by dist-smoke.sh from the outer build's copy).
run strata-launch demo --dir demo-run
[ $rc = 0 ] && printf '%s\n' "$err" | grep -q '^generate: prompt=' \
  && printf '%s\n' "$out" | grep -q '^strata demo: done' \
  && grep -q 'lib/native/libstrata_ref' demo-run/engine.yaml
expect "installed strata-launch demo: strata-ref from lib/native/ generates (a generate: line)" $? "$(what)"
run strata-launch --config engine.yaml --plan --explain
[ $rc = 0 ] && printf '%s\n' "$out" | grep -q '^plan rows:' && printf '%s\n' "$out" | grep -q 'page-cache headroom'
expect "strata-launch --plan --explain explains the rows" $? "$(what)"
[ -f "$home/opt/strata/docs/SETUP.md" ] && [ -f "$home/opt/strata/man/man1/strata-setup.1" ]
expect "the installed copy has the docs and man pages its help points to" $? "$(ls "$home/opt/strata")"

finish
