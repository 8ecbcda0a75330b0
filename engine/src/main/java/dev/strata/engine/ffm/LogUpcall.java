package dev.strata.engine.ffm;

import dev.strata.engine.libc.NativeCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The engine's one log callback ({@code strata_log_fn}) for {@link NativeEngine}: an upcall stub in
 * the engine's arena (it outlives every run, so an engine thread that logs late still finds it),
 * and where each line goes — the sink of the run in progress ({@code user} NULL), or the sink of
 * the open session whose id is the {@code user} pointer.
 */
@SuppressWarnings("restricted") // the upcall stub, and the lines the engine passes it
final class LogUpcall {
  private static final FunctionDescriptor LOG_FN =
      FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS);

  /** The sink of a run and the first exception it threw. */
  record RunState(LogSink sink, AtomicReference<Throwable> failure) {}

  /** The open sessions' sinks, by the id passed to the engine as the log callback's user. */
  private final ConcurrentHashMap<Long, LogSink> sessionSinks = new ConcurrentHashMap<>();

  private final AtomicLong nextSessionId = new AtomicLong();
  private final MemorySegment stub;
  private volatile RunState current;

  LogUpcall(Arena arena) {
    try {
      MethodHandle onLog =
          MethodHandles.lookup()
              .findVirtual(
                  LogUpcall.class,
                  "onLog",
                  MethodType.methodType(
                      void.class, MemorySegment.class, int.class, MemorySegment.class))
              .bindTo(this);
      this.stub = NativeCalls.LINKER.upcallStub(onLog, LOG_FN, arena);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("LogUpcall.onLog is missing", e);
    }
  }

  /** The {@code strata_log_fn} to pass the engine. */
  MemorySegment stub() {
    return stub;
  }

  /** A run starts: its lines go to {@code sink}. */
  RunState begin(LogSink sink) {
    RunState s = new RunState(sink, new AtomicReference<>());
    current = s;
    return s;
  }

  /** The run ended. */
  void end() {
    current = null;
  }

  /** Whether a run is in progress. */
  boolean running() {
    return current != null;
  }

  /** A session opens: its id (the {@code user} pointer) for {@code sink}. */
  long addSession(LogSink sink) {
    long id = nextSessionId.incrementAndGet();
    sessionSinks.put(id, sink);
    return id;
  }

  /** A session closed (or failed to open): its sink is dropped. */
  void forget(long id) {
    sessionSinks.remove(id);
  }

  /** The open sessions. */
  int sessions() {
    return sessionSinks.size();
  }

  /**
   * The log upcall. Never throws: an exception reaching native code would take the process down.
   * The first failure is kept and later lines of that run are dropped.
   */
  @SuppressWarnings("unused") // called from native code through the upcall stub
  private void onLog(MemorySegment user, int level, MemorySegment line) {
    if (user.address() != 0) {
      onSessionLog(user.address(), level, line);
      return;
    }
    try {
      RunState s = current;
      if (s == null || s.failure().get() != null) {
        return;
      }
      String text =
          line.equals(MemorySegment.NULL) ? "" : line.reinterpret(Integer.MAX_VALUE).getString(0);
      s.sink().line(LogLevel.fromCode(level), text);
    } catch (Throwable t) {
      try {
        RunState s = current;
        if (s != null) {
          s.failure().compareAndSet(null, t);
        }
      } catch (Throwable ignored) {
        // nothing may escape into native code
      }
    }
  }

  /**
   * A session's line (the user pointer is its id). Never throws; a sink's failure drops the line
   * (the session's caller sees the call's result, and the first failure of the run is not kept).
   */
  private void onSessionLog(long id, int level, MemorySegment line) {
    try {
      LogSink sink = sessionSinks.get(id);
      if (sink != null) {
        String text =
            line.equals(MemorySegment.NULL) ? "" : line.reinterpret(Integer.MAX_VALUE).getString(0);
        sink.line(LogLevel.fromCode(level), text);
      }
    } catch (Throwable ignored) {
      // nothing may escape into native code
    }
  }
}
