package dev.strata.engine.plan;

import dev.strata.engine.Backend;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvRules;
import java.util.Map;

/**
 * The streaming arena's stand-by slots (the seed's "Arena stand-by slots" disclosure): 576 when
 * prompts run on the matrix-unit prompt-GEMM chain, 64 without it.
 *
 * @param promptGemm whether the prompt-GEMM chain is on
 * @param slots stand-by expert slots the streaming arena keeps
 * @param reason why, for the plan table (names the switch or the hardware fact)
 */
public record StandbySlots(boolean promptGemm, int slots, String reason) {

  /** Stand-by slots with the prompt-GEMM chain on (seed). */
  public static final int WITH_PROMPT_GEMM = 576;

  /** Stand-by slots without it (seed). */
  public static final int WITHOUT_PROMPT_GEMM = 64;

  /** {@code =0} takes prompts off the matrix-unit GEMM chain. */
  public static final String ENV_PROMPT_GEMM = "STRATA_METAL_PROMPT_GEMM";

  /** {@code =window} sends prompts through decode windows (the slow, exact fallback). */
  public static final String ENV_PROMPT = "STRATA_METAL_PROMPT";

  /** The value of {@link #ENV_PROMPT} that forces the window path. */
  public static final String PROMPT_WINDOW = "window";

  /**
   * Decides from the host, the backend and the engine's environment. strata-ref follows the Metal
   * rules so a plan made off the Mac matches the Mac's; the PC engine has no prompt-GEMM chain.
   */
  public static StandbySlots decide(HostFacts host, Backend backend, Map<String, String> env) {
    if (backend == Backend.PC) {
      return new StandbySlots(false, WITHOUT_PROMPT_GEMM, "pc engine: no Metal prompt-GEMM chain");
    }
    String prompt = env.get(ENV_PROMPT);
    if (prompt != null && PROMPT_WINDOW.equals(prompt.strip())) {
      return new StandbySlots(false, WITHOUT_PROMPT_GEMM, ENV_PROMPT + "=window");
    }
    String gemm = env.get(ENV_PROMPT_GEMM);
    // Read as the engine reads its switches (C atoi): set and zero turns the chain off.
    if (gemm != null && !KvRules.kvRotOn(gemm)) {
      return new StandbySlots(false, WITHOUT_PROMPT_GEMM, ENV_PROMPT_GEMM + "=0");
    }
    if (host.k4()) {
      // k4 (Apple10, M5 class) runs prompts on the flash chain, not the GEMM chain.
      return new StandbySlots(false, WITHOUT_PROMPT_GEMM, "k4 host: prompts on the flash chain");
    }
    return new StandbySlots(true, WITH_PROMPT_GEMM, "prompt-GEMM chain on");
  }
}
