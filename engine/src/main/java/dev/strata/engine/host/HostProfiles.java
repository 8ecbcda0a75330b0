package dev.strata.engine.host;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Known Macs as host JSON ({@code templates/hosts/NAME.json}, packaged on the classpath under
 * {@code strata/templates/hosts/}), so a config can be generated for a machine other than this one.
 * {@code templates/hosts/index.txt} lists them in order with a one-line description; a test keeps
 * it equal to the folder.
 */
public final class HostProfiles {
  static final String ROOT = "strata/templates/hosts/";
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

  /**
   * One known Mac.
   *
   * @param name what {@code --host-file} accepts, e.g. {@code m4-pro-48}
   * @param description one line for {@code --list-hosts}
   */
  public record Profile(String name, String description) {}

  /**
   * Host facts and where they came from.
   *
   * @param facts the facts
   * @param source "profile m4-pro-48" or "file /path/to/host.json"
   */
  public record Loaded(HostFacts facts, String source) {}

  private HostProfiles() {}

  /** The known profiles, in the index's order. */
  public static List<Profile> list() {
    List<Profile> out = new ArrayList<>();
    for (String raw : resource("index.txt").orElseThrow().split("\n")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] parts = line.split("\\s+", 2);
      out.add(new Profile(parts[0], parts.length > 1 ? parts[1] : ""));
    }
    return List.copyOf(out);
  }

  /** The profile called {@code name}, when there is one. */
  public static Optional<HostFacts> profile(String name) {
    if (!NAME.matcher(name).matches()) {
      return Optional.empty();
    }
    return resource(name + ".json").map(json -> HostFactsCodec.read(json, "profile " + name));
  }

  /** {@link #open(String)}'s facts. */
  public static HostFacts load(String fileOrName) {
    return open(fileOrName).facts();
  }

  /**
   * Reads {@code fileOrName}: an existing path is read as a host file (so a file always wins over a
   * profile of the same name); otherwise a profile name.
   *
   * @throws HostFileException for a bad file, or a name that is neither a file nor a profile
   */
  public static Loaded open(String fileOrName) {
    return open(fileOrName, null);
  }

  /**
   * {@link #open(String)} with a relative path resolved against {@code workingDir} (null: the
   * process's own): the one path rule of {@code --host-file} (dev.strata.cli.HostFileOption).
   */
  public static Loaded open(String fileOrName, Path workingDir) {
    Path path = workingDir == null ? Path.of(fileOrName) : workingDir.resolve(fileOrName);
    if (Files.exists(path) || !NAME.matcher(fileOrName).matches()) {
      String shown = workingDir == null ? fileOrName : path.normalize().toString();
      return new Loaded(HostFactsCodec.read(path.normalize()), "file " + shown);
    }
    return profile(fileOrName)
        .map(f -> new Loaded(f, "profile " + fileOrName))
        .orElseThrow(
            () ->
                new HostFileException(
                    fileOrName
                        + ": no such file or host profile (profiles: "
                        + String.join(", ", list().stream().map(Profile::name).toList())
                        + ")",
                    null));
  }

  private static Optional<String> resource(String name) {
    try (InputStream in = HostProfiles.class.getClassLoader().getResourceAsStream(ROOT + name)) {
      if (in == null) {
        return Optional.empty();
      }
      return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the packaged " + ROOT + name, e);
    }
  }
}
