package dev.strata.engine.plan;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.strata.engine.text.ByteSize;
import dev.strata.engine.text.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders a {@link MemoryPlan} as a plain-text table and as JSON. Both are pure and deterministic
 * (fixed locale, fixed key order, ASCII only), so they can be pinned by golden files.
 */
public final class PlanText {
  private PlanText() {}

  private record Row(String item, long bytes, String detail) {}

  /**
   * What each row of {@link #table} means, in table order: the glossary {@code strata-launch --plan
   * --explain} prints and docs/PLAN.md repeats. A test checks that every row the table can show has
   * an entry here.
   */
  public static final java.util.Map<String, String> GLOSSARY = glossary();

  private static java.util.Map<String, String> glossary() {
    java.util.Map<String, String> g = new java.util.LinkedHashMap<>();
    g.put("host memory", "the machine's physical memory (the probe's memory_bytes)");
    g.put(
        "usable by the engine",
        "what the GPU may wire on this machine: macOS's working-set share (2/3 up to 36 GiB,"
            + " else 3/4), or iogpu.wired_limit_mb when raised; all of it off the Mac");
    g.put(
        "safety margin",
        "1 GiB kept out of the plan so the system never runs the engine to the last byte");
    g.put("budget", "usable minus the margin: everything below must fit in it");
    g.put("dense weights", "every tensor that is not an expert (attention, norms, embeddings)");
    g.put("recurrent state", "the state of the recurrent (linear-attention) layers, per sequence");
    g.put("MTP drafter", "the multi-token-prediction drafter's weights, when --spec uses it");
    g.put(
        "KV pools",
        "the KV cache of the QSA (full-attention) layers: (context + 128) cells per layer, each"
            + " cell one token's K and V; --kv q4_0 makes cells 576 instead of 1,056 B");
    g.put(
        "prompt-GEMM stand-by",
        "expert slots kept ready for the prompt's batched matrix multiply (GEMM), so prompt"
            + " processing does not wait on the SSD");
    g.put(
        "page-cache headroom",
        "memory left to the OS file cache that streamed experts are read through (stream mode)");
    g.put(
        "expert arena",
        "memory holding experts: in stream mode the hot ones, read from the SSD on demand, in"
            + " resident mode all of them");
    g.put("engine scratch", "the engine's own working buffers");
    g.put(
        "free",
        "budget nothing is planned for. In stream mode the arena takes what is left on purpose,"
            + " so a small figure here is not a shortage");
    return java.util.Collections.unmodifiableMap(g);
  }

  /** The glossary as lines: {@code name meaning}, wrapped to {@code width} columns. */
  public static String glossaryText(int width) {
    int w = 0;
    for (String k : GLOSSARY.keySet()) {
      w = Math.max(w, k.length());
    }
    StringBuilder b = new StringBuilder("plan rows:\n");
    for (var e : GLOSSARY.entrySet()) {
      b.append(
          hanging(String.format(Locale.ROOT, "  %-" + w + "s  ", e.getKey()), e.getValue(), width));
    }
    return b.toString();
  }

  /** {@code prefix + text}, the text wrapped at spaces to {@code width}, aligned under itself. */
  private static String hanging(String prefix, String text, int width) {
    int room = width - prefix.length();
    if (room < 20) {
      if (width == Integer.MAX_VALUE || width - 4 < 20 || (prefix + text).length() <= width) {
        return (prefix + text).stripTrailing() + "\n";
      }
      // too narrow beside its column: the text on lines of its own, indented
      return prefix.stripTrailing() + "\n" + hanging("    ", text, width);
    }
    StringBuilder out = new StringBuilder(prefix);
    int col = 0;
    for (String word : text.split(" ")) {
      if (col > 0 && col + 1 + word.length() > room) {
        out.append('\n').append(" ".repeat(prefix.length()));
        col = 0;
      } else if (col > 0) {
        out.append(' ');
        col++;
      }
      out.append(word);
      col += word.length();
    }
    return out.toString().stripTrailing() + "\n";
  }

