package dev.strata.tests.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.strata.engine.host.HostKeys;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.DemoModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --json} on {@code probe}, {@code --plan} and {@code --dry-run}: stdout is one JSON
 * document (parsed strictly, nothing after it), with the figures a script would read.
 */
class JsonOutputTest {
  /** Strict: duplicate keys and trailing tokens are errors, as for any consumer that cares. */
  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  @TempDir static Path tmp;
  static Path config;

  /** A q4_0 config at 32K for an M4 Pro over the demo model, written by strata-setup itself. */
  @BeforeAll
  static void writeConfig() throws IOException {
    List<Path> shards = DemoModel.write(tmp.resolve("model"), 4);
    config = tmp.resolve("engine.yaml");
    Cli.Result r =
        Cli.setup(
            "--model",
            shards.getFirst().toString(),
            "--host-file",
            "m4-pro-48",
            "--engine-lib",
            tmp.resolve("lib/libstrata.dylib").toString(),
            "--ctx",
            "32768",
            "--experts",
            "stream",
            "--kv",
            "q4_0",
            "--out",
            config.toString(),
            "--yes");
    assertEquals(0, r.code(), r.err());
    assertTrue(Files.isRegularFile(config));
  }

  private static JsonNode parse(Cli.Result r) throws IOException {
    assertFalse(r.out().isBlank(), "stdout holds the document; stderr: " + r.err());
    return JSON.readTree(r.out());
  }

  @Test
  void probeJsonIsTheHostJson() throws IOException {
    Cli.Result r = Cli.setup("probe", "--json", "--host-file", "m4-pro-48");
    assertEquals(0, r.code(), r.err());
    JsonNode host = parse(r);
    List<String> keys = new ArrayList<>();
    host.fieldNames().forEachRemaining(keys::add);
    assertEquals(HostKeys.names(), keys, "the host JSON's keys, in order");
    assertEquals("Apple M4 Pro", host.get("chip").asText());
    assertTrue(host.get("k4").isBoolean() && !host.get("k4").asBoolean(), "M4 is not k4");
    assertEquals(48L << 30, host.get("memory_bytes").asLong());
  }

  @Test
  void planJsonCarriesTheQ4KvPool() throws IOException {
    Cli.Result r =
        Cli.launch("-c", config.toString(), "--plan", "--json", "--host-file", "m4-pro-48");
    assertEquals(0, r.code(), r.err());
    JsonNode plan = parse(r);
    JsonNode kv = plan.get("kv");
    assertEquals("q4_0", kv.get("format").asText());
    assertEquals(576, kv.get("cell_bytes").asInt());
    assertEquals(KvFormat.cells(32768), kv.get("cells").asLong());
    assertEquals(
        KvFormat.Q4_0.poolBytes(32768, DemoModel.KV_HEADS, DemoModel.HEAD_DIM, 12),
        kv.get("bytes").asLong());
    assertEquals(
        227_377_152L, kv.get("bytes").asLong(), "the pinned figure of docs/ENGINE-CONTRACT.md");
    assertTrue(plan.get("fits").isBoolean(), plan.toString());
  }

  @Test
  void dryRunJsonIsOneDocumentEvenWhenRefused() throws IOException {
    // the library named in the config does not exist: preflight refuses (exit 3), still JSON
    Cli.Result r =
        Cli.launch(
            Map.of(), "-c", config.toString(), "--dry-run", "--json", "--host-file", "m4-pro-48");
    assertEquals(3, r.code(), r.err());
    JsonNode dry = parse(r);
    assertFalse(dry.get("would_start").asBoolean());
    assertEquals(3, dry.get("exit_code").asInt());
    assertTrue(dry.get("refusal").asText().contains("engine library not found"), dry.toString());
    List<String> args = new ArrayList<>();
    dry.get("args").forEach(a -> args.add(a.asText()));
    assertEquals(List.of("--kv", "q4_0"), args.subList(args.size() - 2, args.size()));
  }
}
