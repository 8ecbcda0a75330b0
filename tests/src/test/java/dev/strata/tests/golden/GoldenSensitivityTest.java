package dev.strata.tests.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.gen.Template;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.tests.golden.GoldenMatrix.Cell;
import dev.strata.tests.golden.GoldenMatrix.Outcome;
import dev.strata.testsupport.GoldenFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The goldens catch a moved default: generating a cell with a deliberately altered template or host
 * and comparing it with the committed golden gives a mismatch whose diff shows the moved line. The
 * unaltered generation is checked against the same golden first, so the mismatch is the
 * alteration's and nothing else's. Comparisons run on a copy of the golden in a temp folder, so no
 * {@code .actual} lands in the source tree.
 */
class GoldenSensitivityTest {
  private static final Cell CELL = new Cell(ExpertsMode.STREAM, 48, 32_768, 4);

  @TempDir Path tmp;

  /** The committed golden of {@link #CELL} (checked against the unaltered generation first). */
  private GoldenFiles copyOfGolden(String name, String unaltered) throws IOException {
    GoldenFiles project = GoldenFiles.project();
    project.check(name, unaltered);
    Path copy = tmp.resolve(name);
    Files.createDirectories(copy.getParent());
    Files.copy(project.root().resolve(name), copy);
    return new GoldenFiles(tmp, false);
  }

  @Test
  void aTemplateWithOneBaseArgChangedIsCaught() throws IOException {
    Outcome plain = GoldenMatrix.generate(CELL, null);
    String name = plain.goldenName(CELL.name());
    GoldenFiles golden = copyOfGolden(name, plain.text());

    Template altered = metalWithSpecPlusOne();

    Outcome moved = GoldenMatrix.generate(CELL.host(), CELL, null, altered);
    var m = assertInstanceOf(GoldenFiles.Mismatch.class, golden.compare(name, moved.text()));
    assertTrue(
        m.diff().startsWith("--- golden/" + name + "\n+++ actual/" + name + "\n@@ "), m.diff());
    assertEquals(List.of("- '2'", "- '3'"), changedLines(m.diff()), m.diff());
    assertEquals(moved.text(), Files.readString(m.actualFile(), StandardCharsets.UTF_8));
  }

  @Test
  void aHostWithOneMorePerformanceCoreIsCaught() throws IOException {
    Outcome plain = GoldenMatrix.generate(CELL, null);
    String name = plain.goldenName(CELL.name());
    GoldenFiles golden = copyOfGolden(name, plain.text());

    HostFacts host = GoldenMatrix.withOneMorePerfCore(CELL.host());
    Outcome moved = GoldenMatrix.generate(host, CELL, null, GoldenMatrix.metalTemplate());
    var m = assertInstanceOf(GoldenFiles.Mismatch.class, golden.compare(name, moved.text()));
    List<String> changed = changedLines(m.diff());
    // --threads follows the performance cores; the host block records the new counts
    assertTrue(changed.contains("- '" + host.perfCores() + "'"), m.diff());
    assertTrue(changed.contains("- '" + (host.perfCores() - 1) + "'"), m.diff());
    assertTrue(changed.stream().anyMatch(l -> l.contains("perf_cores")), m.diff());
  }

  @Test
  void aQ4ConfigWithAMovedDefaultIsCaughtByItsInvariant() {
    // Same host, same template: the real q4_0 generation passes the invariant (the control) ...
    Outcome plain = GoldenMatrix.generate(CELL, null);
    Outcome q4 = GoldenMatrix.generate(CELL, KvFormat.Q4_0);
    assertEquals(
        null,
        KvQ4InvariantGoldenTest.invariantViolation(plain.text(), q4.text()),
        "the unaltered q4_0 generation must satisfy the invariant");

    // ... and a q4_0 generation whose template moved one default (only for the q4_0 run, as a
    // generator bug keyed on --kv would) breaks it, with a diff that shows exactly that line.
    Template altered = metalWithSpecPlusOne();
    Outcome q4moved = GoldenMatrix.generate(CELL.host(), CELL, KvFormat.Q4_0, altered);
    String violation = KvQ4InvariantGoldenTest.invariantViolation(plain.text(), q4moved.text());
    assertTrue(violation != null, "a moved default must break the invariant");
    assertEquals(List.of("- '2'", "- '3'"), changedLines(violation), violation);
  }

  /** The Metal template with its base arg {@code --spec} one higher (2 → 3). */
  private static Template metalWithSpecPlusOne() {
    Template metal = GoldenMatrix.metalTemplate();
    List<String> args = new ArrayList<>(metal.args());
    int spec = args.indexOf("--spec");
    assertTrue(spec >= 0, "the Metal template sets --spec: " + args);
    args.set(spec + 1, Integer.toString(Integer.parseInt(args.get(spec + 1)) + 1));
    return new Template(metal.name(), metal.backend(), args, metal.env());
  }

  /** The removed and added lines of a diff, without their -/+ marks, in order. */
  private static List<String> changedLines(String diff) {
    List<String> out = new ArrayList<>();
    for (String l : diff.split("\n")) {
      if ((l.startsWith("-") && !l.startsWith("--- "))
          || (l.startsWith("+") && !l.startsWith("+++ "))) {
        out.add(l.substring(1));
      }
    }
    return out;
  }
}
