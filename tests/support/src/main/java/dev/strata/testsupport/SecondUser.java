package dev.strata.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A second, unprivileged user for ownership tests: created with {@code useradd} under a unique name
 * (no home folder, no login shell) and removed again by {@link #close()} — or, if the JVM is ended
 * first (a PIT minion stopped at its time limit), by a shutdown hook. Tests that need one run as
 * root; {@link #create} answers null elsewhere, and the test skips with {@link #WHY_NOT}.
 *
 * <p>Files are given to the user with {@link #own}, which changes the owner of a symlink itself
 * ({@code lchown}), never its target.
 */
public final class SecondUser implements AutoCloseable {
  /** Why {@link #create} gave no user: for the skip message. */
  public static final String WHY_NOT =
      "needs root and /usr/sbin/useradd to create a second user (the tests run as root on CI)";

  private final String name;
  private final int uid;
  private final Thread hook;
  private boolean closed;

  private SecondUser(String name, int uid) {
    this.name = name;
    this.uid = uid;
    this.hook = new Thread(this::remove, "userdel " + name);
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /**
   * Creates a user named {@code prefix-<8 hex digits>}, or answers null when this process is not
   * root or {@code useradd} is missing.
   *
   * @param prefix a few lower-case letters and digits naming the test ("st21")
   * @throws IOException when useradd fails (after retrying while another test holds the lock)
   */
  public static SecondUser create(String prefix) throws IOException, InterruptedException {
    Path useradd = Path.of("/usr/sbin/useradd");
    Path self = Path.of("/proc/self"); // owned by this process's effective uid
    if (!Files.isExecutable(useradd)
        || !Files.exists(self)
        || (Integer) Files.getAttribute(self, "unix:uid") != 0) {
      return null;
    }
    String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    String out = "";
    // useradd exits 10 when another useradd/userdel holds /etc/passwd's lock: other tests may
    for (int attempt = 0; attempt < 20; attempt++) {
      Process p =
          new ProcessBuilder(useradd.toString(), "-M", "-N", "-s", "/usr/sbin/nologin", name)
              .redirectErrorStream(true)
              .start();
      out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        break;
      }
      if (p.exitValue() == 0) {
        return new SecondUser(name, uidOf(name));
      }
      if (p.exitValue() != 10) {
        break;
      }
      Thread.sleep(200);
    }
    throw new IOException("useradd " + name + " failed: " + out.strip());
  }

  private static int uidOf(String name) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("id", "-u", name).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("id -u " + name + ": " + out);
    }
    return Integer.parseInt(out);
  }

  /** The user's name. */
  public String name() {
    return name;
  }

  /** The user's id. */
  public int uid() {
    return uid;
  }

  /** Makes the user own {@code p} (a symlink itself, not its target); returns {@code p}. */
  public Path own(Path p) throws IOException {
    return ownBy(p, uid);
  }

  /** Makes {@code uid} (which need not name any user) own {@code p} or the symlink {@code p}. */
  public static Path ownBy(Path p, int uid) throws IOException {
    Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
    return p;
  }

  /**
   * A uid that names no user on this machine (counting down from 59999, below the range useradd
   * hands out by default): files of it show as "uid N".
   */
  public static int unnamedUid() throws IOException {
    java.util.Set<String> taken = new java.util.HashSet<>();
    for (String line : Files.readAllLines(Path.of("/etc/passwd"), StandardCharsets.UTF_8)) {
      String[] f = line.split(":");
      if (f.length > 2) {
        taken.add(f[2]);
      }
    }
    for (int uid = 59999; uid > 50000; uid--) {
      if (!taken.contains(Integer.toString(uid))) {
        return uid;
      }
    }
    throw new IOException("no free uid between 50001 and 59999");
  }

  /**
   * A second user for one test class: made before its first test, removed after its last. Use as
   * {@code @RegisterExtension static final SecondUser.PerClass ATT = new
   * SecondUser.PerClass("st");} and take {@link #user()} (null where none can be made: skip with
   * {@link #WHY_NOT}).
   */
  public static final class PerClass implements BeforeAllCallback, AfterAllCallback {
    private final String prefix;
    private SecondUser user;

    public PerClass(String prefix) {
      this.prefix = prefix;
    }

    /** The user, or null when this machine cannot make one. */
    public SecondUser user() {
      return user;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException, InterruptedException {
      user = create(prefix);
    }

    @Override
    public void afterAll(ExtensionContext context) {
      if (user != null) {
        user.close();
      }
    }
  }

  @Override
  public void close() {
    remove();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: the hook runs (remove() then does nothing)
    }
  }

  private synchronized void remove() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      for (int attempt = 0; attempt < 20; attempt++) {
        Process p = new ProcessBuilder("/usr/sbin/userdel", name).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 10) {
          return;
        }
        Thread.sleep(200);
      }
    } catch (IOException e) {
      // nothing more to do: the name is unique, a leftover harms no other test
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
