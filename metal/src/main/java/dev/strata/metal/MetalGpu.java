package dev.strata.metal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.strata.engine.host.ChipName;
import dev.strata.metal.objc.ObjC;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * The Metal half of the Mac probe: {@code MTLCreateSystemDefaultDevice()}, then {@code
 * -supportsFamily:}, {@code -recommendedMaxWorkingSetSize} and {@code -name} on it, inside an
 * autorelease pool. {@link #darwin()} binds Metal.framework and libobjc; tests bind the Darwin
 * stand-in ({@link #bind}). Each selector is sent only after {@code -respondsToSelector:} says the
 * device has it: an unknown selector is an uncaught Objective-C exception, which would end the
 * process.
 */
// Restricted FFM calls are the point of this class; the launcher scripts pass
// --enable-native-access=ALL-UNNAMED.
@SuppressWarnings("restricted")
final class MetalGpu {
  static final String METAL = "/System/Library/Frameworks/Metal.framework/Metal";

  /**
   * Linked only so it is loaded: without CoreGraphics a command-line program (no window server
   * connection) can get a nil default device.
   */
  static final String CORE_GRAPHICS =
      "/System/Library/Frameworks/CoreGraphics.framework/CoreGraphics";

  /** {@code - (BOOL)supportsFamily:(MTLGPUFamily)family}: MTLGPUFamily is an NSInteger. */
  static final FunctionDescriptor SUPPORTS_FAMILY =
      FunctionDescriptor.of(JAVA_BYTE, ADDRESS, ADDRESS, JAVA_LONG);

  /** {@code @property(readonly) uint64_t recommendedMaxWorkingSetSize}. */
  static final FunctionDescriptor UINT64_GETTER =
      FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS);

  /** {@code @property(readonly) NSString *name}, {@code -(const char *)UTF8String}. */
  static final FunctionDescriptor POINTER_GETTER = FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS);

  /** {@code - (BOOL)respondsToSelector:(SEL)aSelector}. */
  static final FunctionDescriptor RESPONDS =
      FunctionDescriptor.of(JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS);

  /** The longest device name read; Apple's are ~20 characters. */
  private static final long MAX_NAME = 256;

  private final ObjC objc;
  private final MethodHandle createDevice;

  private MetalGpu(ObjC objc, MethodHandle createDevice) {
    this.objc = objc;
    this.createDevice = createDevice;
  }

  /** Resolved once per process, on the first query. */
  private static final class Darwin {
    static final MetalGpu GPU = bind(MacSymbols.darwin());
  }

  /**
   * Metal.framework and libobjc, bound on first use.
   *
   * @throws IllegalStateException when they cannot be loaded (not a Mac)
   */
  static MetalGpu darwin() {
    try {
      return Darwin.GPU;
    } catch (ExceptionInInitializerError e) {
      throw new IllegalStateException(
          e.getCause() != null ? e.getCause().getMessage() : e.toString(), e);
    } catch (NoClassDefFoundError e) {
      throw new IllegalStateException("Metal could not be loaded earlier in this process", e);
    }
  }

  /**
   * Binds the runtime and {@code MTLCreateSystemDefaultDevice} from {@code symbols}.
   *
   * @throws IllegalStateException or IllegalArgumentException when a library or symbol is missing
   */
  static MetalGpu bind(MacSymbols symbols) {
    ObjC objc = ObjC.bind(symbols.objc().get());
    SymbolLookup metal = symbols.metal().get();
    MethodHandle create =
        Linker.nativeLinker()
            .downcallHandle(
                ObjC.find(metal, "MTLCreateSystemDefaultDevice"), FunctionDescriptor.of(ADDRESS));
    return new MetalGpu(objc, create);
  }

  ObjC objc() {
    return objc;
  }

  /**
   * {@code MTLCreateSystemDefaultDevice()}: an owned device (release it) or {@link
   * MemorySegment#NULL}. The kernel parity test on the Mac creates its device here too.
   */
  MemorySegment createSystemDefaultDevice() throws Throwable {
    return (MemorySegment) createDevice.invokeExact();
  }

  /** Asks the default Metal device; any failure becomes {@link GpuReport#none} or a note. */
  GpuReport query() {
    MemorySegment pool = objc.pushPool();
    MemorySegment device = MemorySegment.NULL;
    try {
      device = createSystemDefaultDevice();
      if (device.equals(MemorySegment.NULL)) {
        return GpuReport.none("MTLCreateSystemDefaultDevice returned no device");
      }
      MemorySegment self = device;
      if (!responds(self, "supportsFamily:")) {
        return GpuReport.none(
            "the device does not answer supportsFamily: (macOS 10.15 or later has it)");
      }
      List<String> notes = new ArrayList<>();
      long workingSet = 0;
      if (responds(self, "recommendedMaxWorkingSetSize")) {
        workingSet =
            (long)
                objc.msgSend(UINT64_GETTER)
                    .invokeExact(self, objc.sel("recommendedMaxWorkingSetSize"));
      } else {
        notes.add("Metal: the device does not answer recommendedMaxWorkingSetSize");
      }
      String name = responds(self, "name") ? name(self) : "";
      MethodHandle supports = objc.msgSend(SUPPORTS_FAMILY);
      MemorySegment supportsSel = objc.sel("supportsFamily:");
      GpuReport r =
          GpuReport.from(
                  family -> {
                    try {
                      return (byte) supports.invokeExact(self, supportsSel, (long) family) != 0;
                    } catch (Throwable t) {
                      throw new IllegalStateException("supportsFamily:" + family + " failed", t);
                    }
                  },
                  workingSet)
              .named(name);
      for (String n : notes) {
        r = r.noted(n);
      }
      return r;
    } catch (Throwable t) {
      return GpuReport.none("the device query failed (" + t + ")");
    } finally {
      try {
        objc.release(device);
      } finally {
        objc.popPool(pool);
      }
    }
  }

  private boolean responds(MemorySegment object, String selector) throws Throwable {
    return (byte)
            objc.msgSend(RESPONDS)
                .invokeExact(object, objc.sel("respondsToSelector:"), objc.sel(selector))
        != 0;
  }

  /** {@code [[device name] UTF8String]}: the string is not ours (autoreleased into the pool). */
  private String name(MemorySegment device) throws Throwable {
    MethodHandle get = objc.msgSend(POINTER_GETTER);
    MemorySegment string = (MemorySegment) get.invokeExact(device, objc.sel("name"));
    if (string.equals(MemorySegment.NULL) || !responds(string, "UTF8String")) {
      return "";
    }
    MemorySegment utf8 = (MemorySegment) get.invokeExact(string, objc.sel("UTF8String"));
    if (utf8.equals(MemorySegment.NULL)) {
      return "";
    }
    MemorySegment bytes = utf8.reinterpret(MAX_NAME);
    long end = 0;
    while (end < MAX_NAME && bytes.get(JAVA_BYTE, end) != 0) {
      end++;
    }
    return ChipName.clean(
        new String(
            bytes.asSlice(0, end).toArray(JAVA_BYTE), java.nio.charset.StandardCharsets.UTF_8));
  }
}
