#!/usr/bin/env bash
# The built distribution, end to end, as a user runs it: from another folder, through symlinks,
# copied to a path with a space; --help/--version/suggestions/completion/man pages/--json/NO_COLOR.
# Run by the dist module in `verify` (skipped with -DskipTests):
#   dist-smoke.sh DIST_DIR VERSION [REPORT_DIR [SOURCE_ROOT]]
# With SOURCE_ROOT it also runs every `sh` block of docs/INSTALL.md and docs/SETUP.md, command by command,
# as a user would (scratch HOME, from the source tree: INSTALL.md starts there), and the distribution's
# docs/ must hold the pages its help points to.
# Closes with "dist smoke: N passed, M failed, K skipped"; exits 1 when anything failed. With
# REPORT_DIR it also writes a Surefire-style TEST-dist-smoke.xml so ./strata test counts these.
set -u
here=$(cd "$(dirname "$0")" && pwd -P)

dist=$(cd "${1:?usage: dist-smoke.sh DIST_DIR VERSION [REPORT_DIR]}" && pwd -P)
version=${2:?version}
reports=${3:-}
root=${4:+$(cd "$4" && pwd -P)}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-dist-smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" # every command below runs from a folder that has nothing to do with the build

suite=dist-smoke
. "$here/report.sh"

