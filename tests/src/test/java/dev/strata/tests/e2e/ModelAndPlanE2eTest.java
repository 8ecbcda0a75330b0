package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostFactsCodec;
import dev.strata.engine.host.ProbeResult;
import dev.strata.engine.model.DemoModel;
import dev.strata.engine.text.TerminalText;
import dev.strata.launcher.LaunchCli;
import dev.strata.metal.HostProbe;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Shards, the memory plan, --plan and --dry-run (which load nothing) against the demo model. */
class ModelAndPlanE2eTest {
  @RegisterExtension static final E2e.Demo demo = new E2e.Demo();
  static final List<String> SHORT = List.of("--prompt-tokens", "8", "--n-predict", "1");

  @Test
  void aMissingShardIsRefusedNamingItAndTheConfigKey() throws IOException {
    // A set of its own (the shards are sparse: writing one is cheap, copying one is not).
    Path d = demo.dir().resolve("missing");
    List<Path> copy = E2e.demoModel(d);
    Path cfg = E2e.config(d.resolve("c.yaml"), demo.lib(), null, copy, 1024, SHORT, Map.of());
    Files.delete(copy.get(2));
    E2e.Result r = E2e.launch("--config", cfg.toString());
    assertEquals(3, r.code());
    String line = r.oneLineRefusal();
    assertTrue(line.startsWith("model shard missing: " + copy.get(2)), line);
    assertTrue(line.contains("model.shards[2] in " + cfg), line);
    assertFalse(r.out().contains("kv: format="), r.out());
  }

  @Test
  void aConfigListingFewerShardsThanTheSplitSetIsRefused() throws IOException {
    Path cfg = demo.unpinnedConfig("three.yaml", demo.shards().subList(0, 3), 1024, SHORT);
    E2e.Result r = E2e.launch("--config", cfg.toString());
    assertEquals(3, r.code());
    assertTrue(
        r.oneLineRefusal().contains("lists 3 shard(s) but the model's split set is 4"), r.err());
  }

  @Test
  void aPlanThatCannotFitThisMachineIsRefusedAndAnotherHostIsAWarning() throws IOException {
    // Resident experts of the seed model (DemoModel: 512 experts in each of 48 layers, every one
    // held in memory) on an 8 GiB machine. strata-ref does not compute the seed geometry, and
    // need not: the launcher's plan refuses before the engine is asked. (The class's computed
    // model, TinyModel.seedAttention, holds all its experts in a few MB: it fits anywhere.)
    HostFacts here = E2e.here();
    HostFacts small =
        new HostFacts(
            here.os(),
            "Small test machine",
            4,
            4,
            0,
            8L << 30,
            0,
            false,
            false,
            here.osVersion(),
            0);
    Path hostFile = demo.dir().resolve("small.json");
    Files.writeString(hostFile, HostFactsCodec.write(small), StandardCharsets.UTF_8);
    List<String> resident = new ArrayList<>(SHORT);
    resident.addAll(List.of("--experts", "resident"));
    List<Path> seed = DemoModel.write(demo.dir().resolve("seed"), 4);
    Path cfg =
        E2e.config(
            demo.dir().resolve("resident.yaml"),
            demo.lib(),
            E2e.pin(demo.lib()),
            seed,
            32_768,
            resident,
            Map.of());

    E2e.Result r =
        E2e.launch("--config", cfg.toString(), "--dry-run", "--host-file", hostFile.toString());
    assertEquals(3, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("warn     host"), r.out());
    assertTrue(r.out().contains("refused  plan"), r.out());
    assertTrue(
        r.out()
            .contains(
                "dry run: the launch would be refused (exit 3); refused before the engine was"
                    + " asked; nothing run"),
        r.out());

    // --plan shows the same plan and exits 0: it is information, not a launch.
    E2e.Result p =
        E2e.launch("--config", cfg.toString(), "--plan", "--host-file", hostFile.toString());
    assertEquals(0, p.code(), p.err());
    assertTrue(p.err().contains("warning: the config was made for another machine"), p.err());
  }

  @Test
  void dryRunJsonShowsArgsEnvChecksAndPlanAndLoadsNothing() throws IOException {
    Path cfg =
        demo.config(
            "dry.yaml",
            32_768,
            List.of("--prompt-tokens", "8", "--n-predict", "1", "--kv", "q4_0"),
            Map.of("STRATA_METAL_PROMPT_GEMM", "0"));
    E2e.Result r = E2e.launch("--config", cfg.toString(), "--dry-run", "--json");
    assertEquals(0, r.code(), r.err());
    JsonNode j = new ObjectMapper().readTree(r.out());
    assertEquals("cpu-reference", j.get("backend").asText());
    assertEquals("--model", j.get("args").get(0).asText());
    assertEquals("q4_0", j.get("args").get(j.get("args").size() - 1).asText());
    assertEquals("0", j.get("env").get("STRATA_METAL_PROMPT_GEMM").asText());
    assertTrue(j.get("would_start").asBoolean());
    assertEquals(0, j.get("exit_code").asInt());
    List<String> checks = new ArrayList<>();
    j.get("checks").forEach(c -> checks.add(c.get("check").asText()));
    assertEquals(List.of("config", "kv", "library", "model", "host", "plan", "engine"), checks);
    // the engine's own check decided, and its items are the plan's
    assertEquals("engine", j.get("verdict_from").asText());
    assertTrue(j.get("engine").get("checked").asBoolean());
    assertEquals(
        j.get("launcher_items").get(0).asText(), j.get("engine").get("plan").get(0).asText());
    assertTrue(j.get("plan").isObject());
    assertTrue(r.out().contains("227377152"), "the plan holds the q4_0 pool bytes:\n" + r.out());
    assertFalse(r.out().contains("kv: format="), "nothing ran");
  }

