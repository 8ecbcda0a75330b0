package dev.strata.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A command's start-up fast path (strata-setup's {@code SetupOptions}, strata-launch's {@code
 * LaunchOptions}: an argument list read without picocli) against picocli's parse of the same list:
 * the one comparison both commands' differential tests make.
 */
public final class FastPathCheck {
  private FastPathCheck() {}

  /**
   * A command's own options by every name (help and version aside): those that take a value, and
   * the switches — what a fast path must know, no more and no fewer.
   */
  public record Options(Set<String> valued, Set<String> switches) {}

  /**
   * Asserts that {@code cl}'s command has exactly the options of {@code table}, the command's
   * option table, by every name, switches and valued alike: what picocli's model was built from is
   * what the fast path reads.
   */
  public static <T> void sameOptions(
      CommandLine cl, List<T> table, Function<T, List<String>> names, Predicate<T> isSwitch) {
    Set<String> valued = new HashSet<>();
    Set<String> switches = new HashSet<>();
    for (T row : table) {
      (isSwitch.test(row) ? switches : valued).addAll(names.apply(row));
    }
    assertEquals(new Options(valued, switches), options(cl));
  }

  /** {@link Options} of {@code cl}'s command. */
  public static Options options(CommandLine cl) {
    Set<String> valued = new HashSet<>();
    Set<String> switches = new HashSet<>();
    for (OptionSpec o : cl.getCommandSpec().options()) {
      if (!o.usageHelp() && !o.versionHelp()) {
        (o.arity().max() == 0 ? switches : valued).addAll(List.of(o.names()));
      }
    }
    return new Options(valued, switches);
  }

  /**
   * Asserts that {@code fast}, the fast path's answer for {@code argv}, agrees with {@code cl}'s
   * parse of it: null when picocli refuses the list or finds help, version or a subcommand in it;
   * otherwise null (picocli then parses) or equal to the request picocli's command object makes.
   *
   * @param cl a fresh command line, not yet parsed
   * @param request the request {@code cl}'s command object makes once parsed
   * @return whether the fast path answered the list
   */
  public static <R> boolean agrees(
      CommandLine cl, String[] argv, R fast, Function<Object, R> request) {
    List<String> args = List.of(argv);
    CommandLine.ParseResult parsed;
    try {
      parsed = cl.parseArgs(argv);
    } catch (CommandLine.ParameterException e) {
      assertNull(fast, "picocli refuses " + args + " (" + e.getMessage() + "), the fast path too");
      return false;
    }
    if (parsed.hasSubcommand()
        || parsed.isUsageHelpRequested()
        || parsed.isVersionHelpRequested()) {
      assertNull(fast, args + " is for picocli (help, version or a subcommand)");
      return false;
    }
    if (fast == null) {
      return false;
    }
    assertEquals(request.apply(cl.getCommand()), fast, "the same request from " + args);
    return true;
  }
}