# run NAME -- CMD...: captures stdout, stderr and the exit code into $out $err $rc
run() {
  "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}
check() { # name cmd... : pass when the command succeeds
  local name=$1
  shift
  "$@" >/dev/null 2>&1
  expect "$name" $? "failed: $*"
}
what() { printf 'rc=%s\nstdout: %s\nstderr: %s' "$rc" "$(printf '%s' "$out" | head -n 5)" \
  "$(printf '%s' "$err" | head -n 5)"; }

echo "dist smoke: $dist (from $tmp)"
setup=$dist/bin/strata-setup
launch=$dist/bin/strata-launch

# --- layout ---
for d in bin lib libexec templates man/man1; do
  check "layout: $d/ exists" test -d "$dist/$d"
done
check "layout: bin/strata-setup is executable" test -x "$setup"
check "layout: bin/strata-launch is executable" test -x "$launch"

# --- --version from the build, from another folder, through symlinks, from a copy ---
expect_version() { # name command cmd...: cmd --version exits 0 and prints "command $version" first
  local name=$1 command=$2
  shift 2
  run "$@" --version
  [ $rc = 0 ] && [ "$(printf '%s\n' "$out" | head -n 1)" = "$command $version" ]
  expect "$name" $? "$(what)"
}
expect_version "strata-setup --version prints 'strata-setup $version' from another folder" \
  strata-setup "$setup"
expect_version "strata-launch --version prints 'strata-launch $version'" strata-launch "$launch"

mkdir -p "$tmp/bin" "$tmp/links"
ln -s "$setup" "$tmp/bin/strata-setup"               # absolute link, as brew/stow make them
ln -s ../bin/strata-setup "$tmp/links/strata-setup"  # relative link to a link
expect_version "bin/strata-setup through an absolute symlink" strata-setup "$tmp/bin/strata-setup"
expect_version "bin/strata-setup through a relative symlink to a symlink" \
  strata-setup "$tmp/links/strata-setup"
expect_version "strata-setup found on PATH through a symlink" \
  strata-setup env PATH="$tmp/bin:$PATH" strata-setup

mkdir -p "$tmp/Apps with space"
cp -R "$dist" "$tmp/Apps with space/strata"
expect_version "a copy of the distribution under a path with a space runs" \
  strata-launch "$tmp/Apps with space/strata/bin/strata-launch"

# --- help teaches, and documents --kv ---
run "$setup" --help
[ $rc = 0 ] && grep -q -- '--kv=FORMAT' "$tmp/out" && grep -q 'q4_0' "$tmp/out" \
  && grep -q '^Exit codes:' "$tmp/out" && grep -q '^Examples:' "$tmp/out"
expect "strata-setup --help: usage, --kv, exit codes, examples" $? "$(what)"
run "$launch" --help
[ $rc = 0 ] && grep -q -- '--kv' "$tmp/out" && grep -q '^Exit codes:' "$tmp/out" \
  && grep -q -- '--dry-run' "$tmp/out"
expect "strata-launch --help: usage, --kv, exit codes" $? "$(what)"

# --- suggestions for mistyped flags and subcommands: exit 2 ---
run "$setup" --ctz 8192
[ $rc = 2 ] && grep -q 'did you mean --ctx' "$tmp/err" && [ -z "$out" ]
expect "strata-setup --ctz 8192 exits 2 suggesting --ctx" $? "$(what)"
run "$launch" --dryrun
[ $rc = 2 ] && grep -q -- '--dry-run' "$tmp/err"
expect "strata-launch --dryrun exits 2 suggesting --dry-run" $? "$(what)"
run "$setup" prob
[ $rc = 2 ] && grep -q 'probe' "$tmp/err"
expect "strata-setup prob exits 2 suggesting probe" $? "$(what)"

# --- completion: valid bash that registers completions ---
for cmd in strata-setup strata-launch; do
  run "$dist/bin/$cmd" completion bash
  printf '%s\n' "$out" >"$tmp/$cmd.bash"
  [ $rc = 0 ] && bash -n "$tmp/$cmd.bash"
  expect "$cmd completion bash is valid bash (bash -n)" $? "$(what)"
  run bash -c "source '$tmp/$cmd.bash' && complete -p $cmd"
  [ $rc = 0 ] && printf '%s' "$out" | grep -q -- "-F .* $cmd\$"
  expect "$cmd completion bash registers 'complete -F … $cmd'" $? "$(what)"
  # what a user sees after 'strata-setup --k<TAB>' / 'strata-launch --dr<TAB>'
  case $cmd in strata-setup) word=--k want=--kv ;; *) word=--dr want=--dry-run ;; esac
  run bash -c "source '$tmp/$cmd.bash'
    COMP_WORDS=($cmd $word); COMP_CWORD=1; COMP_LINE='$cmd $word'; COMP_POINT=\${#COMP_LINE}
    f=\$(complete -p $cmd | sed -n 's/.*-F \([^ ]*\).*/\1/p'); \$f $cmd $word $cmd
    printf '%s\n' \"\${COMPREPLY[@]}\""
  [ $rc = 0 ] && printf '%s\n' "$out" | grep -qx -- "$want"
  expect "$cmd completion completes $word to $want" $? "$(what)"
  if command -v zsh >/dev/null 2>&1; then
    run "$dist/bin/$cmd" completion zsh
    printf '%s\n' "$out" >"$tmp/$cmd.zsh"
    zsh -n "$tmp/$cmd.zsh"
    expect "$cmd completion zsh parses (zsh -n)" $? "$(what)"
    # loaded the way a zsh user loads it (compinit, then the script, which brings bashcompinit):
    # it registers, and its function runs under zsh's bash emulation (ksharrays, as
    # bashcompinit's _bash_complete sets) offering the option; zsh itself filters by the prefix
    run zsh -f -c "autoload -U +X compinit && compinit -u -D
      source '$tmp/$cmd.zsh' || exit 1
      print -r -- \"registered: \$_comps[$cmd]\"
      setopt ksharrays
      COMP_WORDS=($cmd $word); COMP_CWORD=1; COMP_LINE='$cmd $word'; COMP_POINT=\${#COMP_LINE}
      _complete_$cmd $cmd $word $cmd
      print -l -- \"\${COMPREPLY[@]}\""
    [ $rc = 0 ] && printf '%s\n' "$out" | grep -q -- "^registered: _bash_complete -F _complete_$cmd" \
      && printf '%s\n' "$out" | grep -qx -- "$want"
    expect "$cmd completion zsh registers and offers $want for $word (zsh)" $? "$(what)"
  elif [ "${CI:-}" = true ]; then
    expect "$cmd completion zsh parses" 1 "zsh not installed on CI (.ci/run installs it)"
  else
    record skip "$cmd completion zsh parses" "zsh not installed"
  fi
done

# --- man pages: present, and they render ---
# Plain text from a formatter's overstrikes: col(1) where present (Linux, macOS), else GNU sed.
plain() { if command -v col >/dev/null 2>&1; then col -bx; else sed 's/.\x08//g'; fi; }
pages="strata-setup strata-setup-probe strata-setup-demo-model strata-setup-completion \
strata-launch strata-launch-completion"
for p in $pages; do
  f=$dist/man/man1/$p.1
  if [ ! -f "$f" ]; then record fail "man page $p.1 exists" "missing: $f"; continue; fi
  if command -v groff >/dev/null 2>&1; then
    warnings=$(groff -man -Tutf8 -ww -z "$f" 2>&1)
    text=$(groff -man -Tutf8 "$f" 2>/dev/null | plain)
    [ -z "$warnings" ] && printf '%s\n' "$text" | grep -q '^NAME' \
      && printf '%s\n' "$text" | grep -Eq "^ +${p} +- "
    expect "man page $p.1 renders with groff -man, no warnings" $? "$warnings"
  else
    grep -q '^\.TH ' "$f" && grep -q '^\.SH NAME' "$f" && grep -q '^\.SH SYNOPSIS' "$f"
    expect "man page $p.1 has .TH, NAME, SYNOPSIS (groff not installed)" $? "$(head -n 5 "$f")"
  fi
done
if command -v man >/dev/null 2>&1 && command -v groff >/dev/null 2>&1; then
  # a path with a slash is a file to man-db and to macOS's man alike (-l is man-db's)
  run env MANWIDTH=100 man "$dist/man/man1/strata-setup.1"
  [ $rc = 0 ] && printf '%s\n' "$out" | plain | grep -q -- '--kv=FORMAT'
  expect "man <dist>/man/man1/strata-setup.1 documents --kv" $? "$(what)"
  run env MANPATH="$dist/man" MANWIDTH=100 man strata-launch
  [ $rc = 0 ] && printf '%s\n' "$out" | plain | grep -q 'EXIT STATUS'
  expect "MANPATH=<dist>/man man strata-launch finds the page" $? "$(what)"
else
  record skip "man -l renders the pages" "man or groff not installed"
fi

# --- a config and its plan through the distribution: --json is valid JSON ---
json_ok() { # file
  if command -v python3 >/dev/null 2>&1; then python3 -m json.tool "$1" >/dev/null
  elif command -v jq >/dev/null 2>&1; then jq . "$1" >/dev/null
  else return 2; fi
}
run "$setup" probe --json --host-file m4-pro-48
printf '%s\n' "$out" >"$tmp/host.json"
json_ok "$tmp/host.json"
j=$?
if [ $j = 2 ]; then record skip "probe --json is JSON" "neither python3 nor jq"; else
  [ $rc = 0 ] && [ $j = 0 ] && grep -q '"k4": false' "$tmp/host.json"
  expect "strata-setup probe --json --host-file m4-pro-48 is JSON" $? "$(what)"
fi
run "$setup" demo-model --out "$tmp/model" --shards 2
expect "strata-setup demo-model writes a model" $rc "$(what)"
run "$setup" --model "$tmp/model" --host-file m4-pro-48 --engine-lib "$tmp/libstrata.dylib" \
  --ctx 32768 --experts stream --kv q4_0 --out "$tmp/engine.yaml" --yes
[ $rc = 0 ] && grep -q 'q4_0' "$tmp/engine.yaml"
expect "strata-setup writes a q4_0 config from another folder" $? "$(what)"
run "$launch" -c "$tmp/engine.yaml" --plan --json --host-file "$tmp/host.json"
printf '%s\n' "$out" >"$tmp/plan.json"
if json_ok "$tmp/plan.json"; then j=0; else j=$?; fi
if [ $j = 2 ]; then record skip "--plan --json is JSON" "neither python3 nor jq"; else
  [ $rc = 0 ] && [ $j = 0 ] && grep -q '"bytes": 227377152' "$tmp/plan.json"
  expect "strata-launch --plan --json: JSON, q4_0 KV at 32K = 227,377,152 B" $? "$(what)"
fi
run "$launch" -c "$tmp/engine.yaml" --dry-run --json --host-file "$tmp/host.json"
printf '%s\n' "$out" >"$tmp/dry.json"
if json_ok "$tmp/dry.json"; then j=0; else j=$?; fi
if [ $j = 2 ]; then record skip "--dry-run --json is JSON" "neither python3 nor jq"; else
  # the library does not exist here: a refusal, still one JSON document, exit 3
  [ $rc = 3 ] && [ $j = 0 ] && grep -q '"would_start" *: *false' "$tmp/dry.json"
  expect "strata-launch --dry-run --json: JSON refusal, exit 3" $? "$(what)"
fi

# --- colours: on a terminal only, never with NO_COLOR ---
esc=$(printf '\033')
run "$setup" probe --host-file m4-pro-48
[ $rc = 0 ] && ! grep -q "$esc" "$tmp/out"
expect "no colour without a terminal" $? "$(what)"
pty() { # run a command on a pseudo-terminal: util-linux or BSD script(1)
  if script --version 2>/dev/null | grep -q util-linux; then
    script -qec "$*" /dev/null
  else
    script -q /dev/null "$@"
  fi
}
if command -v script >/dev/null 2>&1 && pty true >/dev/null 2>&1; then
  run pty env -u NO_COLOR TERM=xterm-256color "$setup" probe --host-file m4-pro-48
  [ $rc = 0 ] && grep -q "$esc\[" "$tmp/out"
  expect "colour on a terminal (so the next check can fail)" $? "$(what)"
  run pty env NO_COLOR=1 TERM=xterm-256color "$setup" probe --host-file m4-pro-48
  [ $rc = 0 ] && grep -q 'Apple M4 Pro' "$tmp/out" && ! grep -q "$esc\[" "$tmp/out"
  expect "NO_COLOR=1 on a terminal: no colour" $? "$(what)"
  for cmd in strata-setup strata-launch; do
    run pty env -u NO_COLOR TERM=xterm-256color "$dist/bin/$cmd" --help
    [ $rc = 0 ] && grep -q "$esc\[" "$tmp/out"
    expect "$cmd --help coloured on a terminal (so the next check can fail)" $? "$(what)"
    run pty env NO_COLOR=1 TERM=xterm-256color "$dist/bin/$cmd" --help
    [ $rc = 0 ] && grep -q 'Usage:' "$tmp/out" && ! grep -q "$esc\[" "$tmp/out"
    expect "NO_COLOR=1 on a terminal: $cmd --help without colour" $? "$(what)"
  done
else
  record skip "colour on a terminal, NO_COLOR" "no script(1) to make a pseudo-terminal"
fi

# --- the docs, run: every `sh` block of INSTALL.md then SETUP.md, command by command ---
# One bash session for all of them (cd and export carry over, as for a reader typing them), scratch
# HOME and TMPDIR, no terminal; each command's exit code and output recorded. A command whose line says
# "smoke: skip" is not run (the line says why); `zsh` blocks run only where zsh is installed.
doc_commands() { # file lang: the commands of its ```lang blocks, one per line (continuations joined)
  awk -v lang="$2" '
    /^```/ { if (inb) { inb = 0; next } if ($0 == "```" lang) { inb = 1; next } }
    !inb { next }
    { line = (cont == "" ? $0 : cont " " $0) }
    line ~ /\\$/ { sub(/\\$/, "", line); cont = line; next }
    { cont = "" }
    line ~ /^[ \t]*(#|$)/ { next }
    { print line }
  ' "$1"
}
if [ -n "$root" ]; then
  for page in INSTALL.md SETUP.md README.md; do
    check "the distribution holds docs/$page (the help points to the docs)" \
      test -f "$dist/docs/$page"
  done
  check "the distribution holds strata-ref in lib/native/" \
    sh -c "ls '$dist'/lib/native/libstrata_ref.* >/dev/null"
  mkdir -p "$tmp/home" "$tmp/tmp" "$tmp/doc"
  session=$tmp/doc/session.sh
  : >"$session"
  n=0
  for page in INSTALL.md SETUP.md; do
    for lang in sh zsh; do
      if [ $lang = zsh ] && ! command -v zsh >/dev/null 2>&1; then
        if [ -n "$(doc_commands "$root/docs/$page" zsh)" ]; then
          record skip "docs/$page: the zsh block" "zsh not installed"
        fi
        continue
      fi
      while IFS= read -r c; do
        n=$((n + 1))
        printf '%s\n' "$c" >"$tmp/doc/cmd.$n"
        printf '%s\n' "$page" >"$tmp/doc/page.$n"
        case $c in *"smoke: skip"*) continue ;; esac
        if [ $lang = zsh ]; then
          printf 'zsh -c %q </dev/null >"%s" 2>&1; echo $? >"%s"\n' "$c" "$tmp/doc/out.$n" "$tmp/doc/rc.$n"
        else
          printf '{\n%s\n} </dev/null >"%s" 2>&1; echo $? >"%s"\n' "$c" "$tmp/doc/out.$n" "$tmp/doc/rc.$n"
        fi >>"$session"
      done < <(doc_commands "$root/docs/$page" $lang)
    done
  done
  (cd "$root" && env -i HOME="$tmp/home" TMPDIR="$tmp/tmp" PATH="/usr/local/bin:/usr/bin:/bin" \
    LANG=C.UTF-8 TERM=dumb MANPAGER=cat PAGER=cat MANWIDTH=100 ${JAVA_HOME:+JAVA_HOME="$JAVA_HOME"} \
    bash "$session" </dev/null >/dev/null 2>&1)
  i=0
  while [ $i -lt $n ]; do
    i=$((i + 1))
    c=$(cat "$tmp/doc/cmd.$i")
    page=$(cat "$tmp/doc/page.$i")
    shown=$(printf '%s' "$c" | sed 's/[[:space:]]\{1,\}# .*$//')
    case $c in *"smoke: skip"*)
      why=$(printf '%s' "${c##*smoke: skip}" | sed 's/^[ ,(]*//; s/)$//')
      # not a skipped check: another test runs it (the marker says which), so it is not counted here
      printf '  elsewhere  docs/%s: %s (%s)\n' "$page" "$shown" "$why"; continue ;;
    esac
    r=$(cat "$tmp/doc/rc.$i" 2>/dev/null || echo 'not reached')
    [ "$r" = 0 ]
    expect "docs/$page runs: $shown" $? "rc=$r
$(head -n 8 "$tmp/doc/out.$i" 2>/dev/null)"
  done
  # what the reader is told they get: strata-ref generating text from another folder (the shipped real model)
  last=$(grep -l "^strata-launch --config tiny.yaml --prompt" "$tmp"/doc/cmd.* | head -n 1)
  if [ -n "$last" ]; then
    o=${last/cmd./out.}
    grep -q '^generate: prompt=' "$o"
    expect "docs/INSTALL.md: the installed strata-launch generated with strata-ref (a generate: line)" $? \
      "$(head -n 12 "$o")"
  else
    record fail "docs/INSTALL.md launches a config (strata-launch --config tiny.yaml --prompt …)" "not found in the page"
  fi
fi

printf '\ndist smoke: %d passed, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
report "$reports"
[ "$failed" = 0 ]
