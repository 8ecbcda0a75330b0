package dev.strata.setup;

import dev.strata.cli.CommandNames;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.model.DemoModel;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.model.GgufReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code strata-setup demo-model}: a GGUF split set with the seed's geometry (issue 6). */
@Command(
    name = CommandNames.DEMO_MODEL,
    mixinStandardHelpOptions = true,
    description =
        "Write a demo model: a GGUF split set with the seed's geometry, sparse zero data.")
public final class DemoModelCommand implements Callable<Integer> {

  @ParentCommand SetupCommand parent;

  @Option(
      names = "--out",
      required = true,
      paramLabel = "DIR",
      description = "Folder to write the shards into (created if missing).")
  Path out;

  @Option(
      names = "--shards",
      paramLabel = "N",
      defaultValue = "4",
      description = "Number of shards, 1..64 (default: ${DEFAULT-VALUE}).")
  int shards;

  @Option(
      names = "--mtp",
      description =
          "Add the MTP drafter block current converters write for Qwen3-Next (nextn_predict_layers"
              + " 1, blk.48), for --spec tests; the default demo has none.")
  boolean mtp;

  @Override
  public Integer call() {
    // not normalize()d: the folder is checked as the kernel will resolve it (link/.. included)
    Path dir = parent.machine().workingDir().resolve(out).toAbsolutePath();
    List<Path> paths;
    try {
      paths = DemoModel.write(dir, shards, mtp, "--out " + out);
    } catch (IOException e) {
      throw new StrataException(
          ExitCodes.USAGE,
          "cannot write the demo model into " + dir + ": " + dev.strata.engine.IoReason.of(e));
    }
    // read back what was written: the summary is what the toolkit will plan with
    GgufModel model = GgufReader.readModel(paths.getFirst());
    PrintWriter o = parent.io().out();
    o.println(
        "wrote "
            + paths.getFirst()
            + (paths.size() > 1 ? " … " + paths.getLast().getFileName() : "")
            + " ("
            + paths.size()
            + (paths.size() == 1 ? " shard: " : " shards: ")
            + dev.strata.engine.model.DiskUsage.of(paths).describe()
            + ")");
    o.println(model.summary());
    o.flush();
    return ExitCodes.OK;
  }
}
