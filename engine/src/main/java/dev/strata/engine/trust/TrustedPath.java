package dev.strata.engine.trust;

import dev.strata.engine.libc.Posix;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

/**
 * Resolves and opens the files that decide what runs under {@link OwnerRule}: the path is walked
 * one name at a time from {@code /}, each folder is checked as it is entered, each symlink is read
 * once (its folder and owner checked) and its target spliced into the walk, and the final file is
 * opened once ({@code O_NOFOLLOW}, so a link planted after the walk fails the open) and checked on
 * the open descriptor ({@code fstat}). The caller then reads or loads <em>that</em> descriptor,
 * never the path again.
 *
 * <p>Why a walk and not {@code toRealPath}: a symlink in the middle of the path lives in a folder
 * that must be checked too (whoever can write that folder can re-point the link), and {@code
 * toRealPath} forgets where the links were.
 */
public final class TrustedPath {
  /** As the kernel's {@code ELOOP} limit ({@code MAXSYMLINKS} is 40 on Linux). */
  static final int MAX_LINKS = 40;

  private TrustedPath() {}

  /**
   * What a message calls the file and where it came from.
   *
   * @param what "engine library", "config", "demo model", …
   * @param context where the name came from, ending the message ("engine.library in /c.yaml"), or
   *     null
   * @param output true for a file this run is about to write (setup's {@code --out}, the demo
   *     model, {@link OutputPlace}): a refusal then says what a writer in that folder could do to
   *     it ("redirect or replace what is written"); the remedy is the same rule's as for a file
   *     that is read
   * @param readWhole true for a file read whole through the one checked descriptor, nothing looked
   *     up beside it (the config): a sticky root-owned folder such as {@code /tmp} may hold it
   *     ({@link OwnerRule.Place#SHARED_HOLDER})
   */
  public record Subject(String what, String context, boolean output, boolean readWhole) {
    /** A file that is read (and decides what runs), its folder held strictly (a library). */
    public Subject(String what, String context) {
      this(what, context, false, false);
    }

    /** A file this run writes ({@link OutputPlace}). */
    public static Subject output(String what, String context) {
      return new Subject(what, context, true, false);
    }

    /** A file read whole through its descriptor, nothing beside it read (the config). */
    public static Subject readWhole(String what, String context) {
      return new Subject(what, context, false, true);
    }

    /** The place of the folder that holds the file or a link on the way. */
    OwnerRule.Place holder() {
      return readWhole ? OwnerRule.Place.SHARED_HOLDER : OwnerRule.Place.HOLDER;
    }

    String suffix() {
      return suffix(", or ");
    }

    /**
     * How the message ends: where the name came from. For a file this run writes, named by a flag
     * ({@code --out X}, {@code --dir X}), that is said as the alternative it is, "pass another
     * --out than X", never as a bare "--out X" a reader takes for the advice to rerun with it
     * (issue 28: never suggest what was just refused).
     *
     * @param join what leads into the alternative: ", or " after a remedy, ": " after "write it in
     *     another folder"
     */
    String suffix(String join) {
      if (context == null) {
        return "";
      }
      int sp = context.indexOf(' ');
      if (output && context.startsWith("--") && sp > 0) {
        return join
            + "pass another "
            + context.substring(0, sp)
            + " than "
            + context.substring(sp + 1);
      }
      return "; " + context;
    }
  }

  /**
   * An open, checked file: read or load through {@link #fd()}, never through the path.
   *
   * @param given the path as given (for messages)
   * @param real the path every link resolved (for messages)
   * @param fd the open read-only descriptor (close-on-exec)
   * @param stat {@code fstat} of {@code fd}
   */
  public record OpenFile(Path given, Path real, int fd, Posix.Stat stat) implements AutoCloseable {
    /** Reads the whole file through the descriptor. */
    public byte[] readAll() throws IOException {
      return Posix.readAll(fd, stat.size());
    }

    @Override
    public void close() {
      Posix.close(fd);
    }
  }

  /** The launching user: the effective uid of this process. */
  public static int me() {
    return Posix.geteuid();
  }

  /**
   * Walks {@code path}, checking every folder and link on the way, and returns the real path of the
   * final object (not itself checked: {@link #open} does that on the descriptor).
   *
   * @throws NoSuchFileException when a name on the way does not exist (the exception's file is the
   *     missing path)
   * @throws TrustRefused when a folder or link fails {@link OwnerRule}, or the links loop
   * @throws IOException when the walk cannot read an attribute
   */
  public static Path resolve(Path path, Subject subject, int me) throws IOException {
    return walk(path, path.toAbsolutePath(), subject, me);
  }