  /**
   * Where the budget comes from: usable − margin, or {@code --mem-budget-mb} when that set it lower
   * (one above is capped to usable − margin, and the plan's notes say so).
   */
  static String budgetSource(MemoryPlan p) {
    long own = MemoryPlan.budget(p.memory(), 0);
    return p.budgetBytes() < own
        ? "--mem-budget-mb " + p.budgetBytes() / UsableMemory.MIB + " (below usable - margin)"
        : "usable - margin";
  }

  /** The plan as an aligned table, unwrapped (see {@link #table(MemoryPlan, int)}). */
  public static String table(MemoryPlan p) {
    return table(p, Integer.MAX_VALUE);
  }

  /**
   * The plan as an aligned table: one line per item, then the result and the notes. A detail longer
   * than {@code width} columns wraps at spaces under its own column; notes wrap under their text.
   */
  public static String table(MemoryPlan p, int width) {
    List<Row> rows = new ArrayList<>();
    UsableMemory m = p.memory();
    rows.add(new Row("host memory", m.totalBytes(), ""));
    rows.add(new Row("usable by the engine", m.usableBytes(), m.rule().text()));
    rows.add(
        new Row("safety margin", p.marginBytes(), "kept free (llama.cpp --fit-target default)"));
    rows.add(new Row("budget", p.budgetBytes(), budgetSource(p)));
    rows.add(new Row("dense weights", p.denseBytes(), "every non-expert tensor"));
    rows.add(
        new Row(
            "recurrent state",
            p.stateBytes(),
            p.stateBytes() > 0 ? "one sequence, f32 (docs/MODELS.md)" : "no recurrent layer"));
    if (p.drafterBytes() > 0) {
      rows.add(new Row("MTP drafter", p.drafterBytes(), "drafter weights (--spec > 0)"));
    }
    KvPools kv = p.kv();
    rows.add(
        new Row(
            "KV pools",
            kv.bytes(),
            kv.format().flagName()
                + ": "
                + Units.count(kv.cells())
                + " cells x "
                + Units.count(kv.cellBytes())
                + " B x "
                + kv.layers()
                + " QSA layers"
                + (kv.swaLayers() > 0
                    ? " + "
                        + Units.count(kv.swaCells())
                        + " cells x "
                        + kv.swaLayers()
                        + " sliding-window layers"
                    : "")
                + (kv.drafterLayers() > 0
                    ? " + " + kv.drafterLayers() + " MTP drafter layer(s) of full cells"
                    : "")));
    ExpertArena a = p.arena();
    StandbySlots s = p.standby();
    rows.add(
        new Row(
            "prompt-GEMM stand-by",
            p.standbyBytes(),
            slots(Units.count(s.slots()), a) + " (" + s.reason() + ")"));
    rows.add(
        new Row(
            "page-cache headroom",
            p.pageCacheHeadroomBytes(),
            p.experts() != dev.strata.engine.model.ExpertsMode.STREAM
                ? "resident experts: nothing streams"
                : p.pageCacheHeadroomBytes() > 0
                    ? "max(2 GiB, memory / 8)"
                    : s.reason().startsWith(StreamSizing.ENV_BARE)
                        ? s.reason()
                        : "the arena holds every expert: nothing streams"));
    rows.add(
        new Row(
            "expert arena",
            a.bytes(),
            slots(Units.count(a.slots()) + " of " + Units.count(a.modelSlots()), a)
                + "; one token uses "
                + Units.count(a.tokenSlots())));
    if (p.scratchBytes() > 0) {
      rows.add(new Row("engine scratch", p.scratchBytes(), "strata-ref's working buffers"));
    }
    rows.add(
        new Row(
            "free",
            p.freeBytes(),
            p.experts() == dev.strata.engine.model.ExpertsMode.STREAM && !a.holdsEveryExpert()
                ? "less than one expert slot: the arena takes the rest of the budget on purpose"
                : "budget nothing is planned for: left to the rest of the system"));

    int wItem = "item".length();
    int wGib = "GiB".length();
    int wBytes = "bytes".length();
    for (Row r : rows) {
      wItem = Math.max(wItem, r.item().length());
      wGib = Math.max(wGib, ByteSize.gib(r.bytes()).length());
      wBytes = Math.max(wBytes, Units.count(r.bytes()).length());
    }
    String fmt = "  %-" + wItem + "s  %" + wGib + "s  %" + wBytes + "s  %s";
    StringBuilder out = new StringBuilder();
    out.append(
        hanging(
            "memory plan: ",
            p.backend().id()
                + ", experts "
                + p.experts().id()
                + ", context "
                + p.context()
                + ", KV "
                + kv.format().flagName(),
            width));
    out.append(String.format(Locale.ROOT, fmt, "item", "GiB", "bytes", "detail").stripTrailing())
        .append('\n');
    for (Row r : rows) {
      String prefix =
          String.format(
              Locale.ROOT, fmt, r.item(), ByteSize.gib(r.bytes()), Units.count(r.bytes()), "");
      out.append(hanging(prefix, r.detail(), width));
    }
    if (p.fits()) {
      out.append("result: fits\n");
    } else {
      out.append(hanging("result: does not fit: ", p.refusal(), width));
    }
    if (p.reads() != null) {
      out.append(hanging("expected reads: ", readsText(p.reads()), width));
    }
    if (!p.notes().isEmpty()) {
      out.append("notes:\n");
      for (String n : p.notes()) {
        out.append(hanging("  - ", n, width));
      }
    }
    return out.toString();
  }

