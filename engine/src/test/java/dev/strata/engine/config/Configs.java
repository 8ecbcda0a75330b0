package dev.strata.engine.config;

import dev.strata.engine.host.HostFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Sample configs for the codec tests. */
final class Configs {
  private Configs() {}

  static final HostFacts M4_PRO =
      new HostFacts("macos", "Apple M4 Pro", 14, 10, 4, 48L << 30, 1009, true, false, "27.0.1", 0);

  static final HostFacts LINUX =
      new HostFacts(
          "linux",
          "AMD EPYC 7B13: 64-Core # \"Processor\"",
          2,
          2,
          0,
          8L << 30,
          0,
          false,
          false,
          "Debian GNU/Linux 12 (bookworm)",
          0);

  static EngineConfig metal(String... extraArgs) {
    String first = "/models/m-00001-of-00004.gguf";
    List<String> args = new ArrayList<>(List.of("--model", first, "--ctx", "32768"));
    args.addAll(List.of(extraArgs));
    return new EngineConfig(
        EngineConfig.SCHEMA,
        new EngineConfig.Engine("metal", "/opt/strata/lib/libstrata.dylib", null),
        new EngineConfig.Model(
            List.of(
                first,
                "/models/m-00002-of-00004.gguf",
                "/models/m-00003-of-00004.gguf",
                "/models/m-00004-of-00004.gguf")),
        M4_PRO,
        args,
        Map.of());
  }

  static EngineConfig withModel(String backend, List<String> shards, Map<String, String> env) {
    return new EngineConfig(
        EngineConfig.SCHEMA,
        new EngineConfig.Engine(
            backend, "/Users/José Ñ/Library/Strata 2/libstrata.dylib", "ab".repeat(32)),
        new EngineConfig.Model(shards),
        LINUX,
        List.of("--model", shards.get(0), "--ctx", "8192", "--threads", "2", "--kv", "q4_0"),
        env);
  }

  /** The contract's example, as the writer must spell it. */
  static final String METAL_TEXT =
      """
      schema: strata.engine/v1
      engine:
        backend: metal
        library: /opt/strata/lib/libstrata.dylib
      model:
        shards:
        - /models/m-00001-of-00004.gguf
        - /models/m-00002-of-00004.gguf
        - /models/m-00003-of-00004.gguf
        - /models/m-00004-of-00004.gguf
      host:
        os: macos
        chip: Apple M4 Pro
        cpu_cores: 14
        perf_cores: 10
        efficiency_cores: 4
        memory_bytes: 51539607552
        gpu_family: 1009
        metal4: true
        k4: false
        os_version: 27.0.1
        wired_limit_mb: 0
      args:
      - --model
      - /models/m-00001-of-00004.gguf
      - --ctx
      - '32768'
      env: {}
      """;
}
