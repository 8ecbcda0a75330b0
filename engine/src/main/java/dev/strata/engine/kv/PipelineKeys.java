package dev.strata.engine.kv;

import dev.strata.engine.Keywords;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Pipeline keys of the Metal engine's kernel dispatch sites (the seed's {@code kv_format.h}).
 *
 * <p>A compute pipeline is a function specialized by its function constants; the engine caches
 * pipelines by key. Every constant a site binds must therefore be in its key, or a run with other
 * values silently reuses a pipeline specialized for the old ones — the seed's stale-key bug: a q4_0
 * run reusing the int8 specializations over q4 pools. The five QSA sites and the KV kernels bind
 * function constant 25 ({@code kv_q4}); the two prompt-chain sites also bind 7 (the k4 right-input
 * layouts of M5-class GPUs).
 *
 * <p>Key text: the function name, then {@code #fc<index>=<value>} for every bound constant that is
 * not 0, in index order. So with q4_0 off (and k4 off) every key is the function name alone — byte
 * for byte the key the engine used before q4_0 existed (the "five-key" check pins this) — and a
 * q4_0 run gets keys of its own.
 */
public final class PipelineKeys {

  /** Function constants the sites bind (index as in the .metal sources). */
  public enum FunctionConstant {
    /** The k4 right-input layouts (MTLGPUFamilyApple10 hardware) of the prompt chains. */
    COOP_K4(7),
    /** q4_0 pools: rotate Q, dequantize q4 blocks, rotate the output back. */
    KV_Q4(25);

    private final int index;

    FunctionConstant(int index) {
      this.index = index;
    }

    public int index() {
      return index;
    }

    /** The constant's name in the .metal source: the constant's name in lower case. */
    public String mslName() {
      return Keywords.lower(this);
    }
  }

  /** The chain a site belongs to. */
  public enum Chain {
    DECODE,
    PROMPT,
    KV_KERNELS
  }

  /** Every kernel dispatch site that reads the KV pools, with the constants it binds. */
  public enum Site {
    /** Decode chain: append the new token's K/V to the pools (encode into the pool format). */
    DECODE_KV_APPEND("qsa_kv_append", Chain.DECODE, FunctionConstant.KV_Q4),
    /** Decode chain: attention of one token over the pools. */
    DECODE_ATTENTION("qsa_decode_attn", Chain.DECODE, FunctionConstant.KV_Q4),
    /** Prompt chain: append a chunk of prompt K/V to the pools. */
    PROMPT_KV_APPEND("qsa_prompt_kv_append", Chain.PROMPT, FunctionConstant.KV_Q4),
    /** Prompt chain: the matrix-unit GEMM attention. */
    PROMPT_GEMM("qsa_prompt_gemm", Chain.PROMPT, FunctionConstant.COOP_K4, FunctionConstant.KV_Q4),
    /** Prompt chain: the flash attention chain. */
    PROMPT_FLASH(
        "qsa_prompt_flash", Chain.PROMPT, FunctionConstant.COOP_K4, FunctionConstant.KV_Q4),
    /** kernels/src/main/metal/kv_kernels.metal: encode vector records. */
    KV_ENCODE("kv_encode", Chain.KV_KERNELS, FunctionConstant.KV_Q4),
    /** kernels/src/main/metal/kv_kernels.metal: decode vector records. */
    KV_DECODE("kv_decode", Chain.KV_KERNELS, FunctionConstant.KV_Q4);

    private final String function;
    private final Chain chain;
    private final List<FunctionConstant> binds;

    Site(String function, Chain chain, FunctionConstant... binds) {
      this.function = function;
      this.chain = chain;
      this.binds = List.of(binds);
    }

    public String function() {
      return function;
    }

    public Chain chain() {
      return chain;
    }

    /** The function constants this site binds, in index order. */
    public List<FunctionConstant> binds() {
      return binds;
    }

    /** Whether this is one of the five QSA sites of the decode and prompt chains. */
    public boolean qsa() {
      return chain != Chain.KV_KERNELS;
    }
  }

  /**
   * One specialization: the site and the value of every constant it binds (the Constants set the
   * host hands to {@code newFunctionWithName:constantValues:error:}).
   */
  public record Key(Site site, Map<Integer, Integer> constants) {
    public Key {
      constants = Collections.unmodifiableMap(new TreeMap<>(constants));
    }

    /** The cache key text. */
    public String text() {
      StringBuilder sb = new StringBuilder(site.function());
      constants.forEach(
          (index, value) -> {
            if (value != 0) {
              sb.append("#fc").append(index).append('=').append(value);
            }
          });
      return sb.toString();
    }
  }

  private PipelineKeys() {}

  /**
   * The key of a site for the pools' format and the GPU.
   *
   * @param pools the format the pools are allocated in (fp16 runs on int8 pools on Metal)
   * @param k4 the GPU supports the k4 layouts (docs/PROBE.md's host fact)
   */
  public static Key key(Site site, KvFormat pools, boolean k4) {
    if (pools == KvFormat.K8V4) {
      throw new IllegalArgumentException("k8v4 has no pools on Metal: " + KvRules.K8V4_REFUSAL);
    }
    Map<Integer, Integer> values = new TreeMap<>();
    for (FunctionConstant fc : site.binds()) {
      int v =
          switch (fc) {
            case KV_Q4 -> pools == KvFormat.Q4_0 ? 1 : 0;
            case COOP_K4 -> k4 ? 1 : 0;
          };
      values.put(fc.index(), v);
    }
    return new Key(site, values);
  }

  /** Keys of every site, in site order. */
  public static List<Key> keys(KvFormat pools, boolean k4) {
    List<Key> out = new ArrayList<>();
    for (Site s : Site.values()) {
      out.add(key(s, pools, k4));
    }
    return List.copyOf(out);
  }

  /** Keys of the five QSA sites. */
  public static List<Key> qsaKeys(KvFormat pools, boolean k4) {
    return keys(pools, k4).stream().filter(k -> k.site().qsa()).toList();
  }
}
