package dev.strata.engine.ffm;

import dev.strata.engine.Folders;
import dev.strata.engine.Sha256;
import dev.strata.engine.libc.Posix;
import dev.strata.engine.trust.TrustRefused;
import dev.strata.engine.trust.TrustedPath;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * An engine library opened once and checked on that open file, ready to be loaded as exactly the
 * bytes that were checked. This is the one way the toolkit loads an engine (docs/LAUNCH.md, "What
 * is loaded"):
 *
 * <ol>
 *   <li>{@link TrustedPath#open}: the path is walked from {@code /} with every folder and symlink
 *       checked ({@code OwnerRule}: owned by root or the launching user, not writable by group or
 *       others), the file is opened once ({@code O_NOFOLLOW}) and its {@code fstat} checked (a
 *       regular file, owner, mode);
 *   <li>the whole file is read through that descriptor; its SHA-256 and its header ({@link
 *       LibraryFile}) are checked on those bytes; the hash must match {@code engine.sha256} when
 *       the config pins one;
 *   <li>{@link #load()} hands the dynamic loader <em>that</em> file: on Linux the name {@code
 *       /proc/self/fd/N} of the open descriptor ({@link Strategy#FD_PATH}); on macOS, which has no
 *       such name, a copy of the checked bytes written into a fresh folder only this user can enter
 *       (mode 0700, created with {@code O_EXCL}), read back and re-hashed, then loaded ({@link
 *       Strategy#PRIVATE_COPY}).
 * </ol>
 *
 * A swapper renaming another library over the configured path between any two of these steps
 * changes nothing: the path is never opened again. The {@code --isolate} child gets {@link
 * #handOver()} (the launcher's descriptor as {@code /proc/<pid>/fd/N}, or the private copy) and the
 * hash, and loads through {@link #openHandedOver}, which re-hashes what it opened.
 *
 * <p>Not thread-safe; close it once the engine is loaded or the run is over. The loaded engine
 * stays valid after {@link #close()} (the loader keeps its own mapping).
 */
public final class VerifiedLibrary implements AutoCloseable {

  /** How the verified bytes reach the dynamic loader. */
  public enum Strategy {
    /** Linux: {@code dlopen("/proc/self/fd/N")} of the checked descriptor. */
    FD_PATH,
    /** macOS (and a test of that path anywhere): a re-hashed copy in a private 0700 folder. */
    PRIVATE_COPY;

    /** This machine's way: {@link #FD_PATH} where {@code /proc/self/fd} exists, else a copy. */
    public static Strategy here() {
      return Files.isDirectory(Path.of("/proc/self/fd")) ? FD_PATH : PRIVATE_COPY;
    }
  }

  /**
   * What was checked: the same for every use of the library, and true for as long as it is open.
   *
   * @param configured the library as the config names it
   * @param real the file that was opened, every link resolved: for messages only, never re-opened
   * @param sha256 the SHA-256 of the checked bytes, lower-case hex
   * @param pinned whether the config pinned the hash (and it matched)
   * @param strategy how the bytes reach the loader; null when checked for a config, never loaded
   */
  public record Checked(
      Path configured, Path real, String sha256, boolean pinned, Strategy strategy) {}

  private final Checked checked;
  private TrustedPath.OpenFile file;
  private final Path privateDir;
  private final Path loadPath;
  private boolean closed;

  private VerifiedLibrary(
      Checked checked, TrustedPath.OpenFile file, Path privateDir, Path loadPath) {
    this.checked = checked;
    this.file = file;
    this.privateDir = privateDir;
    this.loadPath = loadPath;
  }

  /**
   * Opens and checks {@code library} for this machine's loader.
   *
   * @param library the library path (absolute, or relative to the working folder)
   * @param pinnedSha256 the pinned hash (64 hex digits, either case), or null/blank when not pinned
   * @param context where the path came from, for messages ("engine.library in /c/engine.yaml"), or
   *     null
   * @throws TrustRefused (exit 3) when a folder, link or the file fails the ownership rule
   * @throws EngineLoadException (exit 3) when it is missing, unreadable, not a whole library for
   *     this machine, or does not match the pin
   */
  public static VerifiedLibrary open(Path library, String pinnedSha256, String context) {
    return open(library, pinnedSha256, context, Strategy.here(), TrustedPath.me());
  }

  /**
   * What {@code strata-setup --engine-lib} and the wizard run the moment a library is given: every
   * check a launch makes (ownership and mode of the file, its folders and links; a whole library)
   * for the loader of the machine the config is for, then closed. Nothing is loaded.
   *
   * @param format the library format of the config's host (Mach-O for a Mac host)
   * @return the SHA-256 of the checked bytes, to pin
   * @throws StrataException (exit 3) with the words a launch would use
   */
  public static String checkForConfig(Path library, String context, LibraryFile.Format format) {
    try (VerifiedLibrary v = open(library, null, context, null, TrustedPath.me(), format)) {
      return v.checked().sha256();
    }
  }

  /** As {@link #open(Path, String, String)} with the strategy and the launching user given. */
  public static VerifiedLibrary open(
      Path library, String pinnedSha256, String context, Strategy strategy, int me) {
    return open(library, pinnedSha256, context, strategy, me, LibraryFile.Format.here());
  }

  /** With {@code strategy} null the file is checked and held, never prepared for loading. */
  private static VerifiedLibrary open(
      Path library,
      String pinnedSha256,
      String context,
      Strategy strategy,
      int me,
      LibraryFile.Format format) {
    Objects.requireNonNull(library, "library");
    Path abs = library.toAbsolutePath();
    TrustedPath.OpenFile f;
    try {
      f = TrustedPath.open(abs, new TrustedPath.Subject("engine library", context), me);
    } catch (NoSuchFileException | NotDirectoryException e) {
      throw new EngineLoadException(
          "engine library not found: "
              + abs
              + (e.getFile() == null || e.getFile().equals(abs.toString())
                  ? ""
                  : " ("
                      + e.getFile()
                      + (e instanceof NotDirectoryException
                          ? " is a file, not a folder)"
                          : " does not exist)"))
              + " ("
              + (context == null ? "" : context + "; ")
              + "build strata-ref with ./strata build, or rerun strata-setup --engine-lib PATH)");
    } catch (IOException e) {
      throw new EngineLoadException(
          "engine library " + abs + " cannot be checked: " + e.getMessage(), e);
    }
    boolean keep = false;
    try {
      String name = named(abs, f.real());
      byte[] bytes;
      try {
        bytes = f.readAll();
      } catch (IOException e) {
        throw new EngineLoadException(
            "engine library " + name + " cannot be read: " + e.getMessage(), e);
      }
      String actual = sha256(bytes);
      boolean pinned = pinnedSha256 != null && !pinnedSha256.isBlank();
      if (pinned) {
        String want = pinnedSha256.strip().toLowerCase(Locale.ROOT);
        if (!actual.equals(want)) {
          throw new EngineLoadException(
              "engine library "
                  + name
                  + " does not match engine.sha256"
                  + (context == null
                      ? ""
                      : " in " + context.replaceFirst("^engine\\.library in ", ""))
                  + " ("
                  + Sha256.compared("pinned", want, "file", actual)
                  + "): restore the library, or rerun strata-setup to pin the new one");
        }
      }
      String problem = LibraryFile.problem(bytes, format);
      if (problem != null) {
        throw new EngineLoadException("engine library " + name + " " + problem);
      }
      VerifiedLibrary v;
      if (strategy == Strategy.FD_PATH || strategy == null) {
        v =
            new VerifiedLibrary(
                new Checked(abs, f.real(), actual, pinned, strategy), f, null, null);
      } else {
        Path dir = PrivateCopy.folder(me);
        Path copy;
        try {
          copy = PrivateCopy.write(bytes, actual, dir, f.real().getFileName().toString(), me);
        } catch (RuntimeException e) {
          Folders.deleteQuietly(dir);
          throw e;
        }
        v = new VerifiedLibrary(new Checked(abs, f.real(), actual, pinned, strategy), f, dir, copy);
      }
      keep = true;
      return v;
    } finally {
      if (!keep) {
        f.close();
      }
    }
  }

  /**
   * The {@code --isolate} child's side: opens what the launcher handed over ({@link #handOver()}),
   * re-hashes it and checks it is the library the launcher verified.
   *
   * @param handle the launcher's {@link #handOver()}
   * @param sha256 the launcher's {@link #sha256()}
   * @param shown the configured path, for messages and {@code argv[0]}
   * @throws EngineLoadException (exit 3) when it cannot be opened or its hash differs
   */
  public static VerifiedLibrary openHandedOver(String handle, String sha256, String shown) {
    return openHandedOver(handle, sha256, shown, Strategy.here());
  }

  /** As {@link #openHandedOver(String, String, String)} for the launcher's {@code strategy}. */
  static VerifiedLibrary openHandedOver(
      String handle, String sha256, String shown, Strategy strategy) {
    Path abs = Path.of(shown).toAbsolutePath();
    int fd;
    Posix.Stat st;
    byte[] bytes;
    try {
      // A /proc/<pid>/fd/N name is a link by nature: follow it (the kernel opens the inode the
      // launcher holds); a private copy is a plain file in a folder only this user enters.
      fd = Posix.open(handle, strategy == Strategy.FD_PATH);
    } catch (IOException e) {
      throw new EngineLoadException(
          "engine library "
              + abs
              + " handed to the isolated engine cannot be opened: "
              + e.getMessage(),
          e);
    }
    TrustedPath.OpenFile f;
    try {
      st = Posix.fstat(fd);
      f = new TrustedPath.OpenFile(abs, Path.of(handle), fd, st);
      if (!st.regularFile()) {
        throw new EngineLoadException(
            "engine library " + abs + " handed to the isolated engine is not a regular file");
      }
      bytes = f.readAll();
    } catch (IOException e) {
      Posix.close(fd);
      throw new EngineLoadException(
          "engine library "
              + abs
              + " handed to the isolated engine cannot be read: "
              + e.getMessage(),
          e);
    } catch (RuntimeException e) {
      Posix.close(fd);
      throw e;
    }
    String actual = sha256(bytes);
    if (!actual.equalsIgnoreCase(sha256)) {
      f.close();
      throw new EngineLoadException(
          "engine library "
              + abs
              + " handed to the isolated engine is not the file the launcher checked ("
              + Sha256.compared("sha256", actual, "checked", sha256)
              + ")");
    }
    Path loadPath = strategy == Strategy.PRIVATE_COPY ? Path.of(handle) : null;
    return new VerifiedLibrary(new Checked(abs, abs, actual, true, strategy), f, null, loadPath);
  }

  /** What was checked. */
  public Checked checked() {
    return checked;
  }

  /**
   * One phrase for {@code --dry-run} and the docs: what the loader is given, e.g. "the checked open
   * file (/proc/self/fd/N)" or "a private copy … (sha256 re-checked)".
   */
  public String loadedVia() {
    return checked.strategy() == Strategy.FD_PATH
        ? "the open file that was checked (/proc/self/fd/N), never the path again"
        : "a copy of the checked bytes in a private 0700 folder (sha256 re-checked): "
            + (loadPath == null ? "?" : loadPath);
  }

  /**
   * What the {@code --isolate} child opens instead of the path: this process's descriptor as {@code
   * /proc/<pid>/fd/N}, or the private copy. Valid while this object is open.
   */
  public String handOver() {
    requireOpen();
    return checked.strategy() == Strategy.FD_PATH
        ? "/proc/" + ProcessHandle.current().pid() + "/fd/" + file.fd()
        : loadPath.toString();
  }

  /**
   * The name handed to {@code dlopen}: {@code /proc/self/fd/N}, or the private copy. Package
   * private: {@link NativeEngine#load(VerifiedLibrary)} is the one caller.
   */
  String loadName(int fd) {
    return checked.strategy() == Strategy.FD_PATH ? "/proc/self/fd/" + fd : loadPath.toString();
  }

  /** The open descriptor (for {@link NativeEngine#load(VerifiedLibrary)}). */
  int fd() {
    requireOpen();
    return file.fd();
  }

  /**
   * Loads the checked bytes and binds the engine's ABI.
   *
   * @throws EngineLoadException (exit 3) when the loader refuses it, a symbol is missing or the ABI
   *     version differs
   */
  public NativeEngine load() {
    if (checked.strategy() == null) {
      throw new IllegalStateException(
          "checked for a config, not for loading: " + checked.configured());
    }
    return NativeEngine.load(this);
  }

  /** Closes the descriptor and deletes the private copy. A loaded engine stays valid. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (file != null) {
      file.close();
      file = null;
    }
    if (privateDir != null) {
      Folders.deleteQuietly(privateDir);
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("engine library " + checked.configured() + " was closed");
    }
  }

  /** The SHA-256 of {@code bytes}, lower-case hex ({@link Sha256}). */
  public static String sha256(byte[] bytes) {
    return Sha256.hex(bytes);
  }

  static String named(Path configured, Path real) {
    if (configured.equals(real)) {
      return configured.toString();
    }
    return configured
        + (Files.isSymbolicLink(configured) ? " (a symlink to " : " (resolved: ")
        + real
        + ")";
  }
}
