package dev.strata.launcher.preflight;

import dev.strata.engine.Sha256;
import dev.strata.engine.StrataException;
import dev.strata.engine.ffm.LibraryFile;
import dev.strata.engine.ffm.VerifiedLibrary;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether an engine library may be loaded into this process, and the open, checked file to load.
 * Loading a library runs its code with the user's rights, so anyone who can replace it owns the
 * launch. The checks are {@link VerifiedLibrary#open}'s (docs/LAUNCH.md, "Preflight" and "What is
 * loaded"):
 *
 * <ul>
 *   <li>the path is walked from {@code /}: every folder on the way, every symlink followed and the
 *       folder holding each, owned by root or the launching user and not writable by group or
 *       others — a sticky root-owned folder like {@code /tmp} only above a folder that passes
 *       ({@link dev.strata.engine.trust.OwnerRule}, one rule for launcher, wizard and setup);
 *   <li>the file is opened once and checked on the open descriptor: a regular file, owned by root
 *       or the launching user, not writable by group or others;
 *   <li>its SHA-256 (of the bytes read through that descriptor) matches {@code engine.sha256} when
 *       the config pins one;
 *   <li>those bytes are a whole shared library for this machine's loader ({@link LibraryFile}), so
 *       a {@code --dry-run} refuses what the launch would.
 * </ul>
 *
 * The launch then loads that open file ({@code /proc/self/fd/N}, or a re-hashed private copy on
 * macOS), never the path again: a library renamed over the configured one after the check is not
 * what runs.
 */
public final class LibraryTrust {
  private LibraryTrust() {}

  /**
   * Checks {@code library} and returns it open, ready to load. The caller closes it.
   *
   * @param library the configured library path (absolute, or relative to the working folder)
   * @param sha256 the pinned hash (64 hex digits, either case), or null when not pinned
   * @param where names the config for messages (e.g. "/home/u/.config/strata/engine.yaml")
   * @throws PreflightRefused with one line naming the file and what to do
   */
  public static VerifiedLibrary check(Path library, String sha256, String where) {
    try {
      return VerifiedLibrary.open(library, sha256, "engine.library in " + where);
    } catch (StrataException e) {
      throw new PreflightRefused("", e);
    }
  }

  /** The SHA-256 of a file, lower-case hex (for writing a pin; a launch hashes what it loads). */
  public static String sha256Of(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return Sha256.hex(in);
    } catch (IOException e) {
      throw new PreflightRefused(
          "cannot read the engine library " + file + ": " + dev.strata.engine.IoReason.of(e));
    }
  }
}
