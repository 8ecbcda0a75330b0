package dev.strata.engine.quality;

import dev.strata.engine.kv.KvFormat;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One KV-quality evaluation, every choice made (docs/KV-QUALITY.md): what {@code strata-quality}
 * resolves from its flags and a config, and what {@code strata-setup --measure-kv} asks for.
 *
 * @param model the model's first shard
 * @param library the engine library, opened through {@link dev.strata.engine.ffm.VerifiedLibrary}
 *     (its ownership and whole-library checks)
 * @param pin the sha256 the library must have (a config's {@code engine.sha256}), or null
 * @param libraryContext where the library's name came from, for messages ({@code "--engine-lib"}),
 *     or null
 * @param input the text, token file or base file evaluated
 * @param saveBase write the fp16 reference as a {@code _logits_} file here, or null
 * @param kv the formats scored against the reference, in order (fp16 is the reference unless the
 *     input is a base file)
 * @param ctx tokens per chunk, or null: min(1024, the model's trained context)
 * @param chunks at most this many chunks (the input may hold fewer)
 * @param threads {@code --threads} for the engine, or null (its default)
 * @param decodeCheck positions of the first chunk evaluated again one token at a time, -1 for all
 *     scored positions, 0 for none
 * @param env put over the process environment while the engine runs (a config's {@code env})
 */
public record QualitySpec(
    Path model,
    Path library,
    String pin,
    String libraryContext,
    Input input,
    Path saveBase,
    List<KvFormat> kv,
    Integer ctx,
    int chunks,
    Integer threads,
    int decodeCheck,
    Map<String, String> env) {

  public QualitySpec {
    kv = List.copyOf(kv);
    env = Map.copyOf(env);
  }

  /** What is evaluated. */
  public sealed interface Input {
    /** A name for reports and the cache ({@code --text} gives the path). */
    String name();

    /** Text, tokenized by the model's own tokenizer through the session ({@code ADD_SPECIAL}). */
    record Text(String name, String content) implements Input {}

    /** Token ids, {@code .u16} or {@code .u32} little-endian. */
    record Tokens(Path file) implements Input {
      @Override
      public String name() {
        return file.toString();
      }
    }

    /** A llama-perplexity {@code --kl-divergence-base} file: its tokens, n_ctx and reference. */
    record Base(Path file) implements Input {
      @Override
      public String name() {
        return file.toString();
      }
    }
  }
}
