package dev.strata.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link SimpleArgs#options}: which lists the fast paths take, on a made-up command. The commands'
 * own lists against picocli's parse: {@code SetupArgsTest}, {@code LaunchArgsTest}.
 */
class SimpleArgsTest {
  private static final Set<String> VALUED = Set.of("--config", "-c", "--out");
  private static final Set<String> SWITCHES = Set.of("--dry-run", "--json");
  private static final Set<String> SUBCOMMANDS = Set.of("demo", "help");
  private static final Map<String, String> ALIASES = Map.of("-c", "--config");

  private static List<SimpleArgs.Option> options(String... args) {
    return SimpleArgs.options(args, VALUED, SWITCHES, SUBCOMMANDS, ALIASES);
  }

  @Test
  void simpleListsComeBackInOrderWithTheirValues() {
    assertEquals(List.of(), options());
    assertEquals(
        List.of(
            new SimpleArgs.Option("--json", null),
            new SimpleArgs.Option("-c", "a b.yaml"),
            new SimpleArgs.Option("--out", "x=y")),
        options("--json", "-c", "a b.yaml", "--out", "x=y"));
  }

  @Test
  void anythingElseIsLeftToPicocli() {
    assertNull(options("--config")); // its value missing
    assertNull(options("--config", "--json")); // an option where the value should be
    assertNull(options("--config", "-")); // starts with '-'
    assertNull(options("--config", "@args.txt")); // an argument file
    assertNull(options("--config", "demo")); // a subcommand's name
    assertNull(options("--config=a.yaml")); // not the plain form
    assertNull(options("--dry-run", "--dry-run")); // a repeat
    assertNull(options("-c", "a", "--config", "b")); // the same option by its other name
    assertNull(options("--unknown"));
    assertNull(options("extra"));
    assertNull(options("--"));
  }
}
