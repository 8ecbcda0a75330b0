package dev.strata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link SimpleArgs#scan}: which lists the fast paths take, on a made-up table. The commands' own
 * tables against picocli's parse: {@code SetupOptionsTest}, {@code LaunchOptionsTest}.
 */
class SimpleArgsTest {
  private static final CliOption<Path> CONFIG =
      CliOption.path("--config", "FILE", "a config", "FILE").alias("-c");
  private static final CliOption<String> OUT = CliOption.text("--out", "FILE", "out");
  private static final CliOption<Boolean> DRY_RUN = CliOption.flag("--dry-run", "dry");
  private static final CliOption<Boolean> JSON = CliOption.flag("--json", "json").inGroup("g");
  private static final CliOption<Boolean> TEXT = CliOption.flag("--text", "text").inGroup("g");
  private static final CliOption<Integer> N =
      CliOption.of(
              "-n",
              "N",
              "a digit",
              s -> {
                if (!s.matches("[0-9]")) {
                  throw new CliOption.Refused("not a digit", false);
                }
                return Integer.parseInt(s);
              })
          .defaultsTo("7");
  private static final CliOption<String> SLOW = CliOption.text("--slow", "X", "").picocliOnly();
  private static final List<CliOption<?>> TABLE =
      List.of(CONFIG, OUT, DRY_RUN, JSON, TEXT, N, SLOW);
  private static final Set<String> SUBCOMMANDS = Set.of("demo", "help");

  private static CliValues scan(String... args) {
    return SimpleArgs.scan(args, TABLE, SUBCOMMANDS);
  }

  @Test
  void simpleListsGiveTheirValuesReadByTheirRows() {
    CliValues none = scan();
    assertNull(none.get(CONFIG));
    assertFalse(none.on(JSON));
    assertEquals(7, none.get(N), "the default, read by the row");
    CliValues v = scan("--json", "-c", "a b.yaml", "--out", "x=y", "-n", "3");
    assertTrue(v.on(JSON));
    assertFalse(v.on(DRY_RUN));
    assertEquals(Path.of("a b.yaml"), v.get(CONFIG), "by its alias, read as a path");
    assertEquals("x=y", v.get(OUT));
    assertEquals(3, v.get(N));
  }

  @Test
  void anythingElseIsLeftToPicocli() {
    assertNull(scan("--config")); // its value missing
    assertNull(scan("--config", "--json")); // an option where the value should be
    assertNull(scan("--config", "-")); // starts with '-'
    assertNull(scan("--config", "@args.txt")); // an argument file
    assertNull(scan("--config", "demo")); // a subcommand's name
    assertNull(scan("--config", "a\0b")); // not a path
    assertNull(scan("-n", "x")); // refused by its reader
    assertNull(scan("--config=a.yaml")); // not the plain form
    assertNull(scan("--dry-run", "--dry-run")); // a repeat
    assertNull(scan("-c", "a", "--config", "b")); // the same option by its other name
    assertNull(scan("--json", "--text")); // two of an exclusive group
    assertNull(scan("--slow", "x")); // left to picocli
    assertNull(scan("--unknown"));
    assertNull(scan("extra"));
    assertNull(scan("--"));
  }
}
