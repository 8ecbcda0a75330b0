package dev.strata.metal.objc;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.strata.engine.libc.NativeCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Objective-C runtime through FFM, macOS only: classes, selectors, autorelease pools and {@code
 * objc_msgSend} with a typed signature.
 *
 * <p>{@code objc_msgSend} is declared variadic in C, but it is a trampoline that jumps into the
 * method with the registers as it found them: the caller must pass arguments exactly as the method
 * expects them. On Apple arm64 a variadic call puts the variable arguments on the stack, where the
 * method does not look, so every send here goes through a non-variadic downcall bound to {@code
 * objc_msgSend}'s address with the method's own signature ({@code self, _cmd, args...}). Handles
 * are cached per signature.
 *
 * <p>Everything is resolved once, on the first {@link #runtime()} call, and kept for the life of
 * the process (libraries loaded into {@link Arena#global()}): loading this class on Linux costs
 * nothing and touches no native code.
 */
// Restricted FFM calls are the point of this class; the launcher scripts pass
// --enable-native-access=ALL-UNNAMED.
@SuppressWarnings("restricted")
public final class ObjC {
  /** The Objective-C runtime. On macOS 11+ it lives in the dyld shared cache; dlopen finds it. */
  public static final String LIBOBJC = "/usr/lib/libobjc.A.dylib";

  private static final Linker LINKER = Linker.nativeLinker();

  private final MethodHandle getClass;
  private final MethodHandle registerName;
  private final MethodHandle poolPush;
  private final MethodHandle poolPop;
  private final MemorySegment msgSend;
  private final Map<FunctionDescriptor, MethodHandle> sends = new ConcurrentHashMap<>();
  private final Map<String, MemorySegment> selectors = new ConcurrentHashMap<>();

  private ObjC(SymbolLookup objc) {
    getClass =
        LINKER.downcallHandle(find(objc, "objc_getClass"), FunctionDescriptor.of(ADDRESS, ADDRESS));
    registerName =
        LINKER.downcallHandle(
            find(objc, "sel_registerName"), FunctionDescriptor.of(ADDRESS, ADDRESS));
    poolPush =
        LINKER.downcallHandle(
            find(objc, "objc_autoreleasePoolPush"), FunctionDescriptor.of(ADDRESS));
    poolPop =
        LINKER.downcallHandle(
            find(objc, "objc_autoreleasePoolPop"), FunctionDescriptor.ofVoid(ADDRESS));
    msgSend = find(objc, "objc_msgSend");
  }

  private static final class Holder {
    static final ObjC RUNTIME = new ObjC(framework(LIBOBJC));
  }

  /**
   * The runtime whose functions ({@code objc_getClass}, {@code sel_registerName}, {@code
   * objc_msgSend}, {@code objc_autoreleasePoolPush}/{@code Pop}) come from {@code objc}: {@link
   * #runtime()} binds libobjc; the tests bind the Darwin stand-in (metal/src/test/native).
   *
   * @throws IllegalStateException when one of those functions is not in {@code objc}
   */
  public static ObjC bind(SymbolLookup objc) {
    return new ObjC(objc);
  }

  /**
   * The runtime, loaded on first use.
   *
   * @throws IllegalStateException when libobjc or one of its functions cannot be found (not a Mac)
   */
  public static ObjC runtime() {
    try {
      return Holder.RUNTIME;
    } catch (ExceptionInInitializerError | NoClassDefFoundError e) {
      throw new IllegalStateException("the Objective-C runtime is not available: " + e, e);
    }
  }

  /**
   * Loads a library or framework binary by its full path (e.g. {@code
   * /System/Library/Frameworks/Metal.framework/Metal}) for the life of the process. The path goes
   * to dlopen as a string, which also finds system libraries that exist only in the dyld shared
   * cache and not as files.
   *
   * @throws IllegalArgumentException when it cannot be loaded
   */
  public static SymbolLookup framework(String path) {
    return SymbolLookup.libraryLookup(path, Arena.global());
  }

  /** The address of {@code symbol} in {@code lookup}. */
  public static MemorySegment find(SymbolLookup lookup, String symbol) {
    return lookup
        .find(symbol)
        .orElseThrow(() -> new IllegalStateException("symbol not found: " + symbol));
  }

  /** {@code objc_getClass(name)}: the class, or {@link MemorySegment#NULL} when unknown. */
  public MemorySegment cls(String name) {
    try (Arena arena = Arena.ofConfined()) {
      return (MemorySegment) getClass.invokeExact(arena.allocateFrom(name));
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
  }

  /** {@code sel_registerName(name)}, cached (selectors are unique and never freed). */
  public MemorySegment sel(String name) {
    return selectors.computeIfAbsent(
        name,
        n -> {
          try (Arena arena = Arena.ofConfined()) {
            return (MemorySegment) registerName.invokeExact(arena.allocateFrom(n));
          } catch (Throwable t) {
            throw NativeCalls.rethrow(t);
          }
        });
  }

  /**
   * A downcall to {@code objc_msgSend} with the exact signature of the method it will reach: {@code
   * signature} starts with {@code (ADDRESS self, ADDRESS _cmd)} and continues with the method's own
   * arguments; its return layout is the method's. Cached per signature.
   *
   * <p>Methods that return a struct larger than 16 bytes need {@code objc_msgSend_stret} on x86_64;
   * none is needed here, and this helper refuses struct returns to keep that mistake out.
   */
  public MethodHandle msgSend(FunctionDescriptor signature) {
    List<MemoryLayout> args = signature.argumentLayouts();
    if (args.size() < 2 || !args.get(0).equals(ADDRESS) || !args.get(1).equals(ADDRESS)) {
      throw new IllegalArgumentException("a message send starts with (ADDRESS self, ADDRESS _cmd)");
    }
    if (signature
        .returnLayout()
        .filter(l -> l instanceof java.lang.foreign.GroupLayout)
        .isPresent()) {
      throw new IllegalArgumentException("struct returns are not supported");
    }
    return sends.computeIfAbsent(signature, s -> LINKER.downcallHandle(msgSend, s));
  }

  /** {@code objc_autoreleasePoolPush()}: pass the token to {@link #popPool}. */
  public MemorySegment pushPool() {
    try {
      return (MemorySegment) poolPush.invokeExact();
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
  }

  /** {@code objc_autoreleasePoolPop(token)}: releases what was autoreleased since the push. */
  public void popPool(MemorySegment token) {
    try {
      poolPop.invokeExact(token);
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
  }

  /** {@code [object release]}, for objects this code owns (from a new/alloc/copy/Create call). */
  public void release(MemorySegment object) {
    if (object.equals(MemorySegment.NULL)) {
      return;
    }
    try {
      msgSend(FunctionDescriptor.ofVoid(ADDRESS, ADDRESS)).invokeExact(object, sel("release"));
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
  }
}
