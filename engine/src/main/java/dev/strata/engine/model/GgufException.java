package dev.strata.engine.model;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.text.Clip;

/**
 * A model file that cannot be used: one line naming the file, what is wrong and what to do. Exit
 * code 2 ({@link ExitCodes#USAGE}): the user passed a bad file, nothing crashed.
 */
public final class GgufException extends StrataException {
  private static final long serialVersionUID = 1L;

  /** What went wrong, so callers and tests can tell the cases apart without parsing text. */
  public enum Kind {
    /** The path does not exist. */
    NOT_FOUND,
    /** The file does not start with "GGUF". */
    BAD_MAGIC,
    /** GGUF v1, a version newer than 3, or a big-endian file. */
    UNSUPPORTED_VERSION,
    /** The file ends before the structure it announces (an incomplete download). */
    TRUNCATED,
    /** A count, length, dimension or size beyond the reader's limits. */
    ABSURD_COUNT,
    /** A structural error: unknown value type, nested array, duplicate key, misplaced data. */
    MALFORMED,
    /** A tensor of a ggml type this reader does not know (or one removed from ggml). */
    UNKNOWN_TYPE,
    /** A valid GGUF that is not a usable model: no architecture, no blocks, an empty folder. */
    NOT_A_MODEL,
    /**
     * A valid model of an architecture or with a feature the engine does not run (multi-head latent
     * attention, encoder-only, recurrent-only): the message names it and what the engine runs.
     */
    UNSUPPORTED,
    /** A shard of a split set is absent. */
    MISSING_SHARD,
    /** A file in the place of a shard belongs to another model or another split. */
    FOREIGN_SHARD,
    /**
     * Metadata and tensors disagree (interval vs attention layers, expert shapes, split numbers).
     */
    INCONSISTENT,
    /** The operating system refused a read. */
    IO
  }

  private final Kind kind;
  private final String file;

  /**
   * @param kind what went wrong
   * @param file the file or folder concerned, as the user would recognise it
   * @param detail what is wrong and what to do, without the file name (it is prefixed)
   */
  public GgufException(Kind kind, String file, String detail) {
    super(ExitCodes.USAGE, Clip.visible(file + ": " + detail));
    this.kind = kind;
    this.file = file;
  }

  public GgufException(Kind kind, String file, String detail, Throwable cause) {
    super(ExitCodes.USAGE, Clip.visible(file + ": " + detail), cause);
    this.kind = kind;
    this.file = file;
  }

  /**
   * Metadata and tensors disagree ({@link Kind#INCONSISTENT}).
   *
   * @param detail what disagrees and what to do, without the file name
   */
  static GgufException inconsistent(String file, String detail) {
    return new GgufException(Kind.INCONSISTENT, file, detail);
  }

  /**
   * "holds tensor T but KEY is V; the file is damaged": a tensor of a block or expert the header's
   * count says does not exist ({@link Kind#INCONSISTENT}).
   */
  static GgufException tensorBeyond(String file, String tensor, String key, long value) {
    return inconsistent(
        file,
        "holds tensor %s but %s is %s; the file is damaged"
            .formatted(Clip.clip(tensor), key, value));
  }

  public Kind kind() {
    return kind;
  }

  /** The file or folder the message names. */
  public String file() {
    return file;
  }
}
