package dev.strata.engine.trust;

/**
 * The one ownership rule for everything that decides what runs — the engine library, the config,
 * their folders and every folder above them — in the manner of OpenSSH's {@code StrictModes}
 * ({@code secure_path} in OpenSSH's {@code misc.c}): each must be owned by root or by the user who
 * launches, and must not be writable by group or others. One exception, for shared folders like
 * {@code /tmp}: a folder that is only passed through on the way down (never the folder that holds
 * the file or a symlink that is followed) may be group- or world-writable when it is owned by root
 * and has the sticky bit, because there only an entry's owner may rename or delete it — the folder
 * below must then pass on its own. The same folder may hold a config ({@link Place#SHARED_HOLDER}),
 * never a library. The launcher ({@code Preflight}), the wizard and {@code strata-setup
 * --engine-lib}/{@code --out} all reach it through {@link TrustedPath}, so setup refuses exactly
 * what launch would (docs/RELIABILITY.md, "Who may change what runs").
 *
 * <p>Pure: the caller supplies the owner and mode (from {@code lstat} of a folder, {@code fstat} of
 * the open file).
 */
public final class OwnerRule {
  /** Group- and other-write bits. */
  static final int GO_WRITE = 0022;

  static final int STICKY = 01000;

  /** Where an object sits in the walk down to the file. */
  public enum Place {
    /** The file itself (library or config), checked on the open descriptor. */
    FILE,
    /** A folder that holds the file or a symlink the walk follows. */
    HOLDER,
    /**
     * A folder that holds a file read whole through its one checked descriptor, with nothing looked
     * up beside it (the config; {@link TrustedPath.Subject#readWhole}), or a symlink on the way to
     * one: the sticky, root-owned exception applies. Others may create names in such a folder but
     * not rename or remove the user's (the sticky bit), and a name they create first is their file
     * or link, refused by its own owner. A library's folder stays {@link #HOLDER}: what is loaded
     * may look beside itself for what it loads next, a name anyone could create first.
     */
    SHARED_HOLDER,
    /** A folder only passed through: the sticky, root-owned exception applies. */
    ABOVE,
    /** A symlink the walk follows: its owner counts (its mode does not exist on Linux). */
    LINK
  }

  /** What is wrong with one object. */
  public enum Problem {
    /** Owned by neither root nor the launching user. */
    OWNER,
    /** Writable by group or others (and not a sticky root-owned folder passed through). */
    WRITABLE
  }

  private OwnerRule() {}

  /**
   * True when permission bits {@code perms} let group or others write ({@code S_IWGRP|S_IWOTH}).
   */
  public static boolean writableByOthers(int perms) {
    return (perms & GO_WRITE) != 0;
  }

  /**
   * What is wrong with an object owned by {@code uid} with permission bits {@code perms} ({@code
   * st_mode & 07777}) at {@code place}, for a launch by user {@code me}; null when it passes.
   */
  public static Problem problem(int uid, int perms, int me, Place place) {
    if (uid != 0 && uid != me) {
      return Problem.OWNER;
    }
    if (place == Place.LINK) {
      return null;
    }
    if (writableByOthers(perms)) {
      boolean stickyRoot = uid == 0 && (perms & STICKY) != 0;
      boolean shared = place == Place.ABOVE || place == Place.SHARED_HOLDER;
      return stickyRoot && shared ? null : Problem.WRITABLE;
    }
    return null;
  }
}
