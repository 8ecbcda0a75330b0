package dev.strata.engine.quality;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.ffm.EngineLoadException;
import dev.strata.engine.ffm.LogLevel;
import dev.strata.engine.ffm.NativeEngine;
import dev.strata.engine.ffm.Session;
import dev.strata.engine.ffm.SessionException;
import dev.strata.engine.ffm.VerifiedLibrary;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.text.TerminalText;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One teacher-forced KV-quality evaluation (docs/KV-QUALITY.md), the harness {@code strata-quality}
 * and {@code strata-setup --measure-kv} share: one ABI 3 session per format, llama-perplexity's
 * layout (chunk i is tokens [i·N, (i+1)·N), from an empty KV cache, tokens 0..N−2 in one eval,
 * positions N/2..N−2 scored), {@link KlStats} per format and chunk, and the prompt path against the
 * decode path over the q4_0 pools. {@link #cancel} (any thread: a signal handler) stops the eval in
 * progress; the chunks completed are still reported.
 *
 * <p>Errors: {@link StrataException} exit 2 for bad input (one line naming the file or flag), the
 * engine's {@link SessionException} / {@link EngineLoadException} (exit 3, the engine's own line
 * went to {@link Listener#engineError} first), {@link IOException} from reading the input.
 */
public final class Evaluation {
  /** Lines while it runs. */
  public interface Listener {
    /** The header and one line per completed chunk (elapsed time and ETA); no prefix. */
    void progress(String line);

    /** An error line of the engine's, as it said it (escape it before showing). */
    void engineError(String line);

    /** A listener of two line consumers. */
    static Listener of(
        java.util.function.Consumer<String> progress,
        java.util.function.Consumer<String> engineError) {
      return new Listener() {
        @Override
        public void progress(String line) {
          progress.accept(line);
        }

        @Override
        public void engineError(String line) {
          engineError.accept(line);
        }
      };
    }
  }

  /**
   * What was measured.
   *
   * @param report the figures of the completed chunks
   * @param chunksTsv a header and one row per chunk and format
   * @param interrupted true when {@link #cancel} stopped it before the last chunk
   */
  public record Outcome(Report report, List<String> chunksTsv, boolean interrupted) {}

  private final QualitySpec spec;
  private final Listener listener;
  private final List<Session> sessions = new CopyOnWriteArrayList<>();
  private volatile boolean interrupted;
  private volatile boolean engineSaid;

  public Evaluation(QualitySpec spec, Listener listener) {
    this.spec = spec;
    this.listener = listener;
  }

  /** Whether the engine printed an error line (a caller then need not say why again). */
  public boolean engineSaid() {
    return engineSaid;
  }

  /** Stops the eval in progress and every one after it (async-signal context is not needed). */
  public void cancel() {
    interrupted = true;
    for (Session s : sessions) {
      s.cancel();
    }
  }

  /** Opens the library and the sessions, evaluates, closes everything. */
  public Outcome run() throws IOException {
    ModelGeometry g = GgufReader.readModel(spec.model()).geometry();
    LogitsFile.Reader base =
        spec.input() instanceof QualitySpec.Input.Base b ? new LogitsFile.Reader(b.file()) : null;
    try (base) {
      int nCtx =
          base != null
              ? base.nCtx
              : spec.ctx() == null ? (int) Math.min(1024, g.trainedContext()) : spec.ctx();
      if (base != null && spec.ctx() != null && spec.ctx() != base.nCtx) {
        throw bad("--ctx " + spec.ctx() + " differs from the base file's n_ctx " + base.nCtx);
      }
      if (nCtx > g.trainedContext()) {
        throw bad(
            "--ctx "
                + nCtx
                + " is more than the model's trained context ("
                + g.trainedContext()
                + ")");
      }
      NativeEngine engine;
      try (VerifiedLibrary v =
          VerifiedLibrary.open(spec.library(), spec.pin(), spec.libraryContext())) {
        engine = v.load();
      }
      Runnable restoreEnv = spec.env().isEmpty() ? () -> {} : engine.overlayEnv(spec.env());
      try {
        if (!engine.hasSessions()) {
          throw new EngineLoadException(engine.needsSessions("strata-quality", "evaluation"));
        }
        return evaluate(engine, g, nCtx, base);
      } finally {
        for (Session s : sessions) {
          s.close();
        }
        restoreEnv.run();
        engine.close();
      }
    }
  }

  static StrataException bad(String message) {
    return new StrataException(ExitCodes.USAGE, message);
  }

  private Session open(NativeEngine engine, KvFormat f, int nCtx) {
    List<String> a =
        new ArrayList<>(
            List.of(
                EngineFlags.MODEL,
                spec.model().toString(),
                EngineFlags.CTX,
                Integer.toString(nCtx),
                EngineFlags.KV,
                f.flagName(),
                EngineFlags.PROMPT_TOKENS,
                "1",
                EngineFlags.N_PREDICT,
                "0"));
    if (spec.threads() != null) {
      a.addAll(List.of(EngineFlags.THREADS, spec.threads().toString()));
    }
    Session s =
        engine.openSession(
            a,
            (level, line) -> {
              if (level == LogLevel.ERROR) {
                engineSaid = true;
                listener.engineError(line);
              }
            });
    sessions.add(s);
    if (interrupted) {
      s.cancel(); // a cancel that came while it opened
    }
    return s;
  }

  /** The input's token ids. */
  private int[] tokens(Session s) throws IOException {
    return switch (spec.input()) {
      case QualitySpec.Input.Text t -> s.tokenize(t.content(), Session.ADD_SPECIAL);
      case QualitySpec.Input.Tokens t -> readTokens(t.file());
      case QualitySpec.Input.Base b -> throw new IllegalStateException("a base file has its own");
    };
  }

  /** A {@code .u16} / {@code .u32} little-endian token file. */
  static int[] readTokens(Path file) throws IOException {
    String name = file.getFileName().toString();
    int width = name.endsWith(".u16") ? 2 : name.endsWith(".u32") ? 4 : 0;
    if (width == 0) {
      throw bad("--tokens: " + file + " is neither .u16 nor .u32 (little-endian token ids)");
    }
    byte[] b = Files.readAllBytes(file);
    if (b.length % width != 0) {
      throw bad("--tokens: " + file + " is not a whole number of " + (8 * width) + "-bit ids");
    }
    ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    int[] t = new int[b.length / width];
    for (int i = 0; i < t.length; i++) {
      t[i] = width == 2 ? bb.getShort() & 0xffff : bb.getInt();
    }
    return t;
  }

  private Outcome evaluate(NativeEngine engine, ModelGeometry g, int nCtx, LogitsFile.Reader base)
      throws IOException {
    long t0 = System.nanoTime();
    List<KvFormat> formats = spec.kv();
    Map<KvFormat, Session> byFormat = new LinkedHashMap<>();
    if (base == null) {
      byFormat.put(KvFormat.FP16, open(engine, KvFormat.FP16, nCtx));
    }
    for (KvFormat f : formats) {
      if (!byFormat.containsKey(f)) {
        byFormat.put(f, open(engine, f, nCtx));
      }
    }
    Session any = byFormat.values().iterator().next();
    int nVocab = any.nVocab();
    if (base != null && base.nVocab != nVocab) {
      throw bad("the base file's n_vocab " + base.nVocab + " is not the model's " + nVocab);
    }
    int[] toks = base != null ? base.tokens : tokens(any);
    int first = base != null ? base.first : nCtx / 2;
    for (int t : toks) {
      if (t < 0 || t >= nVocab) {
        throw bad("token id " + t + " is outside the model's vocabulary (0.." + (nVocab - 1) + ")");
      }
    }
    int available = toks.length / nCtx;
    if (available < 1) {
      throw bad(
          spec.input().name()
              + ": "
              + toks.length
              + " tokens do not fill one chunk of --ctx "
              + nCtx);
    }
    Chunks c =
        new Chunks(
            formats,
            byFormat,
            base == null ? byFormat.get(KvFormat.FP16) : null,
            base,
            new Chunks.Layout(
                nCtx,
                first,
                nVocab,
                formats.contains(KvFormat.Q4_0) ? KvFormat.Q4_0 : formats.getLast(),
                spec.decodeCheck() < 0
                    ? nCtx - 1 - first
                    : Math.min(spec.decodeCheck(), nCtx - 1 - first)));
    int chunks = Math.min(available, spec.chunks());
    LogitsFile.Writer save =
        spec.saveBase() == null ? null : new LogitsFile.Writer(spec.saveBase(), nCtx, nVocab);
    listener.progress(
        String.format(
            Locale.ROOT,
            "%s, %d chunks of %d tokens, %d scored positions each, kv %s%s",
            TerminalText.escape(spec.model().getFileName().toString()),
            chunks,
            nCtx,
            c.layout.scored(),
            names(formats),
            base != null
                ? ", base " + TerminalText.escape(spec.input().name())
                : ", reference fp16"));
    int done = 0;
    try {
      for (int i = 0; i < chunks && !interrupted; i++) {
        c.run(i, Arrays.copyOfRange(toks, i * nCtx, (i + 1) * nCtx), save);
        done++;
        double el = (System.nanoTime() - t0) / 1e9;
        listener.progress(
            String.format(
                Locale.ROOT,
                "chunk %d/%d done, %.1f s, ETA %.0f s",
                done,
                chunks,
                el,
                el / done * (chunks - done)));
      }
    } catch (SessionException e) {
      if (!e.cancelled()) {
        throw e;
      }
    }
    if (save != null) {
      if (done > 0) {
        save.finish(c.layout.scored());
      } else {
        save.close();
      }
    }
    Report r =
        new Report(
            spec.model(),
            g,
            nCtx,
            first,
            done,
            chunks,
            (System.nanoTime() - t0) / 1e9,
            c.total,
            c.layout.decodeFormat(),
            done > 0 && c.layout.decodeN() > 0 ? c.decode : null,
            c.decodeMaxAbs,
            base != null ? spec.input().name() : null,
            spec.input().name());
    return new Outcome(r, List.copyOf(c.tsv), interrupted);
  }

  /** The formats' flag names, comma-separated ("int8,q4_0"). */
  public static String names(List<KvFormat> fs) {
    List<String> n = new ArrayList<>();
    for (KvFormat f : fs) {
      n.add(f.flagName());
    }
    return String.join(",", n);
  }
}
