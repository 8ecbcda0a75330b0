package dev.strata.tests.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.host.HostFactsCodec;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.DemoModel;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.tests.dist.Cli;
import dev.strata.tests.golden.GoldenMatrix.Cell;
import dev.strata.testsupport.GoldenFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The goldens are what a user gets: {@code strata-setup --print} on a real demo model folder and a
 * host file prints a config equal to the cell's golden once the folder is written as {@value
 * GoldenMatrix#MODEL_FOLDER}, and a cell that does not fit exits 3 with the golden refusal.
 */
class CliIdentityGoldenTest {
  @TempDir static Path tmp;
  private static Path models;

  @BeforeAll
  static void writeDemoModel() throws IOException {
    models = tmp.resolve("models");
    DemoModel.write(models, 4);
  }

  static List<Arguments> cells() {
    return List.of(
        Arguments.of(new Cell(ExpertsMode.STREAM, 48, 32_768, 4), null),
        Arguments.of(new Cell(ExpertsMode.STREAM, 48, 32_768, 4), KvFormat.Q4_0),
        Arguments.of(new Cell(ExpertsMode.RESIDENT, 128, 8_192, 4), null),
        Arguments.of(new Cell(ExpertsMode.RESIDENT, 24, 65_536, 4), null));
  }

  @ParameterizedTest(name = "strata-setup --print: {0} kv={1}")
  @MethodSource("cells")
  void printEqualsGolden(Cell cell, KvFormat kv) throws IOException {
    Path host = tmp.resolve("host-" + cell.memoryGib() + ".json");
    Files.writeString(host, HostFactsCodec.write(cell.host()), StandardCharsets.UTF_8);
    List<String> argv =
        new ArrayList<>(
            List.of(
                "--model",
                models.resolve("strata-demo-00001-of-00004.gguf").toString(),
                "--host-file",
                host.toString(),
                "--ctx",
                Long.toString(cell.context()),
                "--experts",
                cell.experts().id(),
                "--engine-lib",
                GoldenMatrix.LIBRARY,
                "--print"));
    if (kv != null) {
      argv.addAll(List.of("--kv", kv.flagName()));
    }
    Cli.Result run = Cli.setup(Map.of("NO_COLOR", "1"), false, argv.toArray(String[]::new));

    GoldenMatrix.Outcome expected = GoldenMatrix.generate(cell, kv);
    String golden =
        kv == null ? expected.goldenName(cell.name()) : ConfigMatrixGoldenTest.q4GoldenName(cell);
    String committed =
        Files.readString(GoldenFiles.projectFolder().resolve(golden), StandardCharsets.UTF_8);
    switch (expected) {
      case GoldenMatrix.Config c -> {
        assertEquals(ExitCodes.OK, run.code(), run.err());
        assertEquals(committed, run.out().replace(models.toString(), GoldenMatrix.MODEL_FOLDER));
      }
      case GoldenMatrix.Refusal r -> {
        assertEquals(ExitCodes.PREFLIGHT, run.code(), run.err());
        assertEquals("", run.out());
        assertEquals("strata-setup: " + committed, run.err().replace("\r\n", "\n"));
      }
    }
  }
}