  @Test
  void planJsonIsTheMemoryPlan() throws IOException {
    Path cfg = demo.config("plan.yaml", 32_768, SHORT, Map.of());
    E2e.Result r = E2e.launch("--config", cfg.toString(), "--plan", "--json");
    assertEquals(0, r.code(), r.err());
    JsonNode j = new ObjectMapper().readTree(r.out());
    assertTrue(j.isObject());
    assertTrue(r.out().contains("416858112"), r.out());
  }

  /** strata-launch in this JVM on a machine whose probe answers {@code probed}. */
  static E2e.Result launchOn(
      ProbeResult probed, Map<String, String> env, boolean terminal, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Io io = Io.of(new PrintWriter(out, true), new PrintWriter(err, true), env, terminal);
    Machine m = Machine.system(e -> probed);
    int code = LaunchCli.create(io, m).execute(args);
    return new E2e.Result(code, out.toString(), err.toString());
  }

  @Test
  void planAndItsGlossaryWrapToTheTerminalAndStayWholeInAPipe() throws IOException {
    Path cfg = demo.unpinnedConfig("wrap.yaml", demo.shards(), 32_768, SHORT);
    ProbeResult here = HostProbe.probe();
    Map<String, String> env = Map.of("HOME", demo.dir().toString(), "COLUMNS", "60");
    String[] args = {"--config", cfg.toString(), "--plan", "--explain"};
    E2e.Result piped = launchOn(here, env, false, args);
    assertEquals(0, piped.code(), piped.err());
    assertTrue(
        piped.out().lines().anyMatch(l -> l.length() > 60),
        "into a pipe the lines stay whole (COLUMNS is for a terminal):\n" + piped.out());
    E2e.Result term = launchOn(here, env, true, args);
    assertEquals(0, term.code(), term.err());
    for (String l : term.out().lines().toList()) {
      assertTrue(
          l.length() <= 60 || !l.strip().contains(" "),
          "on a 60-column terminal every line fits (a single word may not):\n" + term.out());
    }
    // the same words, only the line breaks differ
    assertEquals(words(piped.out()), words(term.out()));
    assertTrue(term.out().contains("page-cache headroom"), term.out());
  }

  static List<String> words(String s) {
    return List.of(s.strip().split("\\s+"));
  }

  @Test
  void theLaunchSaysWhatTheProbeCouldNotReadAsSetupDoes() throws IOException {
    List<String> noDecode = List.of("--prompt-tokens", "1", "--n-predict", "0");
    Path cfg = demo.unpinnedConfig("notes.yaml", demo.shards(), 4096, noDecode);
    ProbeResult here = HostProbe.probe();
    String note =
        "Metal: the GPU probe of an earlier run did not finish (pid 1, crashed), so it is not"
            + " run again; gpu_family 1009, k4 no, metal4 yes taken from the chip name 'Apple M4"
            + " Pro'\u001b[2J";
    ProbeResult noted =
        new ProbeResult(here.facts(), List.of(note), here.recommendedMaxWorkingSet(), false);
    Map<String, String> env = Map.of("HOME", demo.dir().toString());
    for (String[] args :
        new String[][] {
          {"--config", cfg.toString(), "--plan"},
          {"--config", cfg.toString(), "--dry-run"},
          {"--config", cfg.toString()}
        }) {
      E2e.Result r = launchOn(noted, env, false, args);
      assertEquals(0, r.code(), r.err());
      assertEquals(
          "strata-launch: probe: " + TerminalText.escape(note),
          r.errLines().getFirst(),
          String.join(" ", args));
      assertFalse(r.err().contains("\u001b"), "control characters made visible");
    }
    // a probe with nothing to say: nothing said
    E2e.Result quiet = launchOn(here, env, false, "--config", cfg.toString(), "--plan");
    assertEquals(0, quiet.code(), quiet.err());
    assertFalse(quiet.err().contains("probe:"), quiet.err());
  }

  @Test
  void argsModelThatIsNotTheFirstShardIsAConfigError() throws IOException {
    Path cfg = demo.config("other.yaml", 1024, SHORT, Map.of());
    String text = Files.readString(cfg);
    // point --model at the second shard, keep model.shards as it is
    String first = demo.shards().get(0).toString();
    String second = demo.shards().get(1).toString();
    int argsAt = text.indexOf("args:");
    String edited = text.substring(0, argsAt) + text.substring(argsAt).replace(first, second);
    Files.writeString(cfg, edited);
    E2e.Result r = E2e.launch("--config", cfg.toString());
    assertEquals(2, r.code(), r.err());
    assertTrue(r.oneLineRefusal().startsWith(cfg.toString()), r.err());
  }
}