  /** {@link #resolve}, with messages naming {@code shown} as the file (a folder's file to come). */
  private static Path walk(Path path, Path shown, Subject subject, int me) throws IOException {
    Path abs = path.toAbsolutePath();
    Deque<String> todo = new ArrayDeque<>();
    for (Path name : abs) {
      todo.addLast(name.toString());
    }
    Path root = abs.getRoot();
    Path cur = root;
    requireFolder(cur, OwnerRule.Place.ABOVE, shown, subject, me);
    int links = 0;
    while (!todo.isEmpty()) {
      String name = todo.removeFirst();
      if (name.isEmpty() || name.equals(".")) {
        continue;
      }
      if (name.equals("..")) {
        cur = cur.getParent() == null ? cur : cur.getParent();
        continue;
      }
      Path next = cur.resolve(name);
      Map<String, Object> a;
      try {
        a = Files.readAttributes(next, "unix:mode,uid", LinkOption.NOFOLLOW_LINKS);
      } catch (NoSuchFileException e) {
        throw new NoSuchFileException(next.toString());
      }
      int mode = (Integer) a.get("mode");
      int uid = (Integer) a.get("uid");
      int type = mode & 0170000;
      if (type == 0120000) { // S_IFLNK
        requireFolder(cur, subject.holder(), shown, subject, me);
        // only a link's owner counts: its mode means nothing (always 0777 on Linux)
        if (OwnerRule.problem(uid, 0, me, OwnerRule.Place.LINK) != null) {
          throw new TrustRefused(
              "symlink "
                  + next
                  + " on the way to the "
                  + subject.what()
                  + " "
                  + shown
                  + " is owned by "
                  + OwnerMessage.owner(next, uid)
                  + ", not by "
                  + OwnerMessage.trusted(me)
                  + ": that user decides where it points (remove it and point to the file"
                  + " directly"
                  + subject.suffix()
                  + ")");
        }
        if (++links > MAX_LINKS) {
          throw new TrustRefused(
              subject.what()
                  + " "
                  + shown
                  + " is a symlink loop, or a chain of more than "
                  + MAX_LINKS
                  + " symlinks (point to the file directly"
                  + subject.suffix()
                  + ")");
        }
        Path target = Files.readSymbolicLink(next);
        if (target.isAbsolute()) {
          // from "/" again: checked when the walk began (there is one root)
          cur = target.getRoot();
        }
        Deque<String> spliced = new ArrayDeque<>();
        for (Path t : target) {
          spliced.addLast(t.toString());
        }
        while (!spliced.isEmpty()) {
          todo.addFirst(spliced.removeLast());
        }
        continue;
      }
      if (todo.isEmpty()) {
        if (type == 0040000) {
          // a folder at the end: checked as one passed through; the caller asks for more
          check(next, uid, mode & 07777, OwnerRule.Place.ABOVE, shown, subject, me);
        } else {
          requireFolder(cur, subject.holder(), shown, subject, me);
        }
        return next;
      }
      if (type != 0040000) { // S_IFDIR
        throw new NotDirectoryException(next.toString());
      }
      // Passed through: the sticky root exception applies here; the folder that holds the last
      // name is checked strictly once its type is known (below). A refusal of that folder is
      // worded as "of the …", a folder higher up as "above the …".
      if (OwnerRule.problem(uid, mode & 07777, me, OwnerRule.Place.ABOVE) != null) {
        boolean holder = todo.size() == 1 && !todo.peekFirst().equals("..");
        check(
            next,
            uid,
            mode & 07777,
            holder ? subject.holder() : OwnerRule.Place.ABOVE,
            shown,
            subject,
            me);
      }
      cur = next;
    }
    return cur; // the path named a folder ("/", or ending in "..")
  }

  /**
   * {@link #resolve}s {@code path}, opens the result once without following a link, and checks the
   * open file: a regular file, owned by root or {@code me}, not writable by group or others.
   *
   * @throws NoSuchFileException when the file or a folder on the way is missing
   * @throws TrustRefused when any object on the way, or the file, fails the rule
   * @throws IOException when it cannot be opened or read
   */
  public static OpenFile open(Path path, Subject subject, int me) throws IOException {
    return openResolved(path, resolve(path, subject, me), subject, me);
  }

