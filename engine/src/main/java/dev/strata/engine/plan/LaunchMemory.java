package dev.strata.engine.plan;

import dev.strata.engine.host.AvailableMemory;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.text.ByteSize;
import java.util.ArrayList;
import java.util.List;

/**
 * The plan against the memory available now, at launch (docs/LAUNCH.md "Memory available now",
 * docs/PLAN.md "At launch: the memory available now"). The plan sizes the engine from the machine's
 * memory; other work may hold much of it. The rule:
 *
 * <ul>
 *   <li><b>room</b> = available now − the 1 GiB safety margin ({@link MemoryPlan#SAFETY_MARGIN},
 *       the margin the plan keeps below its budget). Available is Linux's MemAvailable, which
 *       already counts the page cache (the model's own cached pages among it) as reclaimable, so
 *       nothing is added for them: they would be counted twice.
 *   <li><b>held</b> = what the engine allocates ({@link #heldBytes}: dense weights, recurrent
 *       state, drafter, KV pools, stand-by slots, arena, scratch — the plan's items); the
 *       page-cache headroom is not held (the kernel gives page cache back under pressure, so it
 *       never gets a process killed).
 *   <li>held ≤ room: the launch goes ahead as planned.
 *   <li>stream mode with experts: the budget of this launch only is lowered to room + headroom (in
 *       whole MiB, passed as {@code --mem-budget-mb}; the config is not rewritten), so the arena
 *       shrinks until held ≤ room (when that budget would hold every expert, which streams nothing
 *       and keeps no headroom, the largest budget below it that streams); the engine plans from
 *       that flag (engine/native/src/memory.c) and allocates what the lowered plan says. If even
 *       that arena cannot hold one token's experts, refused.
 *   <li>resident mode, or a model without experts: refused.
 * </ul>
 *
 * A refusal names the figures and only remedies that would fit the room now: close other work, or —
 * each checked by planning it — {@code --experts stream}, a smaller {@code --ctx}, {@code --kv
 * q4_0}.
 */
public final class LaunchMemory {
  private LaunchMemory() {}

  /** The verdict; {@link #line()} is what the launch says (a check row's detail). */
  public sealed interface Verdict permits Fits, Lowered, Refused {
    String line();
  }

  /** The plan fits the room now. */
  public record Fits(long heldBytes, String line) implements Verdict {}

  /**
   * The plan fits only with a lower budget: {@code plan} is the plan at {@code budgetMb}, what the
   * engine gets as {@code --mem-budget-mb}.
   */
  public record Lowered(MemoryPlan plan, long budgetMb, String line) implements Verdict {}

  /** Nothing this config can run with fits the room now. */
  public record Refused(String line) implements Verdict {}

  /**
   * What the engine allocates for a plan: dense + recurrent state + drafter + KV + stand-by + arena
   * + scratch (the page-cache headroom and the margin are not allocations).
   */
  public static long heldBytes(MemoryPlan p) {
    return p.denseBytes()
        + p.stateBytes()
        + p.drafterBytes()
        + p.kv().bytes()
        + p.standbyBytes()
        + p.arena().bytes()
        + p.scratchBytes();
  }

  /**
   * The verdict for {@code plan}, planned from {@code request}, against {@code now}.
   *
   * @param plan {@code MemoryPlan.compute(request)}, a plan that fits its budget
   */
  public static Verdict decide(PlanRequest request, MemoryPlan plan, AvailableMemory now) {
    long room = Math.max(0, now.availableBytes() - MemoryPlan.SAFETY_MARGIN);
    long held = heldBytes(plan);
    String figures =
        "memory: "
            + ByteSize.iec(now.availableBytes())
            + " available of "
            + ByteSize.iec(now.totalBytes())
            + " (other processes hold "
            + ByteSize.iec(now.heldElsewhereBytes())
            + ")";
    if (held <= room) {
      return new Fits(
          held,
          figures
              + "; this launch holds "
              + ByteSize.iec(held)
              + ", leaving the "
              + ByteSize.iec(MemoryPlan.SAFETY_MARGIN)
              + " margin free");
    }
    String shortOf =
        figures + ", less the " + ByteSize.iec(MemoryPlan.SAFETY_MARGIN) + " margin, is short of ";
    MemoryPlan lowered = lowered(request, plan, room);
    if (lowered != null) {
      long mb = lowered.budgetBytes() / UsableMemory.MIB;
      ExpertArena a = lowered.arena();
      return new Lowered(
          lowered,
          mb,
          shortOf
              + "the "
              + ByteSize.iec(held)
              + " this plan holds: this launch's budget is lowered to "
              + ByteSize.iec(lowered.budgetBytes())
              + " ("
              + "--mem-budget-mb "
              + mb
              + "; the config is unchanged), the expert arena to "
              + a.slots()
              + " of "
              + a.modelSlots()
              + " slots; the engine holds "
              + ByteSize.iec(heldBytes(lowered)));
    }
    boolean stream = request.experts() == ExpertsMode.STREAM && plan.arena().modelSlots() > 0;
    MemoryPlan least = stream ? smallest(request, plan) : plan;
    long need = heldBytes(least);
    String what =
        stream && least.arena().holdsEveryExpert()
            // a budget that streams keeps the page-cache headroom: more than these experts weigh
            ? " this launch holds (its arena holds every expert: no smaller arena streams)"
            : stream
                ? " this launch holds with the smallest expert arena (one token's experts)"
                : request.experts() == ExpertsMode.RESIDENT && plan.arena().modelSlots() > 0
                    ? " this plan holds (experts resident)"
                    : " this plan holds";
    return new Refused(
        shortOf + "the " + ByteSize.iec(need) + what + ": " + remedies(request, plan, room));
  }

