package dev.strata.metal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.strata.metal.objc.ObjC;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The Metal half of the Mac probe, macOS only: {@code MTLCreateSystemDefaultDevice()}, then {@code
 * -supportsFamily:} and {@code -recommendedMaxWorkingSetSize} on it, inside an autorelease pool.
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
  private static final FunctionDescriptor SUPPORTS_FAMILY =
      FunctionDescriptor.of(JAVA_BYTE, ADDRESS, ADDRESS, JAVA_LONG);

  /** {@code @property(readonly) uint64_t recommendedMaxWorkingSetSize}. */
  private static final FunctionDescriptor UINT64_GETTER =
      FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS);

  private MetalGpu() {}

  /** Resolved once per process, on the first query. */
  private static final class Native {
    static final ObjC OBJC = ObjC.runtime();
    static final MethodHandle CREATE_DEVICE = createDevice();

    private static MethodHandle createDevice() {
      ObjC.framework(CORE_GRAPHICS);
      SymbolLookup metal = ObjC.framework(METAL);
      return Linker.nativeLinker()
          .downcallHandle(
              ObjC.find(metal, "MTLCreateSystemDefaultDevice"), FunctionDescriptor.of(ADDRESS));
    }
  }

  /**
   * {@code MTLCreateSystemDefaultDevice()}: an owned device (release it) or {@link
   * MemorySegment#NULL}. Loads CoreGraphics and Metal on first use; the kernel parity test on the
   * Mac creates its device here too.
   */
  static MemorySegment createSystemDefaultDevice() throws Throwable {
    return (MemorySegment) Native.CREATE_DEVICE.invokeExact();
  }

  /** Asks the default Metal device; any failure becomes {@link GpuReport#none}. */
  static GpuReport query() {
    ObjC objc;
    MethodHandle create;
    try {
      objc = Native.OBJC;
      create = Native.CREATE_DEVICE;
    } catch (RuntimeException | LinkageError e) {
      Throwable cause =
          e instanceof ExceptionInInitializerError && e.getCause() != null ? e.getCause() : e;
      return GpuReport.none("cannot load Metal (" + cause.getMessage() + ")");
    }
    MemorySegment pool = objc.pushPool();
    MemorySegment device = MemorySegment.NULL;
    try {
      device = (MemorySegment) create.invokeExact();
      if (device.equals(MemorySegment.NULL)) {
        return GpuReport.none("MTLCreateSystemDefaultDevice returned no device");
      }
      MethodHandle supports = objc.msgSend(SUPPORTS_FAMILY);
      MemorySegment supportsSel = objc.sel("supportsFamily:");
      MemorySegment self = device;
      long workingSet =
          (long)
              objc.msgSend(UINT64_GETTER)
                  .invokeExact(device, objc.sel("recommendedMaxWorkingSetSize"));
      return GpuReport.from(
          family -> {
            try {
              return (byte) supports.invokeExact(self, supportsSel, (long) family) != 0;
            } catch (Throwable t) {
              throw new IllegalStateException("supportsFamily:" + family + " failed", t);
            }
          },
          workingSet);
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
}