  /**
   * The expected reads as the table says them: bytes per decoded token (IEC and exact), misses of
   * lookups, the policy and the basis.
   */
  public static String readsText(ExpectedReads r) {
    if (r.basis() == ExpectedReads.Basis.EVERY_EXPERT) {
      return "0 B per decoded token (the arena holds every expert)";
    }
    return ByteSize.iec(r.bytesPerToken())
        + " ("
        + Units.count(r.bytesPerToken())
        + " B) per decoded token: "
        + String.format(Locale.ROOT, "%.2f", r.missesPerToken())
        + " of "
        + r.lookupsPerToken()
        + " expert lookups miss ("
        + r.policy()
        + ", "
        + switch (r.basis()) {
          case UNIFORM -> "uniform routing: every expert equally likely";
          case PROFILE -> "the routing recorded in " + r.source() + " replayed";
          case EVERY_EXPERT -> "";
        }
        + ")";
  }

  /**
   * What the engine holds, one {@code item=NAME bytes=N} per item of more than 0 bytes, in the
   * engine's order: weights (the dense tensors, mapped read-only from the shards), kv, ssm_state,
   * standby, arena, scratch. strata-ref logs the same list from its own accounting
   * (engine/native/src/memory.c) as {@code alloc: item=… bytes=…} when it starts and as {@code
   * plan: item=… bytes=…} from its check; the two are compared byte for byte. The page-cache
   * headroom is the kernel's, not the engine's, and is not listed. Not for a plan that does not
   * fit: the engine allocates nothing then.
   */
  public static List<String> items(MemoryPlan p) {
    long[] bytes = {
      p.denseBytes(),
      p.kv().bytes(),
      p.stateBytes(),
      p.standbyBytes(),
      p.arena().bytes(),
      p.scratchBytes()
    };
    List<String> out = new ArrayList<>();
    for (int i = 0; i < ITEM_NAMES.size(); i++) {
      item(out, ITEM_NAMES.get(i), bytes[i]);
    }
    return List.copyOf(out);
  }

  /**
   * The names of {@link #items}, in the engine's order; strata-ref's memory.c lists its items by
   * the same names (rules.def, {@code STRATA_PLAN_ITEM_NAMES}).
   */
  public static final List<String> ITEM_NAMES =
      List.of("weights", "kv", "ssm_state", "standby", "arena", "scratch");

  /** "{@code count} slots x N B": slots of the arena's size (the stand-by slots are too). */
  private static String slots(String count, ExpertArena a) {
    return count + " slots x " + Units.count(a.slotBytes()) + " B";
  }

