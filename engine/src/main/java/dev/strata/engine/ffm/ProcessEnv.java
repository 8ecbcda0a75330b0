package dev.strata.engine.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Objects;

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
      int rc = (int) UNSETENV.invokeExact(a.allocateFrom(name));
      if (rc != 0) {
        throw new IllegalStateException("unsetenv(" + name + ") failed");
      }
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
  }

  private static void checkEnvName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(
          "not a valid environment variable name: '" + name.replace("\0", "\\0") + "'");
    }
  }
}
