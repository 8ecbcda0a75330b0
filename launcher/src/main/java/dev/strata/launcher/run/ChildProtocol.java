package dev.strata.launcher.run;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the launcher and its {@code --isolate} child say to each other.
 *
 * <p>Child → launcher, on the child's standard output, one record a line (UTF-8):
 *
 * <ul>
 *   <li>{@code @strata:log:<level>:<text>} — one engine line;
 *   <li>{@code @strata:exit:<code>} — the engine returned this code (the last record);
 *   <li>{@code @strata:fail:<code>:<message>} — the engine could not start (missing library, ABI
 *       mismatch …): a one-line user error with its exit code.
 * </ul>
 *
 * Anything else on the child's streams is the child JVM's own output: lines starting with {@code #}
 * are HotSpot's fatal-error banner (read for the signal, never shown), other lines pass through to
 * standard error. A child that ends without an exit or fail record crashed.
 *
 * <p>Launcher → child, on the child's standard input: {@code cancel} asks the engine to stop; end
 * of input (the launcher is gone) does the same, so the child never outlives its launcher's pipe.
 *
 * <p>Child argv: {@code <handle> <sha256> <library> <env-count> <NAME=value>... <engine args>...}:
 * the handle is what the launcher checked and holds open ({@code VerifiedLibrary#handOver}: {@code
 * /proc/<launcher pid>/fd/N}, or a private copy on macOS), never the configured path; the child
 * re-hashes what it opens and refuses anything but {@code sha256}. The library path is for
 * messages.
 */
public final class ChildProtocol {
  static final String PREFIX = "@strata:";
  static final String LOG = PREFIX + "log:";
  static final String EXIT = PREFIX + "exit:";
  static final String FAIL = PREFIX + "fail:";
  static final String CANCEL = "cancel";

  private ChildProtocol() {}

  /** The child's command-line arguments. */
  public record ChildArgs(
      String handle,
      String sha256,
      String library,
      Map<String, String> env,
      List<String> engineArgs) {
    public ChildArgs {
      env = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(env));
      engineArgs = List.copyOf(engineArgs);
    }

    /** Encodes these arguments as the child's argv. */
    public List<String> encode() {
      List<String> argv = new ArrayList<>();
      argv.add(handle);
      argv.add(sha256);
      argv.add(library);
      argv.add(Integer.toString(env.size()));
      env.forEach((k, v) -> argv.add(k + "=" + v));
      argv.addAll(engineArgs);
      return argv;
    }

    /**
     * Decodes the child's argv.
     *
     * @throws IllegalArgumentException when argv was not written by {@link #encode}
     */
    public static ChildArgs decode(List<String> argv) {
      if (argv.size() < 4) {
        throw new IllegalArgumentException("expected <handle> <sha256> <library> <env-count> ...");
      }
      int n;
      try {
        n = Integer.parseInt(argv.get(3));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("bad env count: " + argv.get(3), e);
      }
      if (n < 0 || argv.size() < 4 + n) {
        throw new IllegalArgumentException("bad env count: " + n);
      }
      Map<String, String> env = new LinkedHashMap<>();
      for (String kv : argv.subList(4, 4 + n)) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException("bad env entry: " + kv);
        }
        env.put(kv.substring(0, eq), kv.substring(eq + 1));
      }
      return new ChildArgs(
          argv.get(0), argv.get(1), argv.get(2), env, argv.subList(4 + n, argv.size()));
    }
  }

  /** One engine line as log records: a text holding line breaks becomes several records. */
  static List<String> logRecords(int level, String text) {
    List<String> records = new ArrayList<>();
    for (String part : (text == null ? "" : text).split("\r?\n", -1)) {
      records.add(LOG + level + ":" + part);
    }
    // "a\n" splits into "a" and "": drop the empty tail a terminated line leaves
    if (records.size() > 1 && records.getLast().equals(LOG + level + ":")) {
      records.removeLast();
    }
    return records;
  }
}
