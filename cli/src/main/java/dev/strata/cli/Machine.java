package dev.strata.cli;

import dev.strata.engine.host.ProbeResult;
import dev.strata.engine.text.TerminalText;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What a command knows of the machine it runs on, beyond its streams: injected so tests stay
 * hermetic and can stand in any host (a host profile instead of the live probe).
 *
 * @param osName the {@code os.name} property (config path rule, library suffix, Mac-only paths)
 * @param workingDir where relative paths on the command line start (absolute)
 * @param strataHome the distribution's root ({@code -Dstrata.home}), or null
 * @param strataRoot the source tree's root ({@code -Dstrata.root}), or null
 * @param probe the live host probe (used when no {@code --host-file} is given), given the
 *     environment it reads ({@code STRATA_PROBE}, the cache folder's HOME / XDG_CACHE_HOME)
 * @param clock the wall clock (time stamps in reports)
 */
public record Machine(
    String osName,
    Path workingDir,
    Path strataHome,
    Path strataRoot,
    Function<Map<String, String>, ProbeResult> probe,
    Clock clock) {

  /**
   * This process's machine: system properties, the working folder, the system clock and {@code
   * probe} (the metal module's {@code HostProbe::probe}; the engine module has no probe of its
   * own).
   */
  public static Machine system(Function<Map<String, String>, ProbeResult> probe) {
    return new Machine(
        System.getProperty("os.name"),
        Path.of("").toAbsolutePath(),
        pathProperty("strata.home"),
        pathProperty("strata.root"),
        probe,
        Clock.systemUTC());
  }

  /**
   * Probes this machine ({@link #probe()} with {@code env}) and says on stderr what the probe could
   * not read or had to take from elsewhere: each of its notes that {@code shown} keeps, as one line
   * {@code <command>: probe: <note>} (control characters made visible). The one rule for both
   * commands: after a GPU probe that crashed or hung, the GPU facts come from the chip name, and a
   * launch says so as strata-setup does (metal/src/main/java/dev/strata/metal/MacProbe.java writes
   * the note).
   *
   * @param shown which notes to print (strata-setup leaves out Metal's when {@code --gpu-family}
   *     answered for Metal)
   */
  public ProbeResult probeAndSay(
      Io io, String command, Map<String, String> env, Predicate<String> shown) {
    ProbeResult r = probe.apply(env);
    for (String note : r.notes()) {
      if (shown.test(note)) {
        io.err().println(command + ": probe: " + TerminalText.escape(note));
      }
    }
    io.err().flush();
    return r;
  }

  /**
   * {@code path} resolved against {@link #workingDir()}: the one rule for paths on a command line.
   */
  public Path resolve(Path path) {
    return workingDir.resolve(path).normalize();
  }

  private static Path pathProperty(String name) {
    String v = System.getProperty(name);
    return v == null || v.isBlank() ? null : Path.of(v);
  }
}
