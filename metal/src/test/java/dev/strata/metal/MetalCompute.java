package dev.strata.metal;

import dev.strata.metal.objc.ObjC;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The few Metal calls the kernel parity test needs, through {@link ObjC} (the runtime binding the
 * probe uses) and FFM. macOS only (loaded lazily by the Mac-only test). Every objc_msgSend is bound
 * with the exact C signature of the method it calls: objc_msgSend is not variadic on arm64, so a
 * variadic binding would pass arguments in the wrong registers.
 */
@SuppressWarnings("restricted") // reinterpret of the pointers Metal hands back
final class MetalCompute implements AutoCloseable {

  private static final ValueLayout.OfLong NSUINT = ValueLayout.JAVA_LONG;
  private static final AddressLayout ID = ValueLayout.ADDRESS;

  /** Loaded for NSString, which the compile calls take their source and names in. */
  static final String FOUNDATION = "/System/Library/Frameworks/Foundation.framework/Foundation";

  /** MTLDataTypeBool. */
  static final long MTL_DATA_TYPE_BOOL = 53;

  /** MTLSize {width, height, depth}: three NSUIntegers, passed by value. */
  private static final MemoryLayout MTL_SIZE =
      MemoryLayout.structLayout(
          NSUINT.withName("width"), NSUINT.withName("height"), NSUINT.withName("depth"));

  private final ObjC objc = ObjC.runtime();
  private final Arena arena = Arena.ofConfined();
  private final MemorySegment pool;
  private final MemorySegment device;
  private final MemorySegment queue;

  MetalCompute() throws Throwable {
    ObjC.framework(FOUNDATION);
    pool = objc.pushPool();
    // MetalGpu loads CoreGraphics before Metal: without it a command-line process gets no device
    device = MetalGpu.darwin().createSystemDefaultDevice();
    if (device.equals(MemorySegment.NULL)) {
      throw new IllegalStateException("MTLCreateSystemDefaultDevice returned nil");
    }
    queue = call(device, "newCommandQueue");
  }

  private MethodHandle send(FunctionDescriptor fd) {
    return objc.msgSend(fd);
  }

  private MemorySegment sel(String name) {
    return objc.sel(name);
  }

  private MemorySegment cls(String name) {
    return objc.cls(name);
  }

  /** id f(id self, SEL) */
  private MemorySegment call(MemorySegment self, String selector) throws Throwable {
    return (MemorySegment) send(FunctionDescriptor.of(ID, ID, ID)).invokeExact(self, sel(selector));
  }

  private void callVoid(MemorySegment self, String selector) throws Throwable {
    send(FunctionDescriptor.ofVoid(ID, ID)).invokeExact(self, sel(selector));
  }

  private MemorySegment nsString(String s) throws Throwable {
    return (MemorySegment)
        send(FunctionDescriptor.of(ID, ID, ID, ID))
            .invokeExact(cls("NSString"), sel("stringWithUTF8String:"), arena.allocateFrom(s));
  }

  private String describe(MemorySegment errSlot) throws Throwable {
    MemorySegment err = errSlot.get(ID, 0);
    if (err.equals(MemorySegment.NULL)) {
      return "(no NSError)";
    }
    MemorySegment text = call(call(err, "localizedDescription"), "UTF8String");
    return text.reinterpret(Long.MAX_VALUE).getString(0);
  }

  /** Compiles source with fast math off (so the kernels round like the reference). */
  MemorySegment library(String source) throws Throwable {
    MemorySegment opts = call(call(cls("MTLCompileOptions"), "alloc"), "init");
    send(FunctionDescriptor.ofVoid(ID, ID, ValueLayout.JAVA_BOOLEAN))
        .invokeExact(opts, sel("setFastMathEnabled:"), false);
    return sendOrFail(
        device,
        "newLibraryWithSource:options:error:",
        nsString(source),
        opts,
        "newLibraryWithSource");
  }

  /**
   * {@code [receiver selector a b error:&err]} for a two-argument selector ending in {@code
   * error:}: the object it returns, or an IllegalStateException "{@code what} failed: NSError".
   */
  private MemorySegment sendOrFail(
      MemorySegment receiver, String selector, MemorySegment a, MemorySegment b, String what)
      throws Throwable {
    MemorySegment err = arena.allocate(ID);
    MemorySegment made =
        (MemorySegment)
            send(FunctionDescriptor.of(ID, ID, ID, ID, ID, ID))
                .invokeExact(receiver, sel(selector), a, b, err);
    if (made.equals(MemorySegment.NULL)) {
      throw new IllegalStateException(what + " failed: " + describe(err));
    }
    return made;
  }

