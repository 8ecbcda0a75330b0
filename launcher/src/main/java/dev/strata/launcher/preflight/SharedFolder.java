package dev.strata.launcher.preflight;

import dev.strata.engine.text.TerminalText;
import dev.strata.engine.trust.OwnerRule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A config's relative paths when its folder is shared. A sticky root-owned folder such as {@code
 * /tmp} may hold a config ({@code OwnerRule.Place.SHARED_HOLDER}) because the config is read whole
 * through its one checked descriptor; but a relative {@code model.shards} entry, {@code --model} or
 * {@code engine.library} is looked up <em>beside</em> it, a name any user of the machine could have
 * created there first. Such a path is refused (exit 3) before anything is read through it
 * (docs/RELIABILITY.md, "Trusted library").
 */
final class SharedFolder {
  private SharedFolder() {}

  /**
   * The refusal of the relative {@code path} from the config {@code where}, or null when {@code
   * base}, the config's folder, is writable only by its owner (or null, or cannot be read: the
   * path's own check then says it is missing).
   */
  static PreflightRefused relative(Path base, String path, String where) {
    if (base == null || Path.of(path).isAbsolute() || !writableByOthers(base)) {
      return null;
    }
    return new PreflightRefused(
        "the config "
            + where
            + " names the relative path '"
            + TerminalText.escape(path)
            + "', but its folder "
            + base
            + " may be written by others: anyone could put a file of that name there first"
            + " (give the absolute path in the config, or keep the config in a folder only you"
            + " can write)");
  }

  private static boolean writableByOthers(Path folder) {
    try {
      return OwnerRule.writableByOthers((Integer) Files.getAttribute(folder, "unix:mode"));
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }
}