  private static void item(List<String> out, String name, long bytes) {
    if (bytes > 0) {
      out.add("item=" + name + " bytes=" + bytes);
    }
  }

  /**
   * The plan as JSON ({@link Json}'s layout, ASCII only): snake_case keys in a fixed order, exact
   * byte counts.
   */
  public static String json(MemoryPlan p) {
    return Json.write(true, g -> writeJson(p, g));
  }

  /** The plan as one JSON object into {@code g}: how a larger document embeds it. */
  public static void writeJson(MemoryPlan p, JsonGenerator g) throws IOException {
    UsableMemory m = p.memory();
    KvPools kv = p.kv();
    StandbySlots s = p.standby();
    ExpertArena a = p.arena();
    g.writeStartObject();
    g.writeStringField("backend", p.backend().id());
    g.writeStringField("experts", p.experts().id());
    g.writeNumberField("context", p.context());
    g.writeObjectFieldStart("memory");
    g.writeNumberField("total_bytes", m.totalBytes());
    g.writeNumberField("usable_bytes", m.usableBytes());
    g.writeStringField("rule", m.rule().name().toLowerCase(Locale.ROOT));
    g.writeStringField("rule_text", m.rule().text());
    g.writeEndObject();
    g.writeNumberField("margin_bytes", p.marginBytes());
    g.writeNumberField("budget_bytes", p.budgetBytes());
    g.writeNumberField("dense_bytes", p.denseBytes());
    g.writeNumberField("state_bytes", p.stateBytes());
    g.writeNumberField("drafter_bytes", p.drafterBytes());
    g.writeObjectFieldStart("kv");
    g.writeStringField("format", kv.format().flagName());
    g.writeNumberField("cells", kv.cells());
    g.writeNumberField("cell_bytes", kv.cellBytes());
    g.writeNumberField("layers", kv.layers());
    g.writeNumberField("swa_layers", kv.swaLayers());
    g.writeNumberField("swa_cells", kv.swaCells());
    g.writeNumberField("drafter_layers", kv.drafterLayers());
    g.writeNumberField("bytes", kv.bytes());
    g.writeEndObject();
    g.writeObjectFieldStart("standby");
    g.writeBooleanField("prompt_gemm", s.promptGemm());
    g.writeNumberField("slots", s.slots());
    g.writeNumberField("bytes", p.standbyBytes());
    g.writeStringField("reason", s.reason());
    g.writeEndObject();
    g.writeNumberField("page_cache_headroom_bytes", p.pageCacheHeadroomBytes());
    g.writeObjectFieldStart("arena");
    g.writeNumberField("slot_bytes", a.slotBytes());
    g.writeNumberField("slots", a.slots());
    g.writeNumberField("model_slots", a.modelSlots());
    g.writeNumberField("token_slots", a.tokenSlots());
    g.writeNumberField("bytes", a.bytes());
    g.writeEndObject();
    if (p.scratchBytes() > 0) {
      g.writeNumberField("scratch_bytes", p.scratchBytes());
    }
    g.writeNumberField("free_bytes", p.freeBytes());
    g.writeBooleanField("fits", p.fits());
    g.writeNumberField("shortfall_bytes", p.shortfallBytes());
    g.writeStringField("refusal", p.refusal());
    ExpectedReads r = p.reads();
    if (r != null) {
      g.writeObjectFieldStart("expected_reads");
      g.writeStringField("policy", r.policy());
      g.writeStringField("basis", r.basis().name().toLowerCase(Locale.ROOT));
      g.writeStringField("source", r.source());
      g.writeNumberField("slots", r.slots());
      g.writeNumberField("lookups_per_token", r.lookupsPerToken());
      g.writeFieldName("misses_per_token");
      g.writeNumber(String.format(Locale.ROOT, "%.4f", r.missesPerToken()));
      g.writeNumberField("bytes_per_token", r.bytesPerToken());
      g.writeEndObject();
    }
    Json.strings(g, "notes", p.notes());
    g.writeEndObject();
  }
}
