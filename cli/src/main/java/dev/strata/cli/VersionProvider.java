package dev.strata.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code --version} of every Strata command: {@code <root command> <version>} and the Java runtime
 * it runs on, e.g. {@code strata-setup 0.1.0} / {@code Java 25.0.3+9-LTS (OpenJDK 64-Bit Server
 * VM)}. The version is the build's, filtered into {@code version.properties} by Maven.
 */
public final class VersionProvider implements IVersionProvider {
  @CommandLine.Spec CommandSpec spec;

  /** The build's version, or "unknown" when the resource is missing (a broken class path). */
  public static String version() {
    Properties p = new Properties();
    try (InputStream in = VersionProvider.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // fall through to "unknown"
    }
    return p.getProperty("version", "unknown");
  }

  @Override
  public String[] getVersion() {
    return lines(spec == null ? "strata" : spec.root().name());
  }

  /** The version lines for {@code command}. */
  public static String[] lines(String command) {
    return new String[] {
      command + " " + version(),
      "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")"
    };
  }
}