  /** A pipeline for function name with function constant 25 (kv_q4) bound to q4. */
  MemorySegment pipeline(MemorySegment library, String name, boolean q4) throws Throwable {
    MemorySegment values = call(call(cls("MTLFunctionConstantValues"), "alloc"), "init");
    MemorySegment flag = arena.allocate(ValueLayout.JAVA_BYTE);
    flag.set(ValueLayout.JAVA_BYTE, 0, (byte) (q4 ? 1 : 0));
    send(FunctionDescriptor.ofVoid(ID, ID, ID, NSUINT, NSUINT))
        .invokeExact(values, sel("setConstantValue:type:atIndex:"), flag, MTL_DATA_TYPE_BOOL, 25L);
    MemorySegment fn =
        sendOrFail(
            library,
            "newFunctionWithName:constantValues:error:",
            nsString(name),
            values,
            name + ": newFunctionWithName");
    MemorySegment err = arena.allocate(ID);
    MemorySegment pso =
        (MemorySegment)
            send(FunctionDescriptor.of(ID, ID, ID, ID, ID))
                .invokeExact(device, sel("newComputePipelineStateWithFunction:error:"), fn, err);
    if (pso.equals(MemorySegment.NULL)) {
      throw new IllegalStateException(name + ": pipeline failed: " + describe(err));
    }
    return pso;
  }

  /** A shared-storage buffer holding a copy of bytes. */
  MemorySegment buffer(byte[] bytes) throws Throwable {
    MemorySegment src = arena.allocate(Math.max(1, bytes.length));
    MemorySegment.copy(bytes, 0, src, ValueLayout.JAVA_BYTE, 0, bytes.length);
    return (MemorySegment)
        send(FunctionDescriptor.of(ID, ID, ID, ID, NSUINT, NSUINT))
            .invokeExact(
                device, sel("newBufferWithBytes:length:options:"), src, (long) bytes.length, 0L);
  }

  byte[] contents(MemorySegment buffer, int length) throws Throwable {
    MemorySegment p = call(buffer, "contents").reinterpret(length);
    return p.toArray(ValueLayout.JAVA_BYTE);
  }

  /** Runs the pipeline over n threads with buffers 0..2 bound, and waits. */
  void dispatch(MemorySegment pso, long n, MemorySegment... buffers) throws Throwable {
    MemorySegment cb = call(queue, "commandBuffer");
    MemorySegment enc = call(cb, "computeCommandEncoder");
    send(FunctionDescriptor.ofVoid(ID, ID, ID))
        .invokeExact(enc, sel("setComputePipelineState:"), pso);
    MethodHandle setBuffer = send(FunctionDescriptor.ofVoid(ID, ID, ID, NSUINT, NSUINT));
    for (int i = 0; i < buffers.length; i++) {
      setBuffer.invokeExact(enc, sel("setBuffer:offset:atIndex:"), buffers[i], 0L, (long) i);
    }
    long maxThreads =
        (long)
            send(FunctionDescriptor.of(NSUINT, ID, ID))
                .invokeExact(pso, sel("maxTotalThreadsPerThreadgroup"));
    MemorySegment grid = arena.allocate(MTL_SIZE);
    grid.setAtIndex(NSUINT, 0, n);
    grid.setAtIndex(NSUINT, 1, 1L);
    grid.setAtIndex(NSUINT, 2, 1L);
    MemorySegment group = arena.allocate(MTL_SIZE);
    group.setAtIndex(NSUINT, 0, Math.min(64L, maxThreads));
    group.setAtIndex(NSUINT, 1, 1L);
    group.setAtIndex(NSUINT, 2, 1L);
    send(FunctionDescriptor.ofVoid(ID, ID, MTL_SIZE, MTL_SIZE))
        .invokeExact(enc, sel("dispatchThreads:threadsPerThreadgroup:"), grid, group);
    callVoid(enc, "endEncoding");
    callVoid(cb, "commit");
    callVoid(cb, "waitUntilCompleted");
  }

  @Override
  public void close() {
    try {
      objc.popPool(pool);
    } finally {
      arena.close();
    }
  }
}
