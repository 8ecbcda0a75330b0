package dev.strata.metal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.testsupport.RepoRoot;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The same kv_kernels.metal the C++ build uses, compiled by Metal at run time and run on the GPU
 * over the shared vectors; compared with the Java reference's records under the C++ harness's
 * rules. Never run on this project's Linux machines (docs/KERNELS.md says so).
 */
@EnabledOnOs(OS.MAC)
class KernelParityMacTest {

  @Test
  void metalKernelsMatchTheReference() throws Throwable {
    Path root = RepoRoot.path();
    String source = Files.readString(root.resolve("kernels/src/main/metal/kv_kernels.metal"));
    KernelVectorFiles v = new KernelVectorFiles(KernelVectorFiles.defaultDir());
    byte[] params =
        ByteBuffer.allocate(8)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putInt(v.cases)
            .putInt(KernelVectorFiles.DIM)
            .array();
    try (MetalCompute mtl = new MetalCompute()) {
      MemorySegment lib = mtl.library(source);
      MemorySegment paramBuf = mtl.buffer(params);
      MemorySegment inBuf = mtl.buffer(KernelVectorFiles.bytes(v.input));
      String[][] runs = {
        {"fp16", "kv_encode_f16", "kv_decode_f16", "0"},
        {"int8", "kv_encode", "kv_decode", "0"},
        {"q4_0", "kv_encode", "kv_decode", "1"}
      };
      for (String[] run : runs) {
        String label = run[0];
        boolean q4 = run[3].equals("1");
        byte[] want = v.records(label);
        MemorySegment recBuf = mtl.buffer(new byte[want.length]);
        mtl.dispatch(mtl.pipeline(lib, run[1], q4), v.cases, inBuf, recBuf, paramBuf);
        KernelVectorFiles.Result r =
            v.compareRecords(label, mtl.contents(recBuf, want.length), want);
        System.out.printf(
            "metal %s: %d codes, %d differ at a near-tie%n", label, r.codes(), r.tieDifferences());
        assertTrue(r.passes(), label + " encode: " + r);

        MemorySegment wantBuf = mtl.buffer(want);
        MemorySegment decBuf = mtl.buffer(new byte[4 * v.input.length]);
        mtl.dispatch(mtl.pipeline(lib, run[2], q4), v.cases, wantBuf, decBuf, paramBuf);
        float[] dec = KernelVectorFiles.floats(mtl.contents(decBuf, 4 * v.input.length));
        assertEquals(0, v.compareDecoded(dec, v.decoded(label)), label + " decode");
      }
    }
  }
}
