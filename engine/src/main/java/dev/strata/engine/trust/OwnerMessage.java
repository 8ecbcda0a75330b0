package dev.strata.engine.trust;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * The one line a path that fails the ownership rule ({@link OwnerRule}) is refused with: what the
 * path is to the file checked, its owner and mode, who could do what through it, and a remedy the
 * user can take that makes the path safe (chmod only a path that is the user's own and not a shared
 * sticky folder; never chown another user's file over; otherwise move what runs).
 */
final class OwnerMessage {
  private OwnerMessage() {}

  /**
   * The refusal of {@code p} ({@code uid}, mode {@code perms}) at {@code place} on the way to
   * {@code target}, for {@code problem}.
   */
  static TrustRefused refusal(
      Path p,
      int uid,
      int perms,
      OwnerRule.Place place,
      Path target,
      TrustedPath.Subject subject,
      int me,
      OwnerRule.Problem problem) {
    String role =
        switch (place) {
          case FILE -> subject.what() + " " + p;
          case HOLDER, SHARED_HOLDER -> "folder " + p + " of the " + subject.what() + " " + target;
          case ABOVE -> "folder " + p + " above the " + subject.what() + " " + target;
          case LINK -> "symlink " + p;
        };
    String facts = " (owner " + owner(p, uid) + ", mode " + String.format("%04o", perms) + ")";
    // The remedy is one the user can take and that makes the path safe: chmod only a path that is
    // the user's own and not a shared sticky folder (never "chmod go-w /tmp"); never chown another
    // user's file or folder over (that adopts what they control); otherwise move what runs.
    String only = " a folder only " + (me == 0 ? "root" : "you or root") + " can write";
    String move =
        subject.output()
            ? "write the " + subject.what() + " in" + only
            : "move the " + subject.what() + " to" + only;
    String fix =
        switch (problem) {
          case OWNER ->
              switch (place) {
                case FILE -> "copy it to a folder you own, after checking it is the one you meant";
                case LINK -> "name the file itself, not a path through another user's symlink";
                case HOLDER, SHARED_HOLDER, ABOVE -> move;
              };
          case WRITABLE -> uid == me && (perms & 01000) == 0 ? "chmod go-w " + p : move;
        };
    String line =
        switch (problem) {
          case OWNER ->
              role
                  + facts
                  + " is not owned by "
                  + trusted(me)
                  + (subject.output()
                      ? ": its owner could redirect or replace what is written ("
                      : ": its owner could change what runs (")
                  + fix
                  + subject.suffix(fix.equals(move) ? ": " : ", or ")
                  + ")";
          case WRITABLE ->
              role
                  + facts
                  + " is writable by "
                  + ((perms & 0020) != 0 && (perms & 0002) != 0
                      ? "group and others"
                      : (perms & 0020) != 0 ? "its group" : "others")
                  + (place == OwnerRule.Place.ABOVE ? " without being a sticky root folder" : "")
                  + (subject.output()
                      ? ": they could redirect or replace what is written ("
                      : ": they could replace what runs (")
                  + fix
                  + subject.suffix(fix.equals(move) ? ": " : ", or ")
                  + ")";
        };
    return new TrustRefused(line);
  }

  /**
   * Who may own what runs, for a launch by {@code me}: "root" when that is root, else "root or by
   * you (alice (uid 1001))" — the name is this process's user name when {@code me} is this process,
   * else unknown ("uid 1001").
   */
  static String trusted(int me) {
    if (me == 0) {
      return "root";
    }
    return "root or by you ("
        + named(me == TrustedPath.me() ? System.getProperty("user.name") : null, me)
        + ")";
  }

  /** "alice (uid 1001)" for the owner of {@code p} when its name is known, else "uid 1001". */
  static String owner(Path p, int uid) {
    String name;
    try {
      // the path's owner now: its name only while it is still the uid the check saw
      name =
          ((Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)) == uid
              ? Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName()
              : null;
    } catch (IOException | RuntimeException e) {
      name = null;
    }
    return named(name, uid);
  }

  /** The JDK answers a uid with no name by its digits: shown once, as "uid 1001". */
  private static String named(String name, int uid) {
    if (name == null || name.equals(Integer.toString(uid))) {
      return "uid " + uid;
    }
    return name + " (uid " + uid + ")";
  }
}