  /**
   * The plan of this launch within {@code room}: {@code plan} itself when it holds no more, the
   * plan at a lower budget in stream mode, or null.
   */
  static MemoryPlan within(PlanRequest request, MemoryPlan plan, long room) {
    if (plan.fits() && heldBytes(plan) <= room) {
      return plan;
    }
    return lowered(request, plan, room);
  }

  /**
   * Stream mode: the plan at budget room + page-cache headroom (whole MiB) — or, when that budget
   * would hold every expert, the largest budget that streams — when it fits and holds at most
   * {@code room}; else null.
   */
  private static MemoryPlan lowered(PlanRequest request, MemoryPlan plan, long room) {
    if (request.experts() != ExpertsMode.STREAM || plan.arena().modelSlots() == 0) {
      return null;
    }
    long mb =
        (room + StreamSizing.pageCacheHeadroom(plan.memory().totalBytes())) / UsableMemory.MIB;
    if (mb <= 0 || mb * UsableMemory.MIB >= plan.budgetBytes()) {
      return null;
    }
    MemoryPlan p = MemoryPlan.compute(request.withMemBudgetMb(mb));
    if (p.arena().holdsEveryExpert() && heldBytes(p) > room) {
      // A budget that holds every expert streams nothing and keeps no headroom (the plan's rule):
      // the largest budget below that streams, and its arena is every expert less the headroom.
      long every = heldBytes(p);
      long below = Math.ceilDiv(every, UsableMemory.MIB) - 1;
      if (below <= 0 || below >= mb) {
        return null;
      }
      mb = below;
      p = MemoryPlan.compute(request.withMemBudgetMb(mb));
    }
    return p.fits() && heldBytes(p) <= room ? p : null;
  }

  /** Stream mode: the plan whose arena holds one token's experts (the least it can run with). */
  private static MemoryPlan smallest(PlanRequest request, MemoryPlan plan) {
    long fixed =
        MemoryPlan.streamingFixedBytes(plan, request.model(), request.env(), request.host());
    long bytes = fixed + plan.arena().tokenSlots() * plan.arena().slotBytes();
    long mb = Math.ceilDiv(bytes, UsableMemory.MIB);
    if (mb * UsableMemory.MIB >= plan.budgetBytes()) {
      return plan;
    }
    MemoryPlan p = MemoryPlan.compute(request.withMemBudgetMb(mb));
    return p.fits() ? p : plan;
  }

  /** "close other work", and each change of the config that would fit {@code room}. */
  private static String remedies(PlanRequest request, MemoryPlan plan, long room) {
    List<String> changes = new ArrayList<>();
    if (request.experts() == ExpertsMode.RESIDENT
        && plan.arena().modelSlots() > 0
        && workable(request.withExperts(ExpertsMode.STREAM), room)) {
      changes.add("--experts stream");
    }
    for (long c = request.context() / 2; c >= 256; c /= 2) {
      if (workable(request.withContext(c), room)) {
        changes.add("--ctx " + c);
        break;
      }
    }
    if (request.pools() != KvFormat.Q4_0 && workable(request.withPools(KvFormat.Q4_0), room)) {
      changes.add("--kv q4_0");
    }
    // --parallel N: fewer sequences, fewer pools (a launch flag of --serve, not the config's)
    String fewer = "";
    for (int m = request.parallel() - 1; m >= 1; m--) {
      if (workable(request.withParallel(m), room)) {
        fewer = ", or serve with --parallel " + m;
        break;
      }
    }
    if (changes.isEmpty()) {
      return "close other work" + fewer;
    }
    String last = changes.removeLast();
    return "close other work"
        + fewer
        + ", or rerun strata-setup with "
        + (changes.isEmpty() ? last : String.join(", ", changes) + " or " + last);
  }

  private static boolean workable(PlanRequest r, long room) {
    try {
      MemoryPlan p = MemoryPlan.compute(r);
      return p.fits() && within(r, p, room) != null;
    } catch (IllegalArgumentException e) {
      return false; // pools this backend or model never allocates
    }
  }
}
