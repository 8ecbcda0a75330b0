package dev.strata.engine.libc;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

/**
 * What the project's FFM bindings share (this package's engine, Posix, loader and environment
 * calls; the metal module's Objective-C runtime): the native linker, the libc lookup, and one way
 * to rethrow what a method handle threw.
 */
@SuppressWarnings("restricted") // the libc downcalls of the FFM bindings
public final class NativeCalls {
  /** The platform's native linker. */
  public static final Linker LINKER = Linker.nativeLinker();

  private NativeCalls() {}

  /**
   * A downcall handle to a libc function of the default lookup.
   *
   * @throws IllegalStateException when libc has no such function
   */
  public static MethodHandle libc(String fn, FunctionDescriptor d, Linker.Option... options) {
    return LINKER.downcallHandle(
        LINKER
            .defaultLookup()
            .find(fn)
            .orElseThrow(() -> new IllegalStateException("libc lacks " + fn)),
        d,
        options);
  }

  /**
   * What {@code invokeExact} threw, as an unchecked exception to throw: a RuntimeException as it
   * is, an Error thrown at once, anything else (a checked exception a native call cannot really
   * throw) wrapped in IllegalStateException.
   */
  public static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException(t);
  }
}
