package dev.strata.setup.gen;

import dev.strata.engine.Backend;
import dev.strata.engine.StrataException;
import dev.strata.engine.ffm.LibraryFile;
import dev.strata.engine.ffm.StrataRefLibrary;
import dev.strata.engine.ffm.VerifiedLibrary;
import dev.strata.engine.gen.Generator;
import dev.strata.engine.host.HostFacts;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Which engine a config targets, and where its library is. */
public final class EngineLibraries {
  /** strata-ref's library name without prefix and suffix. */
  public static final String STRATA_REF = StrataRefLibrary.NAME;

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
    return StrataRefLibrary.suffix(osName);
  }

  /**
   * Where an engine library is expected for a backend, in order ({@link StrataRefLibrary}):
   * strata-ref from the distribution ({@code <strata.home>/lib/native/}) or the build ({@code
   * <strata.root>/engine/target/native/}). The Metal engine ships outside this repository: it has
   * no default, {@code --engine-lib} says where it is.
   */
  public static List<Path> candidates(
      Backend backend, Path strataHome, Path strataRoot, String os) {
    return backend == Backend.CPU_REFERENCE
        ? StrataRefLibrary.candidates(strataHome, strataRoot, os)
        : List.of();
  }

  /** The first candidate that is a regular file. */
  public static Optional<Path> discover(
      Backend backend, Path strataHome, Path strataRoot, String os) {
    return backend == Backend.CPU_REFERENCE
        ? StrataRefLibrary.discover(strataHome, strataRoot, os)
        : Optional.empty();
  }

  /**
   * Why a path is not a usable library for a config for {@code host}, or null when it is: the
   * wizard's library question asks {@link #describe}, the rule {@code --engine-lib} gets, so the
   * two take the same paths (a library this machine does not have included).
   */
  public static String problem(Path library, HostFacts host) {
    try {
      describe(library, host);
      return null;
    } catch (StrataException e) {
      return e.getMessage();
    }
  }

  /** Whether the config will name the library without a sha256: it is not on this machine. */
  public static boolean absentHere(Path library) {
    return !Files.exists(library.toAbsolutePath().normalize(), LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * The library as the config names it: its absolute path, and its sha256 when the file is there (a
   * config for another Mac may name a library this machine does not have). A library that is there
   * is checked at once as a launch would check it (owner, mode, folders, links, a whole library for
   * the host's loader), so setup writes nothing a launch would refuse.
   *
   * @throws StrataException (exit 3) with the words a launch would use
   */
  public static Generator.Library describe(Path library, HostFacts host) {
    Path abs = library.toAbsolutePath().normalize();
    if (absentHere(abs)) {
      return new Generator.Library(abs.toString(), null);
    }
    return new Generator.Library(
        abs.toString(), VerifiedLibrary.checkForConfig(abs, "--engine-lib", format(host)));
  }

  private static LibraryFile.Format format(HostFacts host) {
    return host.isMac() ? LibraryFile.Format.MACH_O : LibraryFile.Format.ELF;
  }
}
