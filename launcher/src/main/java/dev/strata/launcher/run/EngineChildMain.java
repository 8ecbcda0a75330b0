package dev.strata.launcher.run;

import dev.strata.cli.SignalTrap;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.ffm.NativeEngine;
import dev.strata.engine.ffm.VerifiedLibrary;
import dev.strata.engine.text.Clip;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The {@code --isolate} child: loads the engine, runs it, reports through {@link ChildProtocol}.
 * Not a user command; {@link IsolatedRunner} starts it with the launcher's own java and class path.
 */
public final class EngineChildMain {
  private static final PrintStream OUT =
      new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);

  private EngineChildMain() {}

  public static void main(String[] argv) {
    ChildProtocol.ChildArgs a;
    try {
      a = ChildProtocol.ChildArgs.decode(java.util.List.of(argv));
    } catch (IllegalArgumentException e) {
      fail(ExitCodes.USAGE, "internal: bad --isolate child arguments: " + e.getMessage());
      return;
    }
    NativeEngine engine;
    try {
      // What the launcher checked and holds open, re-hashed here; never the configured path.
      try (VerifiedLibrary v =
          VerifiedLibrary.openHandedOver(a.handle(), a.sha256(), a.library())) {
        engine = v.load();
      }
    } catch (StrataException e) {
      fail(e.exitCode(), e.getMessage());
      return;
    }
    // The launcher forwards its SIGINT/SIGTERM as "cancel" on our stdin; a Ctrl-C typed in a
    // terminal reaches this process group too, so handle it here the same way (cancel once).
    // The first signal decides the exit code (128 + its number: SIGTERM 143, not the 130 a
    // cancelled engine returns); the launcher, when it was signalled too, decides its own.
    java.util.concurrent.atomic.AtomicInteger signalled =
        new java.util.concurrent.atomic.AtomicInteger();
    for (SignalTrap.Sig sig : SignalTrap.Sig.values()) {
      SignalTrap.install(
          sig,
          n -> {
            signalled.compareAndSet(0, n);
            engine.cancel();
          });
    }
    Thread.ofPlatform()
        .daemon()
        .name("strata-child-stdin")
        .start(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  if (line.strip().equals(ChildProtocol.CANCEL)) {
                    engine.cancel();
                  }
                }
              } catch (IOException e) {
                // treated as end of input below
              }
              // The launcher is gone: do not run on without it. Repeated, because a cancel that
              // lands before strata_engine_main has started is reset by it.
              while (true) {
                engine.cancel();
                try {
                  Thread.sleep(100);
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
    int code;
    try {
      engine.overlayEnv(a.env()); // this child runs one engine: never put back
      code = engine.run(a.engineArgs(), (level, text) -> log(InProcessRunner.code(level), text));
    } catch (StrataException e) {
      fail(e.exitCode(), e.getMessage());
      return;
    }
    if (signalled.get() != 0) {
      code = Supervisor.exitCodeFor(signalled.get());
    }
    synchronized (OUT) {
      OUT.print(ChildProtocol.EXIT + code + "\n");
      OUT.flush();
    }
    System.exit(code);
  }

  private static void log(int level, String text) {
    synchronized (OUT) {
      for (String record : ChildProtocol.logRecords(level, text)) {
        OUT.print(record);
        OUT.print('\n');
      }
      OUT.flush();
    }
  }

  private static void fail(int code, String message) {
    synchronized (OUT) {
      OUT.print(ChildProtocol.FAIL + code + ":" + Clip.oneLine(message) + "\n");
      OUT.flush();
    }
    System.exit(code);
  }
}
