package dev.strata.cli;

import dev.strata.engine.Keywords;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.function.IntConsumer;

/**
 * SIGHUP / SIGINT / SIGTERM handlers for the launcher and the wizard, through {@code
 * sun.misc.Signal}.
 *
 * <p>Why {@code sun.misc.Signal} and not a shutdown hook: on SIGINT the JVM's own handler starts
 * the shutdown sequence, and while hooks run a second SIGINT only blocks on the same shutdown lock
 * — it cannot "exit at once". With our own handler the first SIGINT only asks the engine to stop
 * ({@code strata_engine_cancel}, after which strata-ref returns 130 within 100 ms), the launcher
 * then exits normally with 130 (143 for SIGTERM) after flushing the engine's last lines, and a
 * second SIGINT halts the JVM immediately. The handler runs on a JVM thread (HotSpot's signal
 * dispatcher), never in native signal context, so it may call into Java and into the engine's
 * async-signal-safe cancel.
 *
 * <p>Why reflection: {@code sun.misc.Signal} lives in the {@code jdk.unsupported} module, which is
 * readable from the class path and stays supported for exactly this use, but javac flags every
 * direct reference as "internal proprietary API" — a warning no {@code @SuppressWarnings} removes,
 * and the build runs with {@code -Werror}. The whole dependency is this one class.
 *
 * <p>When a signal is ignored on entry (a background job of a non-interactive shell has SIGINT set
 * to SIG_IGN, and {@code nohup} ignores SIGHUP), HotSpot keeps it ignored: we respect that, as
 * every Unix program does; {@link #install} reports it.
 */
public final class SignalTrap {

  /** The signals the launcher handles. */
  public enum Sig {
    /** The terminal went away (the ssh session or the terminal window closed). */
    HUP(1),
    INT(2),
    TERM(15);

    private final int number;

    /** The constant's name is the signal's name as {@code sun.misc.Signal} takes it. */
    Sig(int number) {
      this.number = number;
    }

    /** The POSIX number (1, 2, 15) on Linux and macOS alike. */
    public int number() {
      return number;
    }

    /** The conventional exit code of a process stopped by this signal: 128 + number. */
    public int exitCode() {
      return 128 + number;
    }

    /** The signal of a POSIX number, or null. */
    public static Sig of(int number) {
      return Keywords.find(Sig.class, Sig::number, number);
    }
  }

  private SignalTrap() {}

  /**
   * An installed handler. {@link #close} puts the previous handler back (tests run the launcher
   * inside a JVM that must keep its own behaviour afterwards).
   */
  public static final class Installed implements AutoCloseable {
    private final Sig sig;
    private final Object previous;
    private final boolean active;

    private Installed(Sig sig, Object previous, boolean active) {
      this.sig = sig;
      this.previous = previous;
      this.active = active;
    }

    /** False when the signal was ignored on entry (it stays ignored) or cannot be handled. */
    public boolean active() {
      return active;
    }

    @Override
    public void close() {
      if (active && previous != null) {
        try {
          Class<?> signalClass = Class.forName("sun.misc.Signal");
          Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
          Object signal = signalClass.getConstructor(String.class).newInstance(sig.name());
          signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, signal, previous);
        } catch (ReflectiveOperationException | RuntimeException e) {
          // Restoring is best effort: the process is about to exit in every real use.
        }
      }
    }
  }

  /**
   * Installs {@code onSignal} for {@code sig}; the consumer receives the signal number.
   *
   * @return the installation; {@link Installed#active()} is false when the signal was ignored on
   *     entry (it stays ignored) or cannot be handled on this JVM
   */
  public static Installed install(Sig sig, IntConsumer onSignal) {
    try {
      Class<?> signalClass = Class.forName("sun.misc.Signal");
      Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
      Object signal = signalClass.getConstructor(String.class).newInstance(sig.name());
      Method getNumber = signalClass.getMethod("getNumber");
      Object handler =
          Proxy.newProxyInstance(
              handlerClass.getClassLoader(),
              new Class<?>[] {handlerClass},
              (proxy, method, args) ->
                  switch (method.getName()) {
                    case "handle" -> {
                      onSignal.accept((Integer) getNumber.invoke(args[0]));
                      yield null;
                    }
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> "SignalTrap[" + sig + "]";
                  });
      Object previous =
          signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, signal, handler);
      // HotSpot answers SIG_IGN (and installs nothing) when the signal was ignored on entry.
      Object ignored = handlerClass.getField("SIG_IGN").get(null);
      return new Installed(sig, previous, previous != ignored);
    } catch (InvocationTargetException e) {
      // IllegalArgumentException: the VM or the OS reserves the signal (for example under -Xrs).
      return new Installed(sig, null, false);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return new Installed(sig, null, false);
    }
  }
}
