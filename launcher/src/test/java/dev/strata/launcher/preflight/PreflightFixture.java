package dev.strata.launcher.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostProfiles;
import dev.strata.testsupport.RepoRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What the in-process preflight tests share: host profiles (templates/hosts, the facts {@code
 * strata-launch --host-file} plans for), a Linux machine, strata-ref and its test builds as the
 * engine module built them, and configs made with the real {@link EngineConfig} record. Preflight
 * takes its host as {@link HostFacts} (the launch passes the probe's, {@code --host-file} a
 * profile's), so a test stands in any machine without a probe.
 */
final class PreflightFixture {
  private PreflightFixture() {}

  /** A Linux machine as the Linux probe reports one: not a Mac, 16 GiB. */
  static final HostFacts LINUX =
      new HostFacts(
          "linux", "AMD EPYC 7B13", 2, 2, 0, 16L << 30, 0, false, false, "Debian GNU/Linux 12", 0);

  /** The host profile {@code name} (templates/hosts/NAME.json). */
  static HostFacts profile(String name) {
    return HostProfiles.profile(name).orElseThrow(() -> new AssertionError("no profile " + name));
  }

  /** strata-ref as the engine module built it. */
  static Path strataRef() {
    Path lib = RepoRoot.refLibrary();
    assertTrue(Files.isRegularFile(lib), "strata-ref is built at " + lib);
    return lib;
  }

  /**
   * A test library the engine module's native build puts beside strata-ref: {@code
   * abi1/libstrata_ref.so} (strata-ref without {@code strata_engine_check}), {@code
   * libstrata_abi_mismatch.so} (ABI version 999), {@code libstrata_missing_symbol.so} (no {@code
   * strata_kv_decode}); {@code .so} becomes {@code .dylib} on a Mac.
   */
  static Path refBuild(String soName) {
    String suffix =
        RepoRoot.refLibrary().getFileName().toString().endsWith(".dylib") ? ".dylib" : ".so";
    Path lib = RepoRoot.refLibrary().resolveSibling(soName.replace(".so", suffix));
    assertTrue(Files.isRegularFile(lib), "built by engine/native/Makefile (test-libs): " + lib);
    return lib;
  }

  /**
   * A config: cpu-reference, strata-ref, the given shards, {@code --model <first shard> --ctx
   * 4096}, no env, made for {@link #LINUX}. Each {@code with…} returns a changed copy.
   */
  record Cfg(
      String backend,
      String library,
      String sha256,
      List<String> shards,
      HostFacts host,
      List<String> args,
      Map<String, String> env) {
    static Cfg of(List<Path> shards) {
      List<String> s = shards.stream().map(Path::toString).toList();
      return new Cfg(
          "cpu-reference",
          strataRef().toString(),
          null,
          s,
          LINUX,
          List.of("--model", s.getFirst(), "--ctx", "4096"),
          Map.of());
    }

    Cfg backend(String b) {
      return new Cfg(b, library, sha256, shards, host, args, env);
    }

    Cfg library(Path lib, String sha) {
      return new Cfg(backend, lib.toString(), sha, shards, host, args, env);
    }

    Cfg library(String lib) {
      return new Cfg(backend, lib, sha256, shards, host, args, env);
    }

    Cfg shards(List<String> s) {
      return new Cfg(backend, library, sha256, s, host, args, env);
    }

    Cfg host(HostFacts h) {
      return new Cfg(backend, library, sha256, shards, h, args, env);
    }

    /** {@code args} replaced. */
    Cfg args(String... a) {
      return new Cfg(backend, library, sha256, shards, host, List.of(a), env);
    }

    /** {@code more} appended to the args. */
    Cfg plus(String... more) {
      return new Cfg(
          backend,
          library,
          sha256,
          shards,
          host,
          Stream.concat(args.stream(), Stream.of(more)).toList(),
          env);
    }

    /** env {@code k=v} added. */
    Cfg env(String k, String v) {
      Map<String, String> e = new LinkedHashMap<>(env);
      e.put(k, v);
      return new Cfg(backend, library, sha256, shards, host, args, e);
    }

    EngineConfig config() {
      return new EngineConfig(
          EngineConfig.SCHEMA,
          new EngineConfig.Engine(backend, library, sha256),
          new EngineConfig.Model(shards),
          host,
          new ArrayList<>(args),
          env);
    }
  }

  /**
   * A check's line as {@code --dry-run} lists it: {@code name STATUS detail}, so one assertion
   * shows every check in order.
   */
  static List<String> lines(Preflight.Report r) {
    return r.checks().stream().map(c -> c.name() + " " + c.status() + " " + c.detail()).toList();
  }

  /** The refusal of a report that must be refused: exit 3, one line. */
  static String refusal(Preflight.Report r) {
    assertTrue(r.refused(), () -> "refused: " + lines(r));
    StrataException e = r.refusal();
    assertTrue(e instanceof PreflightRefused, e.getClass().getName());
    assertEquals(ExitCodes.PREFLIGHT, e.exitCode());
    assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
    Preflight.Check last = r.checks().getLast();
    assertEquals(Preflight.Status.REFUSED, last.status(), "the last check is the refused one");
    assertEquals(e.getMessage(), last.detail(), "the refused check shows the refusal");
    return e.getMessage();
  }
}
