package dev.strata.metal;

import dev.strata.metal.objc.ObjC;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.util.function.Supplier;

/**
 * Where {@link MacProbe} finds its native functions. On a Mac ({@link #darwin()}): {@code
 * sysctlbyname} in libSystem (the default lookup), the Objective-C runtime in libobjc, {@code
 * MTLCreateSystemDefaultDevice} in Metal.framework (CoreGraphics loaded first). Tests pass {@link
 * #of} the Darwin stand-in (metal/src/test/native), which exports all of them, so the probe's own
 * FFM code runs end to end on Linux (docs/PROBE.md). Each lookup is opened only when first needed.
 *
 * @param system gives {@code sysctlbyname}
 * @param objc gives {@code objc_getClass}, {@code sel_registerName}, {@code objc_msgSend}, {@code
 *     objc_autoreleasePoolPush}, {@code objc_autoreleasePoolPop}
 * @param metal gives {@code MTLCreateSystemDefaultDevice}
 */
record MacSymbols(
    Supplier<SymbolLookup> system, Supplier<SymbolLookup> objc, Supplier<SymbolLookup> metal) {

  /** The Mac's own libraries, as the probe has always used them. */
  static MacSymbols darwin() {
    return new MacSymbols(
        () -> Linker.nativeLinker().defaultLookup(),
        () -> ObjC.framework(ObjC.LIBOBJC),
        () -> {
          ObjC.framework(MetalGpu.CORE_GRAPHICS);
          return ObjC.framework(MetalGpu.METAL);
        });
  }

  /** Every symbol from one library (the Darwin stand-in). */
  static MacSymbols of(SymbolLookup all) {
    return new MacSymbols(() -> all, () -> all, () -> all);
  }
}
