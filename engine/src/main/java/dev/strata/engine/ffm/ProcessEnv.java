package dev.strata.engine.ffm;

import dev.strata.engine.libc.NativeCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The process environment as libc holds it, where an in-process engine reads it: {@code
 * System.getenv} of this JVM does not see these changes.
 */
@SuppressWarnings("restricted") // setenv and unsetenv through FFM
final class ProcessEnv {
  private ProcessEnv() {}

  private static final MethodHandle SETENV =
      NativeCalls.libc(
          "setenv",
          FunctionDescriptor.of(
              ValueLayout.JAVA_INT,
              ValueLayout.ADDRESS,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_INT));
  private static final MethodHandle UNSETENV =
      NativeCalls.libc(
          "unsetenv", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));

  /**
   * Sets a variable in the process environment through libc {@code setenv}, where the engine reads
   * it ({@code System.getenv} of this JVM does not see the change).
   *
   * @throws IllegalArgumentException for an empty name, or a name or value with '=' (name only) or
   *     NUL
   */
  static void set(String name, String value) {
    checkEnvName(name);
    Objects.requireNonNull(value, "value");
    if (value.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("env value for " + name + " contains NUL");
    }
    try (Arena a = Arena.ofConfined()) {
      LIBC_CALLS.incrementAndGet();
      int rc = (int) SETENV.invokeExact(a.allocateFrom(name), a.allocateFrom(value), 1);
      if (rc != 0) {
        throw new IllegalStateException("setenv(" + name + ") failed");
      }
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
  }

  /** Removes a variable from the process environment through libc {@code unsetenv}. */
  static void unset(String name) {
    checkEnvName(name);
    try (Arena a = Arena.ofConfined()) {
      LIBC_CALLS.incrementAndGet();
      int rc = (int) UNSETENV.invokeExact(a.allocateFrom(name));
      if (rc != 0) {
        throw new IllegalStateException("unsetenv(" + name + ") failed");
      }
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
  }

  // setenv/unsetenv calls and environ entries visited by overlay (EngineEnvTest's count check)
  static final AtomicLong LIBC_CALLS = new AtomicLong();
  static final AtomicLong ENTRIES_VISITED = new AtomicLong();

  /**
   * Puts {@code env} over the process environment in one step, linear in the size of both: a new
   * {@code environ} array — the current entries whose names {@code env} does not set, then {@code
   * env}'s — replaces the old one, and the returned {@link Runnable} puts back a copy of the array
   * as it was. Not {@code setenv} per entry: libc scans the whole environment on every {@code
   * setenv} and {@code unsetenv}, so {@code n} entries cost {@code O(n²)} (30,000 of them took
   * seconds of a dry run). The arrays and strings are never freed (a getenv pointer the engine kept
   * stays valid); libc's own strings are never freed by libc either. macOS: {@code
   * *_NSGetEnviron()}, not run on a Mac here.
   *
   * @throws IllegalArgumentException for an empty name, or a name with '=' or NUL, or a value with
   *     NUL (nothing is changed then)
   */
  static Runnable overlay(Map<String, String> env) {
    for (Map.Entry<String, String> e : env.entrySet()) {
      checkEnvName(e.getKey());
      if (e.getValue().indexOf('\0') >= 0) {
        throw new IllegalArgumentException("env value for " + e.getKey() + " contains NUL");
      }
    }
    MemorySegment slot = environSlot();
    MemorySegment before = slot.get(ValueLayout.ADDRESS, 0);
    List<MemorySegment> current = entries(before);
    Arena keep = Arena.global();
    MemorySegment saved = array(keep, current, List.of());
    List<MemorySegment> kept = new ArrayList<>(current.size());
    for (MemorySegment entry : current) {
      if (!env.containsKey(name(entry))) {
        kept.add(entry);
      }
    }
    List<MemorySegment> added = new ArrayList<>(env.size());
    env.forEach((k, v) -> added.add(keep.allocateFrom(k + "=" + v, StandardCharsets.UTF_8)));
    slot.set(ValueLayout.ADDRESS, 0, array(keep, kept, added));
    return () -> slot.set(ValueLayout.ADDRESS, 0, saved);
  }

  /** The {@code char **environ} variable itself (a pointer-sized segment at its address). */
  private static MemorySegment environSlot() {
    MemorySegment at;
    if (dev.strata.engine.Os.isMac(System.getProperty("os.name", ""))) {
      try {
        at = (MemorySegment) NS_GET_ENVIRON.get().invokeExact();
      } catch (Throwable t) {
        throw NativeCalls.rethrow(t);
      }
    } else {
      at =
          NativeCalls.LINKER
              .defaultLookup()
              .find("environ")
              .orElseThrow(() -> new IllegalStateException("libc lacks environ"));
    }
    return at.reinterpret(ValueLayout.ADDRESS.byteSize());
  }

  private static final java.util.function.Supplier<MethodHandle> NS_GET_ENVIRON =
      () -> NativeCalls.libc("_NSGetEnviron", FunctionDescriptor.of(ValueLayout.ADDRESS));

  /** The entries of a NULL-terminated {@code char *[]}. */
  private static List<MemorySegment> entries(MemorySegment array) {
    List<MemorySegment> out = new ArrayList<>();
    if (array.address() == 0) {
      return out;
    }
    MemorySegment a = array.reinterpret(Long.MAX_VALUE);
    for (long i = 0; ; i++) {
      MemorySegment e = a.getAtIndex(ValueLayout.ADDRESS, i);
      if (e.address() == 0) {
        return out;
      }
      ENTRIES_VISITED.incrementAndGet();
      out.add(e);
    }
  }

  /** The name of a {@code NAME=value} entry (all of it when it has no '='). */
  private static String name(MemorySegment entry) {
    MemorySegment s = entry.reinterpret(Long.MAX_VALUE);
    long n = 0;
    while (s.get(ValueLayout.JAVA_BYTE, n) != '=' && s.get(ValueLayout.JAVA_BYTE, n) != 0) {
      n++;
    }
    byte[] b = new byte[(int) n];
    MemorySegment.copy(s, ValueLayout.JAVA_BYTE, 0, b, 0, (int) n);
    return new String(b, StandardCharsets.UTF_8);
  }

  /** A NULL-terminated {@code char *[]} of {@code first} then {@code then}. */
  private static MemorySegment array(
      Arena arena, List<MemorySegment> first, List<MemorySegment> then) {
    MemorySegment a = arena.allocate(ValueLayout.ADDRESS, (long) first.size() + then.size() + 1);
    long i = 0;
    for (List<MemorySegment> part : List.of(first, then)) {
      for (MemorySegment e : part) {
        a.setAtIndex(ValueLayout.ADDRESS, i++, e);
      }
    }
    a.setAtIndex(ValueLayout.ADDRESS, i, MemorySegment.NULL);
    return a;
  }

  private static void checkEnvName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(
          "not a valid environment variable name: '" + name.replace("\0", "\\0") + "'");
    }
  }
}
