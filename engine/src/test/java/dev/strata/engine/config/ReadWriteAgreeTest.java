package dev.strata.engine.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.FlagSpec;
import dev.strata.engine.flags.ValueKind;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * docs/CONFIG.md's promise, checked differentially: the writer ({@link ConfigCodec#write}) refuses
 * exactly the configs the reader ({@link ConfigCodec#read}) refuses, with the same line after the
 * location. The configs: every flag of the flag table on every backend, each with its default, its
 * bounds and one past them, a word and its choices; and strata-ref's pool rule around its edge (the
 * rule the writer once missed: strata-setup --ctx 10 wrote a config strata-launch refused).
 */
class ReadWriteAgreeTest {
  private static final String MODEL = "/models/m-00001-of-00002.gguf";

  /** The YAML the reader gets for {@code args}, rendered by hand (the writer may refuse them). */
  private static String yaml(Backend backend, List<String> args) {
    StringBuilder b =
        new StringBuilder(
            "schema: strata.engine/v1\nengine:\n  backend: "
                + backend.id()
                + "\n  library: /opt/strata/lib/libstrata.so\nmodel:\n  shards:\n  - "
                + MODEL
                + "\n  - /models/m-00002-of-00002.gguf\nhost:\n  os: linux\n  chip: AMD EPYC\n"
                + "  cpu_cores: 2\n  perf_cores: 2\n  efficiency_cores: 0\n"
                + "  memory_bytes: 8589934592\n  gpu_family: 0\n  metal4: false\n  k4: false\n"
                + "  os_version: Debian 12\n  wired_limit_mb: 0\nargs:\n");
    for (String a : args) {
      b.append("- '").append(a.replace("'", "''")).append("'\n");
    }
    return b.append("env: {}\n").toString();
  }

  private static EngineConfig config(Backend backend, List<String> args) {
    EngineConfig c = ConfigCodec.read(yaml(backend, List.of("--model", MODEL)), "base.yaml");
    return new EngineConfig(c.schema(), c.engine(), c.model(), c.host(), args, c.env());
  }

  /** The reader's line without its location, or null when it reads. */
  private static String read(Backend backend, List<String> args) {
    try {
      ConfigCodec.read(yaml(backend, args), "c.yaml");
      return null;
    } catch (ConfigException e) {
      return e.detail();
    }
  }

  /** The writer's line without its location, or null when it writes. */
  private static String write(Backend backend, List<String> args) {
    try {
      ConfigCodec.write(config(backend, args));
      return null;
    } catch (ConfigException e) {
      return e.detail();
    }
  }

  private static Set<String> samples(FlagSpec f) {
    Set<String> v = new LinkedHashSet<>();
    if (f.defaultValue() != null) {
      v.add(f.defaultValue());
    }
    v.add("lots");
    switch (f.kind()) {
      case ValueKind.IntRange r -> {
        for (long x : new long[] {r.min() - 1, r.min(), r.min() + 1, r.max(), r.max() + 1, 10}) {
          v.add(Long.toString(x));
        }
      }
      case ValueKind.Choice c -> v.addAll(c.values());
      default -> v.add("/models/other.gguf");
    }
    return v;
  }

  @Test
  void theWriterRefusesExactlyWhatTheReaderRefusesForEveryFlagValue() {
    int refused = 0;
    int cases = 0;
    for (Backend backend : Backend.values()) {
      for (FlagSpec f : EngineFlags.flags()) {
        if (f.name().equals(EngineFlags.MODEL)) {
          continue;
        }
        List<List<String>> variants = new ArrayList<>();
        if (f.isSwitch()) {
          variants.add(List.of("--model", MODEL, f.name()));
        } else {
          for (String value : samples(f)) {
            variants.add(List.of("--model", MODEL, f.name(), value));
          }
        }
        for (List<String> args : variants) {
          String r = read(backend, args);
          assertEquals(r, write(backend, args), backend.id() + " " + args);
          cases++;
          refused += r != null ? 1 : 0;
        }
      }
    }
    assertTrue(refused > 10 && refused < cases, refused + " of " + cases + " refused");
  }

  @Test
  void strataRefsPoolRuleIsTheReadersAndTheWritersAlike() {
    // --ctx N holds N + 128 cells; --prompt-tokens 512 + --n-predict 64 (the defaults) = 576
    for (long ctx : new long[] {1, 10, 447, 448, 449, 4096}) {
      for (String[] w : new String[][] {{}, {"--n-predict", "0"}, {"--prompt-tokens", "1000"}}) {
        List<String> args = new ArrayList<>(List.of("--model", MODEL, "--ctx", Long.toString(ctx)));
        args.addAll(List.of(w));
        assertEquals(
            read(Backend.CPU_REFERENCE, args), write(Backend.CPU_REFERENCE, args), args.toString());
        assertEquals(null, read(Backend.METAL, args.subList(0, 4)), "metal has no pool rule");
      }
    }
    assertEquals(
        "args: --prompt-tokens 512 + --n-predict 64 exceed the pool's 575 cells (--ctx 447 + 128):"
            + " lower them, or raise --ctx",
        write(Backend.CPU_REFERENCE, List.of("--model", MODEL, "--ctx", "447")));
    assertEquals(null, write(Backend.CPU_REFERENCE, List.of("--model", MODEL, "--ctx", "448")));
    // the reader points at the --ctx value (line 25 of the rendered file: args start at 22)
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigCodec.read(
                    yaml(Backend.CPU_REFERENCE, List.of("--model", MODEL, "--ctx", "10")),
                    "c10.yaml"));
    assertEquals(
        "c10.yaml:25:3: args: --prompt-tokens 512 + --n-predict 64 exceed the pool's 138 cells"
            + " (--ctx 10 + 128): lower them, or raise --ctx",
        e.getMessage());
    // without --ctx (the default 4096) the whole list is at fault
    assertEquals(
        "args: --prompt-tokens 5000 + --n-predict 64 exceed the pool's 4224 cells (--ctx 4096 +"
            + " 128): lower them, or raise --ctx",
        read(Backend.CPU_REFERENCE, List.of("--model", MODEL, "--prompt-tokens", "5000")));
  }
}
