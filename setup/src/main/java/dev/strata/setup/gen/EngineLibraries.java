package dev.strata.setup.gen;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.Sha256;
import dev.strata.engine.StrataException;
import dev.strata.engine.gen.Generator;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.Backend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Which engine a config targets, and where its library is. */
public final class EngineLibraries {
  /** strata-ref's library name without prefix and suffix. */
  public static final String STRATA_REF = "strata_ref";

  private EngineLibraries() {}

  /**
   * The backend: {@code --backend} when given; else strata-ref when the library is strata-ref; else
   * Metal on a Mac host and cpu-reference elsewhere.
   */
  public static Backend backend(HostFacts host, Path library, Backend override) {
    if (override != null) {
      return override;
    }
    if (library != null && isStrataRef(library)) {
      return Backend.CPU_REFERENCE;
    }
    return host.isMac() ? Backend.METAL : Backend.CPU_REFERENCE;
  }

  static boolean isStrataRef(Path library) {
    String n = library.getFileName().toString().toLowerCase(Locale.ROOT).replace('-', '_');
    return n.contains(STRATA_REF);
  }

  /** The platform's shared-library suffix of the machine running setup. */
  public static String suffix(String osName) {
    return osName != null && osName.toLowerCase(Locale.ROOT).startsWith("mac") ? ".dylib" : ".so";
  }

  /**
   * Where an engine library is expected for a backend, in order: strata-ref from the distribution
   * ({@code <strata.home>/lib/native/}) or the build ({@code <strata.root>/engine/target/native/}).
   * The Metal engine ships outside this repository: it has no default, {@code --engine-lib} says
   * where it is.
   */
  public static List<Path> candidates(
      Backend backend, Path strataHome, Path strataRoot, String os) {
    List<Path> out = new ArrayList<>();
    if (backend == Backend.CPU_REFERENCE) {
      String file = "lib" + STRATA_REF + suffix(os);
      if (strataHome != null) {
        out.add(strataHome.resolve("lib").resolve("native").resolve(file));
      }
      if (strataRoot != null) {
        out.add(strataRoot.resolve("engine").resolve("target").resolve("native").resolve(file));
      }
    }
    return out;
  }

  /** The first candidate that is a regular file. */
  public static Optional<Path> discover(
      Backend backend, Path strataHome, Path strataRoot, String os) {
    for (Path p : candidates(backend, strataHome, strataRoot, os)) {
      if (Files.isRegularFile(p)) {
        return Optional.of(p.toAbsolutePath().normalize());
      }
    }
    return Optional.empty();
  }

  /** Why a path is not a usable library, or null when it is a readable regular file. */
  public static String problem(Path library) {
    if (!Files.exists(library)) {
      return library + ": no such file";
    }
    if (!Files.isRegularFile(library)) {
      return library + ": not a regular file";
    }
    if (!Files.isReadable(library)) {
      return library + ": not readable";
    }
    return null;
  }

  /** Hard limit on a library read for its hash: engine libraries are tens of MB. */
  static final long MAX_LIBRARY_BYTES = 2L << 30;

  /**
   * The library as the config names it: its absolute path, and its sha256 when the file is there (a
   * config for another Mac may name a library this machine does not have).
   */
  public static Generator.Library describe(Path library) {
    Path abs = library.toAbsolutePath().normalize();
    if (!Files.isRegularFile(abs)) {
      return new Generator.Library(abs.toString(), null);
    }
    try {
      if (Files.size(abs) > MAX_LIBRARY_BYTES) {
        throw new StrataException(ExitCodes.USAGE, abs + ": too large for an engine library");
      }
      return new Generator.Library(abs.toString(), Sha256.hex(Files.readAllBytes(abs)));
    } catch (IOException e) {
      throw new StrataException(ExitCodes.USAGE, abs + ": cannot read the engine library", e);
    }
  }
}
