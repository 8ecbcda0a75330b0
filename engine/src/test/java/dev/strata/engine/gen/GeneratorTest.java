package dev.strata.engine.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostProfiles;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.model.ModelWidths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GeneratorTest {
  /** The seed's model (docs/ENGINE-CONTRACT.md): the demo model's geometry. */
  static final ModelGeometry SEED =
      new ModelGeometry(
          "qwen3next",
          48,
          List.of(3, 7, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47),
          2,
          256,
          512,
          10,
          48,
          811_008L,
          2_665_016_320L,
          262_144L,
          4,
          256,
          List.of(),
          0,
          0,
          0,
          0,
          List.of(),
          0,
          ModelWidths.NONE);

  /**
   * --mem-budget-mb on the m4-pro-48 profile (48 GiB, no wired limit), computed by hand from
   * docs/PLAN.md: usable = 3/4 of 48 GiB = 36864 MiB (over 36 GiB: 3/4), minus the 1 GiB margin =
   * 35840 MiB (the 48 GiB row of its table; golden config stream-m48g-ctx32768-4shards.yaml).
   */
  private static final String M4_PRO_48_BUDGET_MB = "35840";

  static final Generator.Library LIB = new Generator.Library("/opt/strata/libstrata.dylib", null);

  private static final Map<String, HostFacts> HOSTS = new java.util.HashMap<>();

  static HostFacts host(String profile) {
    return HOSTS.computeIfAbsent(profile, p -> HostProfiles.profile(p).orElseThrow());
  }

  static List<String> shards(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      out.add(String.format("/models/m-%05d-of-%05d.gguf", i, n));
    }
    return out;
  }

  /** The seed model's config on a host profile, in {@code n} shards, with a backend's template. */
  private static EngineConfig generate(String profile, int n, Answers a, Backend backend) {
    return Generator.plan(host(profile), SEED, shards(n), a, LIB, Templates.load(backend))
        .requireFits()
        .config();
  }

  @Test
  void argsComeInTheContractOrderThenTheTemplate() {
    EngineConfig c =
        generate("m4-pro-48", 4, new Answers(32_768L, ExpertsMode.STREAM, null), Backend.METAL);
    assertEquals(
        List.of(
            "--model",
            "/models/m-00001-of-00004.gguf",
            "--ctx",
            "32768",
            "--experts",
            "stream",
            "--threads",
            "10",
            "--mem-budget-mb",
            M4_PRO_48_BUDGET_MB,
            "--spec",
            "2",
            "--suffix-draft",
            "0"),
        c.args());
    assertEquals("metal", c.engine().backend());
    assertEquals(shards(4), c.model().shards());
    assertEquals(host("m4-pro-48"), c.host());
    assertEquals(Map.of(), c.env());
  }

  @Test
  void unansweredQuestionsTakeThePlansDefaults() {
    HostFacts h = host("m4-pro-48");
    EngineConfig c =
        Generator.plan(h, SEED, shards(1), Answers.DEFAULTS, LIB, Templates.load(Backend.METAL))
            .requireFits()
            .config();
    // docs/PLAN.md "The seed geometry on four Macs", 48 GiB row: defaults 262144, resident
    assertEquals("262144", arg(c, "--ctx"));
    assertEquals("resident", arg(c, "--experts"));
    // docs/PLAN.md "threads: the performance cores": the m4-pro-48 profile has 10
    assertEquals("10", arg(c, "--threads"));
    assertEquals(M4_PRO_48_BUDGET_MB, arg(c, "--mem-budget-mb"));
  }

  /**
   * docs/GOLDEN.md, default identity over host profiles × context (planned or given) × experts
   * (planned or given) × shards: with --kv q4_0 the args are the default args plus exactly that
   * pair, and the written YAML differs by exactly those two lines.
   */
  @Test
  void kvQ4AppendsExactlyThePairAndMovesNothingElse() {
    int cells = 0;
    List<Template> templates =
        List.of(Templates.load(Backend.METAL), Templates.load(Backend.CPU_REFERENCE));
    for (String profile : List.of("m1-8", "m4-pro-48", "m3-max-128", "m5-32")) {
      for (Long ctx : Arrays.asList(null, 8_192L, 32_768L, 65_536L)) {
        for (ExpertsMode mode : Arrays.asList(null, ExpertsMode.STREAM, ExpertsMode.RESIDENT)) {
          for (int n : List.of(1, 4)) {
            for (Template t : templates) {
              Answers a = new Answers(ctx, mode, null);
              EngineConfig base =
                  Generator.plan(host(profile), SEED, shards(n), a, LIB, t).config();
              EngineConfig q4 =
                  Generator.plan(host(profile), SEED, shards(n), a.withKv(KvFormat.Q4_0), LIB, t)
                      .config();
              List<String> expected = new ArrayList<>(base.args());
              expected.add("--kv");
              expected.add("q4_0");
              assertEquals(expected, q4.args(), profile + " " + ctx + " " + mode + " " + n);
              String by = ConfigCodec.write(base);
              String qy = ConfigCodec.write(q4);
              assertEquals(by.replace("env:", "- --kv\n- q4_0\nenv:"), qy);
              cells++;
            }
          }
        }
      }
    }
    assertEquals(4 * 4 * 3 * 2 * 2, cells);
  }

  @Test
  void sameInputsSameBytes() {
    Template t = Templates.load(Backend.CPU_REFERENCE);
    String a =
        ConfigCodec.write(
            Generator.plan(host("m4-pro-48"), SEED, shards(4), Answers.DEFAULTS, LIB, t)
                .requireFits()
                .config());
    String b =
        ConfigCodec.write(
            Generator.plan(host("m4-pro-48"), SEED, shards(4), Answers.DEFAULTS, LIB, t)
                .requireFits()
                .config());
    assertEquals(a, b);
  }

  @Test
  void cpuReferenceTemplatePinsTheSyntheticWorkload() {
    EngineConfig c =
        generate(
            "m4-pro-48", 1, new Answers(8192L, ExpertsMode.STREAM, null), Backend.CPU_REFERENCE);
    List<String> tail = c.args().subList(10, c.args().size());
    assertEquals(
        List.of(
            "--spec", "2", "--suffix-draft", "0", "--prompt-tokens", "512", "--n-predict", "64"),
        tail);
    assertEquals("cpu-reference", c.engine().backend());
  }

  @Test
  void aTemplateChangeShowsInTheConfig() {
    Template t = Templates.load(Backend.METAL);
    Template altered = new Template("test", t.backend(), List.of("--spec", "3"), t.env());
    Answers a = new Answers(8192L, ExpertsMode.STREAM, null);
    assertNotEquals(
        Generator.plan(host("m4-pro-48"), SEED, shards(1), a, LIB, t).requireFits().config().args(),
        Generator.plan(host("m4-pro-48"), SEED, shards(1), a, LIB, altered)
            .requireFits()
            .config()
            .args());
  }

  @Test
  void k8v4IsRefusedWithUpstreamsText() {
    StrataException e =
        assertThrows(
            StrataException.class,
            () ->
                generate(
                    "m4-pro-48",
                    1,
                    new Answers(8192L, ExpertsMode.STREAM, KvFormat.K8V4),
                    Backend.METAL));
    assertEquals(2, e.exitCode());
    assertEquals(KvRules.K8V4_REFUSAL, e.getMessage());
  }

  @Test
  void aPlanThatDoesNotFitIsRefusedWithThePlansReason() {
    StrataException e =
        assertThrows(
            StrataException.class,
            () ->
                generate(
                    "m1-8", 1, new Answers(65_536L, ExpertsMode.RESIDENT, null), Backend.METAL));
    assertEquals(3, e.exitCode());
    assertTrue(e.getMessage().startsWith("resident: "), e.getMessage());
  }

  @Test
  void libraryHashIsPinnedWhenKnown() {
    EngineConfig c =
        Generator.plan(
                host("m4-pro-48"),
                SEED,
                shards(1),
                new Answers(8192L, ExpertsMode.STREAM, null),
                new Generator.Library("/l.dylib", "ab".repeat(32)),
                Templates.load(Backend.METAL))
            .requireFits()
            .config();
    assertEquals("ab".repeat(32), c.engine().sha256());
  }

  private static String arg(EngineConfig c, String flag) {
    int i = c.args().indexOf(flag);
    return c.args().get(i + 1);
  }
}