  /**
   * The second half of {@link #open}: opens {@code real}, the walk's result for {@code path}, and
   * checks what was opened. Whatever changed at {@code real} since the walk is caught here: a
   * symlink put in the file's place fails the open ({@code O_NOFOLLOW}), another file is judged by
   * its own {@code fstat}.
   */
  static OpenFile openResolved(Path path, Path real, Subject subject, int me) throws IOException {
    Path abs = path.toAbsolutePath();
    String shown = abs.equals(real) ? abs.toString() : abs + " (resolved: " + real + ")";
    int fd;
    try {
      fd = Posix.open(real.toString(), false);
    } catch (IOException e) {
      if (!Files.exists(real, LinkOption.NOFOLLOW_LINKS)) {
        throw new NoSuchFileException(real.toString());
      }
      if (Files.isSymbolicLink(real)) {
        throw new TrustRefused(
            subject.what()
                + " "
                + shown
                + " became a symlink while it was being checked: something is changing it (find"
                + " out what, then try again"
                + subject.suffix()
                + ")");
      }
      if (!Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
        throw notRegular(subject, shown, real); // a socket: open says ENXIO
      }
      throw new IOException("cannot open " + real + ": " + e.getMessage(), e);
    }
    try {
      Posix.Stat st = Posix.fstat(fd);
      if (!st.regularFile()) {
        throw notRegular(subject, shown, real);
      }
      check(real, st.uid(), st.permissions(), OwnerRule.Place.FILE, abs, subject, me);
      return new OpenFile(abs, real, fd, st);
    } catch (IOException | RuntimeException e) {
      Posix.close(fd);
      throw e;
    }
  }

  private static TrustRefused notRegular(Subject subject, String shown, Path real) {
    // what it is (a folder, a FIFO, a socket, a device: FileKind, from its metadata), not only not
    String what = dev.strata.engine.FileKind.isNotRegular(real);
    return new TrustRefused(
        subject.what()
            + " "
            + shown
            + " "
            + (what != null ? what : "is not a regular file")
            + paren(subject.context()));
  }

  /**
   * Checks the folder that will hold {@code file} (setup's {@code --out}): every folder and link
   * down to it passes the rule and it holds the file (checked strictly). A folder that does not
   * exist yet is checked up to the nearest one that does: setup creates the rest, owned by the
   * user. The path is walked as the kernel will resolve it, never normalized first ({@code link/..}
   * is the parent of the link's target).
   *
   * @param file the file to be written (messages name it)
   * @throws TrustRefused naming the first folder that fails
   */
  public static void requireWritableFolder(Path file, Subject subject, int me) throws IOException {
    Path shown = file.toAbsolutePath();
    Path folder = shown.getParent();
    Path existing = folder;
    while (!Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      existing = existing.getParent(); // "/" exists: the loop ends there at the latest
    }
    if (existing.equals(folder)) {
      // the folder that will hold the file: strictly, and named as the file's folder
      requireFolder(existing.toRealPath(), OwnerRule.Place.HOLDER, shown, subject, me);
    }
    walk(existing, shown, subject, me); // every folder and link on the way
  }

  /**
   * Checks a folder something private will be created in (a fresh 0700 folder, made with {@code
   * mkdir}, which fails when the name exists): the folder and every folder down to it pass the rule
   * as folders passed through — a sticky root-owned {@code /tmp} passes.
   *
   * @return the folder's real path
   * @throws TrustRefused naming the first folder that fails
   */
  public static Path requireFolderAbove(Path folder, Subject subject, int me) throws IOException {
    return resolve(folder, subject, me);
  }

  private static void requireFolder(
      Path folder, OwnerRule.Place place, Path target, Subject subject, int me) throws IOException {
    Map<String, Object> a =
        Files.readAttributes(folder, "unix:mode,uid", LinkOption.NOFOLLOW_LINKS);
    check(
        folder,
        (Integer) a.get("uid"),
        (Integer) a.get("mode") & 07777,
        place,
        target,
        subject,
        me);
  }

  private static void check(
      Path p, int uid, int perms, OwnerRule.Place place, Path target, Subject subject, int me) {
    OwnerRule.Problem problem = OwnerRule.problem(uid, perms, me, place);
    if (problem == null) {
      return;
    }
    throw OwnerMessage.refusal(p, uid, perms, place, target, subject, me, problem);
  }

  private static String paren(String context) {
    return context == null ? "" : " (" + context + ")";
  }
}
