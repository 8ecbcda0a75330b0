package dev.strata.engine.model;

import java.util.List;

/**
 * One tensor info of a GGUF file: where its data would be, never the data.
 *
 * @param name e.g. "blk.3.attn_k.weight"
 * @param type ggml type
 * @param dims shape in ggml order (dims[0] is the row), 0 to 4 dimensions
 * @param offset offset of the data from the start of the file's data section
 * @param bytes bytes of the data, from the type and the shape
 */
public record GgufTensor(String name, GgmlType type, List<Long> dims, long offset, long bytes) {
  public GgufTensor {
    dims = List.copyOf(dims);
  }
}
