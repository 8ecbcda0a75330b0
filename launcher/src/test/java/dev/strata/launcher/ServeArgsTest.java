package dev.strata.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.cli.Io;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.EngineConfig;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code --serve} / {@code --chat} options as {@link ServeArgs} judges them (nothing loaded). */
class ServeArgsTest {
  static Io io(Map<String, String> env) {
    PrintWriter none = new PrintWriter(Writer.nullWriter());
    return Io.of(none, none, env, false);
  }

  static LaunchFlow.Request request(LaunchFlow.Serve serve, LaunchFlow.Generate g) {
    return new LaunchFlow.Request(null, false, false, false, false, false, null, g, serve);
  }

  static LaunchFlow.Serve serve(String host, String port, String key, String parallel) {
    return new LaunchFlow.Serve(true, false, host, port, key, parallel, null);
  }

  static String refusal(LaunchFlow.Request r, Map<String, String> env) {
    StrataException e = assertThrows(StrataException.class, () -> ServeArgs.judge(r, io(env)));
    assertEquals(2, e.exitCode());
    return e.getMessage();
  }

  @Test
  void loopbackByDefaultAndPort8080() {
    ServeArgs.Judged j =
        ServeArgs.judge(request(serve(null, null, null, null), null), io(Map.of()));
    assertTrue(j.serve());
    assertTrue(j.address().getAddress().isLoopbackAddress());
    assertEquals(8080, j.address().getPort());
    assertNull(j.apiKey());
    assertEquals(16, j.queue());
  }

  @Test
  void offLoopbackNeedsAKeyFromTheFlagOrTheEnvironment() {
    assertTrue(
        refusal(request(serve("0.0.0.0", "0", null, null), null), Map.of())
            .contains("--api-key KEY or STRATA_API_KEY"));
    assertEquals(
        "sk-1",
        ServeArgs.judge(request(serve("0.0.0.0", "0", "sk-1", null), null), io(Map.of())).apiKey());
    ServeArgs.Judged fromEnv =
        ServeArgs.judge(
            request(serve("0.0.0.0", "0", null, null), null), io(Map.of("STRATA_API_KEY", "k2")));
    assertEquals("k2", fromEnv.apiKey());
    assertTrue(
        refusal(request(serve(null, null, "a key", null), null), Map.of()).contains("spaces"));
    // the key is never in a printed form of the options
    assertTrue(!fromEnv.toString().contains("k2"));
    assertTrue(!serve(null, null, "sk-secret", null).toString().contains("sk-secret"));
  }

  static EngineConfig config(String backend, List<String> args) {
    return new EngineConfig(
        EngineConfig.SCHEMA,
        new EngineConfig.Engine(backend, "/lib/libstrata_ref.so", null),
        new EngineConfig.Model(List.of("/m.gguf")),
        null,
        args,
        Map.of());
  }

  @Test
  void parallelIsJudgedAndGoesIntoTheEnginesArgv() {
    ServeArgs.Judged two =
        ServeArgs.judge(request(serve(null, null, null, "2"), null), io(Map.of()));
    assertEquals(2, two.parallel());
    assertTrue(
        refusal(request(serve(null, null, null, "0"), null), Map.of()).contains("--parallel"));
    // the flag table's words: a number out of range is said to be one, a word is not
    assertEquals(
        "--parallel: 999 is out of range (a whole number in 1..64)",
        refusal(request(serve(null, null, null, "999"), null), Map.of()));
    assertEquals(
        "--parallel: 'many' is not a whole number in 1..64",
        refusal(request(serve(null, null, null, "many"), null), Map.of()));
    EngineConfig ref = config("cpu-reference", List.of("--model", "/m.gguf", "--ctx", "4096"));
    assertEquals(
        List.of("--model", "/m.gguf", "--ctx", "4096", "--parallel", "2"),
        ServeArgs.withParallel(two, ref).args());
    assertEquals(2, ServeArgs.withParallel(two, ref).engineArgs().parallel());
    EngineConfig had = config("cpu-reference", List.of("--model", "/m.gguf", "--parallel", "4"));
    assertEquals(
        List.of("--model", "/m.gguf", "--parallel", "2"), ServeArgs.withParallel(two, had).args());
    ServeArgs.Judged none =
        ServeArgs.judge(request(serve(null, null, null, null), null), io(Map.of()));
    assertEquals(had, ServeArgs.withParallel(none, had), "without --parallel: the config's");
    StrataException e =
        assertThrows(
            StrataException.class,
            () -> ServeArgs.withParallel(two, config("metal", List.of("--model", "/m.gguf"))));
    assertEquals(2, e.exitCode());
    assertTrue(e.getMessage().contains("takes no --parallel"), e.getMessage());
  }

  @Test
  void badValuesAndCombinations() {
    assertTrue(
        refusal(request(serve(null, "70000", null, null), null), Map.of()).contains("--port"));
    assertTrue(
        refusal(
                request(new LaunchFlow.Serve(true, false, null, null, null, null, "0"), null),
                Map.of())
            .contains("--queue"));
    assertTrue(
        refusal(
                request(new LaunchFlow.Serve(true, true, null, null, null, null, null), null),
                Map.of())
            .contains("exclude each other"));
    assertTrue(
        refusal(
                request(new LaunchFlow.Serve(false, false, null, "80", null, null, null), null),
                Map.of())
            .contains("--port goes with --serve"));
    assertTrue(
        refusal(
                request(new LaunchFlow.Serve(false, true, "0.0.0.0", null, null, null, null), null),
                Map.of())
            .contains("not --chat"));
    LaunchFlow.Generate prompt =
        new LaunchFlow.Generate("hi", null, null, null, null, null, null, null, null);
    assertTrue(
        refusal(request(serve(null, null, null, null), prompt), Map.of()).contains("--prompt"));
    assertNull(ServeArgs.judge(request(LaunchFlow.Serve.NONE, null), io(Map.of())));
  }
}
