package dev.strata.engine.plan;

import dev.strata.engine.Backend;
import dev.strata.engine.host.HostFacts;

/**
 * How much of the machine's memory the engine may plan with, before the safety margin
 * (docs/PLAN.md, "Usable memory").
 *
 * @param totalBytes physical (unified) memory of the host
 * @param usableBytes what the engine may use
 * @param rule which rule gave {@code usableBytes}
 */
public record UsableMemory(long totalBytes, long usableBytes, Rule rule) {

  /** 1 GiB. */
  public static final long GIB = 1L << 30;

  /** 1 MiB: the unit of {@code iogpu.wired_limit_mb}. */
  public static final long MIB = 1L << 20;

  /**
   * Up to this much memory macOS's default GPU working set is 2/3 of RAM, above it 3/4 (the 16 and
   * 32 GiB reports give exactly 2/3, the 48/64/96 GiB ones exactly 3/4; see docs/PLAN.md).
   */
  public static final long TWO_THIRDS_UP_TO = 36 * GIB;

  /** The rules, in the order they are tried. */
  public enum Rule {
    /** {@code iogpu.wired_limit_mb} is set: the GPU may wire exactly that much. */
    WIRED_LIMIT("iogpu.wired_limit_mb"),
    /** macOS default GPU working set on Macs of at most 36 GiB. */
    TWO_THIRDS("macOS GPU working set: 2/3 of memory (<= 36 GiB)"),
    /** macOS default GPU working set on Macs of more than 36 GiB. */
    THREE_QUARTERS("macOS GPU working set: 3/4 of memory (> 36 GiB)"),
    /** Linux, or the CPU reference engine: no GPU wiring limit. */
    WHOLE_MEMORY("whole memory (no GPU working-set limit)");

    private final String text;

    Rule(String text) {
      this.text = text;
    }

    /** One line for the plan table. */
    public String text() {
      return text;
    }
  }

  public UsableMemory {
    if (totalBytes < 0 || usableBytes < 0 || usableBytes > totalBytes) {
      throw new IllegalArgumentException(
          "usable memory must be within 0.." + totalBytes + ", got " + usableBytes);
    }
  }

  /**
   * Applies the rules. Only the Metal engine on a Mac is bound by the GPU working set: strata-ref
   * (cpu-reference) runs on the CPU even on a Mac, and the PC engine is not on a Mac.
   */
  public static UsableMemory of(HostFacts host, Backend backend) {
    long total = host.memoryBytes();
    if (total <= 0) {
      throw new IllegalArgumentException("host memory_bytes must be positive, got " + total);
    }
    if (backend != Backend.METAL || !host.isMac()) {
      return new UsableMemory(total, total, Rule.WHOLE_MEMORY);
    }
    if (host.wiredLimitMb() > 0) {
      // The sysctl cannot make more memory than the machine has; a larger value is capped.
      long wired =
          host.wiredLimitMb() >= total / MIB ? total : Math.multiplyExact(host.wiredLimitMb(), MIB);
      return new UsableMemory(total, wired, Rule.WIRED_LIMIT);
    }
    if (total <= TWO_THIRDS_UP_TO) {
      // total * 2 cannot overflow below 36 GiB
      return new UsableMemory(total, total * 2 / 3, Rule.TWO_THIRDS);
    }
    // total / 4 * 3 + the remainder's share keeps the exact floor without overflowing
    return new UsableMemory(total, total / 4 * 3 + (total % 4) * 3 / 4, Rule.THREE_QUARTERS);
  }
}
