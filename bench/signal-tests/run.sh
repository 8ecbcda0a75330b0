#!/usr/bin/env bash
# bench/signal-tests/run.sh [outdir] — the two JVM facts the signal tests rely on (docs/LAUNCH.md "Signals"):
#   1. ProcessHandle.Info.commandLine() on Linux gives only the first 4,096 bytes of /proc/PID/cmdline
#      (and no arguments() past them): a child JVM's main class after a long class path is not in it.
#   2. A JVM started with SIGHUP ignored (nohup) installs no sun.misc.Signal handler for it: kill -HUP does
#      nothing; `env --default-signal=HUP,INT,TERM` before java restores the handler.
# Needs JAVA_HOME at a JDK 25.
# Writes results.txt under outdir (default bench/results/<today>-signal-tests).
. "$(dirname "$0")/../lib.sh"
out="${1:-$(bench_results signal-tests)}"
java_home="${JAVA_HOME:?set JAVA_HOME to a JDK 25}"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-signal-tests.XXXXXX")
trap 'rm -rf "$work"' EXIT
cat > "$work/CmdLine.java" <<'JAVA'
public class CmdLine {
  public static void main(String[] a) throws Exception {
    if (a[0].equals("child")) { Thread.sleep(5000); return; }
    int pad = Integer.parseInt(a[0]);
    String cp = System.getProperty("java.class.path") + ":" + "/x".repeat(pad / 2);
    Process p = new ProcessBuilder(System.getProperty("java.home") + "/bin/java", "-cp", cp, "CmdLine", "child").start();
    Thread.sleep(1500);
    byte[] raw = java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/" + p.pid() + "/cmdline"));
    var info = p.toHandle().info();
    String cl = info.commandLine().orElse("");
    System.out.println("cmdline_bytes=" + raw.length + " commandLine_chars=" + cl.length()
        + " main_class_in_commandLine=" + cl.contains(" CmdLine child")
        + " arguments=" + info.arguments().map(x -> Integer.toString(x.length)).orElse("none")
        + " main_class_in_proc=" + new String(raw).contains("CmdLine\0child"));
    p.destroy();
  }
}
JAVA
cat > "$work/Hup.java" <<'JAVA'
public class Hup {
  public static void main(String[] a) throws Exception {
    sun.misc.Signal.handle(new sun.misc.Signal("HUP"), s -> { System.out.println("handler ran"); System.exit(129); });
    System.out.println("ready");
    Thread.sleep(4000);
    System.out.println("no handler ran");
  }
}
JAVA
"$java_home/bin/javac" -XDignore.symbol.file -nowarn -d "$work" "$work/CmdLine.java" "$work/Hup.java" 2> /dev/null
hup() { # $1: a prefix command (or none); the JVM's exit and what it printed after kill -HUP
  "$@" "$java_home/bin/java" -cp "$work" Hup > "$work/hup.out" 2>&1 < /dev/null &
  local pid=$!
  sleep 2
  local jvm
  jvm=$(pgrep -P "$pid" 2> /dev/null || true)
  kill -HUP "${jvm:-$pid}" 2> /dev/null || true
  local code=0
  wait "$pid" || code=$?
  echo "exit=$code $(tr '\n' ' ' < "$work/hup.out")"
}
{
  echo "uptime: $(uptime)"
  echo "java: $("$java_home/bin/java" -version 2>&1 | head -1)"
  echo "## 1. ProcessHandle.Info.commandLine() against /proc/PID/cmdline"
  for pad in 1000 3900 4200 8000 20000; do
    echo "pad=$pad $("$java_home/bin/java" -cp "$work" CmdLine "$pad")"
  done
  echo "## 2. kill -HUP to a JVM that installed a SIGHUP handler"
  echo "plain:                              $(hup env)"
  echo "nohup:                              $(hup nohup)"
  echo "nohup env --default-signal=HUP,...: $(hup nohup /usr/bin/env --default-signal=HUP,INT,TERM)"
} | tee "$out/results.txt"
