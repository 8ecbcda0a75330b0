#!/usr/bin/env bash
# bench/wizard-signals/run.sh [tries] [outdir] — the wizard's terminal under a signal (issue 28).
#
# Each try starts `strata-setup` (the wizard, no flags) in a tmux pane on a real pty, waits for the model
# question, sends one signal to the JVM, then checks that the JVM exits within LIMIT seconds and that
# `stty -a` in that pane shows the terminal restored (icanon and echo on). A JVM that outlives the limit
# gets a thread dump (jcmd Thread.print) in the results folder before it is killed.
#
# A JVM killed by the signal before its handlers are installed (the first ~100 ms) shows as exit
# "killed". The pane's shell is an interactive bash: after a job killed by a signal it may repair the
# terminal itself, so the stty check is meaningful for the exits the wizard makes (129, 130, 143).
#
#   SIGNALS  the signals to cycle through, default "HUP INT TERM EOF" (EOF: a ^D typed at the question)
#   LIMIT    seconds a try may take after the signal, default 20
#   AT       when the signal is sent: "question" (default: once the model question shows), or
#            "random:MS" (a random moment 0..MS ms after the JVM started: during start-up, while the
#            terminal is being set up, as the question is drawn; EOF is always sent at the question)
#   TRIES    = $1, default 200
#
# Writes results.csv (try, signal, exit, seconds, icanon, echo, verdict) and summary.txt under outdir
# (default bench/results/<today>-wizard-signals); exit 0 when every try passed, 1 otherwise.
. "$(dirname "$0")/../lib.sh"
bench_begin wizard-signals 200 "${1:-}" "${2:-}"
limit=${LIMIT:-20}
at=${AT:-question}
signals=(${SIGNALS:-HUP INT TERM EOF})
command -v tmux > /dev/null || { echo "run.sh: needs tmux" >&2; exit 2; }
sock="strata-ws-$$"
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server 2> /dev/null || true; rm -rf "$work"' EXIT
# a home of its own: no previous config, no probe cache shared with other runs
mkdir -p "$work/home"
echo "try,signal,exit,seconds,icanon,echo,verdict" > "$out/results.csv"
failures=0
wait_for() { # pattern seconds: 0 when the pane shows pattern within seconds
  local i n=$(($2 * 10))
  for ((i = 0; i < n; i++)); do
    tm capture-pane -p -t w -S -200 2> /dev/null | grep -q -- "$1" && return 0
    sleep 0.1
  done
  return 1
}
java_of() { # pid: the java process at or under pid (the launcher script may or may not exec)
  local p=$1 c
  for _ in 1 2 3 4; do
    [ "$(ps -o comm= -p "$p")" = java ] && { echo "$p"; return; }
    c=$(pgrep -P "$p" | head -1)
    [ -n "$c" ] || break
    p=$c
  done
  echo "$p"
}
for ((t = 1; t <= rounds; t++)); do
  sig=${signals[$(((t - 1) % ${#signals[@]}))]}
  tm kill-server 2> /dev/null || true
  sleep 0.2
  tm -f /dev/null new-session -d -s w -x 120 -y 40 \
    "env -i HOME=$work/home PATH=$PATH TERM=xterm-256color bash --norc --noprofile"
  tm send-keys -t w "stty sane; clear; $dist/bin/strata-setup; echo \"EXIT=\$?\"" Enter
  if [ "$at" != question ] && [ "$sig" != EOF ]; then
    shell=$(tm display-message -p -t w '#{pane_pid}')
    for _ in $(seq 200); do
      java=$(java_of "$shell")
      [ "$java" != "$shell" ] && break
      sleep 0.01
    done
    sleep "$(awk -v ms="${at#random:}" -v r="$RANDOM" 'BEGIN { printf "%.3f", (r % (ms + 1)) / 1000 }')"
  elif ! wait_for "Model (first shard" 60; then
    echo "$t,$sig,,,,,no-question" >> "$out/results.csv"
    tm capture-pane -p -t w > "$out/try-$t-no-question.txt"
    failures=$((failures + 1))
    continue
  fi
  if [ "$at" = question ] || [ "$sig" = EOF ]; then
    shell=$(tm display-message -p -t w '#{pane_pid}')
    java=$(java_of "$shell")
  fi
  start=$(date +%s.%N)
  case $sig in
    EOF) tm send-keys -t w C-d ;;
    *) kill -s "$sig" "$java" ;;
  esac
  # the JVM is gone when it has exited; an interactive bash skips the `echo EXIT` of a command line
  # whose job SIGINT killed (a SIGINT before the JVM's handlers are in place), so the exit line is
  # not the signal of the end
  gone=1
  for ((i = 0; i < limit * 10; i++)); do
    kill -0 "$java" 2> /dev/null || { gone=0; break; }
    sleep 0.1
  done
  if [ "$gone" -eq 0 ]; then
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    wait_for "EXIT=[0-9]" 2 || true
    code=$(tm capture-pane -p -t w -S -200 | sed -n 's/.*EXIT=\([0-9][0-9]*\).*/\1/p' | tail -1)
    code=${code:-killed}
    verdict=ok
  else
    code=hang
    secs=$limit
    verdict=hang
    "$jdk/bin/jcmd" "$java" Thread.print > "$out/try-$t-$sig-threads.txt" 2>&1 || true
    kill -9 "$java" 2> /dev/null || true
    wait_for "EXIT=[0-9]" 5 || true
  fi
  tm send-keys -t w "clear; stty -a | tr '\\n' ' ' | sed 's/^/STTY: /'; echo" Enter
  wait_for "^STTY:" 10 || true
  stty_line=$(tm capture-pane -p -J -t w -S -200 | grep '^STTY:' | tail -1)
  icanon=$(grep -qw -- "-icanon" <<< "$stty_line" && echo off || echo on)
  echoflag=$(grep -qw -- "-echo" <<< "$stty_line" && echo off || echo on)
  [ -n "$stty_line" ] || { icanon=unknown; echoflag=unknown; }
  if [ "$verdict" = ok ] && { [ "$icanon" != on ] || [ "$echoflag" != on ]; }; then verdict=raw; fi
  if [ "$verdict" != ok ]; then
    failures=$((failures + 1))
    tm capture-pane -p -t w -S -200 > "$out/try-$t-$sig-pane.txt"
  fi
  echo "$t,$sig,$code,$secs,$icanon,$echoflag,$verdict" >> "$out/results.csv"
  echo "try $t $sig: exit $code in ${secs}s, icanon $icanon, echo $echoflag: $verdict" >&2
done
{
  echo "wizard-signals: $rounds tries, signals ${signals[*]}, at $at, limit ${limit}s, $failures failed"
  echo "uptime: $(uptime)"
  echo "commit: $(git -C "$root" rev-parse --short HEAD)"
} | tee "$out/summary.txt"
[ "$failures" -eq 0 ]
