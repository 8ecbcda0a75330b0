package dev.strata.launcher.preflight;

import dev.strata.engine.FileKind;
import dev.strata.engine.StrataException;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.model.GgufReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Preflight's model check: every shard {@code model.shards} lists exists and is a regular file, the
 * model reads ({@link GgufReader}), and its split set is exactly the listed shards.
 */
final class ModelCheck {
  private ModelCheck() {}

  /** Reads the model from the listed shards and checks they are its whole split set. */
  static void run(PreflightRun r) {
    List<String> listed = r.config.model().shards();
    List<Path> paths = new ArrayList<>();
    for (int i = 0; i < listed.size(); i++) {
      Path p = r.resolve(listed.get(i));
      if (!Files.exists(p)) {
        throw r.refuse(
            "model",
            new PreflightRefused(
                "model shard missing: "
                    + p
                    + " (model.shards["
                    + i
                    + "] in "
                    + r.where
                    + "): restore it, or rerun strata-setup --model for the shards you have"));
      }
      String kind = FileKind.isNotRegular(p);
      if (kind != null) {
        // it is there, so not "missing"; and never opened (a FIFO would block the read)
        throw r.refuse(
            "model",
            new PreflightRefused(
                "model shard "
                    + p
                    + " "
                    + kind
                    + " (model.shards["
                    + i
                    + "] in "
                    + r.where
                    + "): put the shard's .gguf file itself there, or rerun strata-setup --model"
                    + " for the shards you have"));
      }
      paths.add(p);
    }
    try {
      r.model = GgufReader.readModel(paths.getFirst());
    } catch (StrataException e) {
      throw r.refuse("model", new PreflightRefused("", e));
    }
    List<Path> found = new ArrayList<>();
    for (GgufModel.Shard s : r.model.shards()) {
      found.add(real(s.path()));
    }
    List<Path> wanted = paths.stream().map(ModelCheck::real).toList();
    if (!found.equals(wanted)) {
      throw r.refuse(
          "model",
          new PreflightRefused(
              "model.shards in "
                  + r.where
                  + " lists "
                  + wanted.size()
                  + " shard(s) but the model's split set is "
                  + found.size()
                  + " ("
                  + found.getFirst().getFileName()
                  + " …): rerun strata-setup --model for this model"));
    }
    r.ok(
        "model",
        r.model.geometry().architecture()
            + ", "
            + found.size()
            + " shard(s), "
            + r.model.geometry().qsaLayerCount()
            + " QSA layers, "
            + r.model.geometry().kvHeads()
            + " KV heads × "
            + r.model.geometry().headDim());
  }

  private static Path real(Path p) {
    try {
      return p.toRealPath();
    } catch (java.io.IOException e) {
      return p.toAbsolutePath().normalize();
    }
  }
}
