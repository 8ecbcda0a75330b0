package dev.strata.launcher.run;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.ffm.Session;
import dev.strata.engine.ffm.SessionException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Text generation on an open {@link Session} ({@code strata-launch --prompt}, docs/LAUNCH.md): the
 * prompt tokenized (BOS/EOS as the model says, special tokens parsed), evaluated in one call, then
 * one token at a time sampled and fed back, until an end-of-generation token, {@code --n-predict}
 * tokens, the context's end, or a cancel. Each token's bytes are assembled into UTF-8 text as they
 * come (a character may span tokens) and handed to the text sink at once.
 */
public final class Generation {

  /**
   * What to generate and how to sample.
   *
   * @param prompt the prompt text
   * @param nPredict the most tokens to generate
   * @param temp the temperature (0: greedy)
   * @param topK the top-k cut (0: all)
   * @param topP the top-p (nucleus) cut (1: all)
   * @param seed the splitmix64 seed of the sampler
   * @param saveSession where to save the conversation at the end ({@code --save-session}), or null
   * @param loadSession the conversation to continue ({@code --load-session}), or null
   */
  public record Options(
      String prompt,
      int nPredict,
      float temp,
      int topK,
      float topP,
      long seed,
      Path saveSession,
      Path loadSession) {
    public Options {
      Objects.requireNonNull(prompt, "prompt");
    }

    /** Without session files. */
    public Options(String prompt, int nPredict, float temp, int topK, float topP, long seed) {
      this(prompt, nPredict, temp, topK, topP, seed, null, null);
    }
  }

  /**
   * A session snapshot the engine refused to save or load: its code (2 a bad or unwritable file, 3
   * an intact snapshot of another model or KV format, or one the context cannot hold); the engine
   * logged the one line that says why.
   */
  public static final class SnapshotRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int code;

    SnapshotRefused(SessionException e) {
      super(e.getMessage(), e);
      this.code = e.exitCode();
    }

    /** The engine's code, the launch's exit code. */
    public int exitCode() {
      return code;
    }
  }

  /** Why generation ended. */
  public enum Stop {
    /** The model produced an end-of-generation token (not printed). */
    EOG,
    /** {@code --n-predict} tokens were generated. */
    N_PREDICT,
    /** The sequence filled the context ({@code --ctx} of the config). */
    CTX,
    /** Cancelled (Ctrl-C, SIGTERM, SIGHUP). */
    CANCELLED;

    /** The word in {@code --json}: eog, n_predict, ctx, cancelled. */
    public String word() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * What a generation made.
   *
   * @param text the text generated (the prompt not included)
   * @param promptTokens the prompt's tokens
   * @param generatedTokens the tokens generated (an end-of-generation token not counted)
   * @param prefillSeconds the prompt's evaluation
   * @param decodeSeconds from the first sample to the end
   * @param stop why it ended
   * @param stats the session's counters at the end ({@link Session#stats()})
   */
  public record Result(
      String text,
      int promptTokens,
      int generatedTokens,
      double prefillSeconds,
      double decodeSeconds,
      Stop stop,
      Map<String, String> stats) {

    /** Prompt tokens per second of the prefill (0 when it took no measurable time). */
    public double prefillTokS() {
      return prefillSeconds > 0 ? promptTokens / prefillSeconds : 0;
    }

    /** Generated tokens per second of the decode (0 when none). */
    public double decodeTokS() {
      return decodeSeconds > 0 ? generatedTokens / decodeSeconds : 0;
    }

    /** The exit code of the generation: 130 when cancelled, else 0. */
    public int exitCode() {
      return stop == Stop.CANCELLED ? ExitCodes.INTERRUPTED : ExitCodes.OK;
    }

    /**
     * {@code "generation": {...}} into the object {@code g} is inside: text, token counts, timings,
     * stop reason, the sampling options with the seed, the engine's stats.
     */
    public void writeJson(JsonGenerator g, Options o) throws IOException {
      g.writeObjectFieldStart("generation");
      g.writeStringField("text", text);
      g.writeObjectFieldStart("tokens");
      g.writeNumberField("prompt", promptTokens);
      g.writeNumberField("generated", generatedTokens);
      g.writeEndObject();
      g.writeStringField("stop", stop.word());
      g.writeObjectFieldStart("sampling");
      g.writeNumberField("n_predict", o.nPredict());
      g.writeNumberField("temp", o.temp());
      g.writeNumberField("top_k", o.topK());
      g.writeNumberField("top_p", o.topP());
      // unsigned: the seed as typed (or drawn), 0..2^64-1
      g.writeFieldName("seed");
      g.writeNumber(new java.math.BigInteger(Long.toUnsignedString(o.seed())));
      g.writeEndObject();
      g.writeObjectFieldStart("prefill");
      g.writeNumberField("tokens", promptTokens);
      g.writeNumberField("seconds", round(prefillSeconds));
      g.writeNumberField("tok_s", round(prefillTokS()));
      g.writeEndObject();
      g.writeObjectFieldStart("decode");
      g.writeNumberField("tokens", generatedTokens);
      g.writeNumberField("seconds", round(decodeSeconds));
      g.writeNumberField("tok_s", round(decodeTokS()));
      g.writeEndObject();
      g.writeObjectFieldStart("stats");
      for (Map.Entry<String, String> e : stats.entrySet()) {
        RunSummary.writeValue(g, e.getKey(), e.getValue());
      }
      g.writeEndObject();
      g.writeEndObject();
    }

    /** One line for standard error: the counts, the speeds, the stop, the seed when sampled. */
    public String summaryLine(Options o) {
      return String.format(
          java.util.Locale.ROOT,
          "generate: prompt=%d tokens (%.1f tok/s) generated=%d tokens in %.2f s (%.1f tok/s)"
              + " stop=%s%s",
          promptTokens,
          prefillTokS(),
          generatedTokens,
          decodeSeconds,
          decodeTokS(),
          stop.word(),
          o.temp() > 0 ? " seed=" + Long.toUnsignedString(o.seed()) : "");
    }
  }

  private static double round(double v) {
    return Math.round(v * 1000.0) / 1000.0;
  }

  private final Session session;
  private final Options options;
  private volatile boolean cancelled;
  private int unevaluated = -1;
  private int[] sampled = new int[0];
  private int nSampled;

  public Generation(Session session, Options options) {
    this.session = session;
    this.options = options;
  }

  /**
   * Stops the generation: the eval in progress returns soon after, and no further token is made.
   * Any thread.
   */
  public void cancel() {
    cancelled = true;
    session.cancel();
  }

  /**
   * Generates on sequence 0 from an empty one.
   *
   * @param text receives the text as it is made, whole UTF-8 characters only
   * @throws StrataException (exit 2) when the prompt has no tokens or does not fit the context; the
   *     engine's refusal of an eval with its code
   */
  public Result run(Consumer<String> text) {
    int nCtx = session.nCtx();
    int held = 0;
    if (options.loadSession() != null) {
      snapshot(() -> session.load(0, options.loadSession()));
      held = session.nPast(0);
    }
    // a continued conversation gets no second BOS: its prompt is appended as written
    int[] ids =
        session.tokenize(
            options.prompt(), (held == 0 ? Session.ADD_SPECIAL : 0) | Session.PARSE_SPECIAL);
    if (ids.length == 0 && held > 0) {
      // nothing to append: the last position again, for its logits (the same token, the same cells)
      int[] all = session.tokens(0);
      session.truncate(0, held - 1);
      ids = new int[] {all[held - 1]};
      held--;
    }
    if (ids.length == 0) {
      throw new StrataException(
          ExitCodes.USAGE, "--prompt: the prompt is empty (it has no tokens): give some text");
    }
    if (held + ids.length >= nCtx) {
      throw new StrataException(
          ExitCodes.USAGE,
          "--prompt: the prompt is "
              + ids.length
              + " tokens"
              + (held > 0 ? " after the " + held + " of the loaded session" : "")
              + ", and the context holds "
              + nCtx
              + " (--ctx of the config): shorten the prompt or raise --ctx");
    }
    Result r = generate(ids, text);
    if (options.saveSession() != null && r.stop() != Stop.CANCELLED) {
      // the conversation as the model said it: the last token sampled (an end of turn too) in it
      if (unevaluated >= 0 && session.nPast(0) < nCtx) {
        session.eval(0, new int[] {unevaluated}, 1);
      }
      snapshot(() -> session.save(0, options.saveSession()));
    }
    return r;
  }

  /**
   * Appends {@code ids} to sequence 0 as it stands (one eval), then generates from their logits:
   * the loop of {@link #run}, for callers that tokenized and placed the prompt themselves (the
   * server, the chat). The caller checks that the ids fit the context.
   *
   * @param ids at least one token
   * @param text receives the text as it is made, whole UTF-8 characters only
   */
  public Result generate(int[] ids, Consumer<String> text) {
    int nCtx = session.nCtx();
    sampled = new int[Math.min(Math.max(options.nPredict(), 0) + 1, 1 << 16)];
    nSampled = 0;
    Utf8Assembler utf8 = new Utf8Assembler();
    StringBuilder all = new StringBuilder();
    Consumer<String> out =
        s -> {
          if (!s.isEmpty()) {
            all.append(s);
            text.accept(s);
          }
        };
    long[] rng = {options.seed()};
    int generated = 0;
    unevaluated = -1; // the last token sampled, when its K and V are not in the pools yet
    Stop stop;
    long t0 = System.nanoTime();
    double prefill = 0;
    long t1 = t0;
    try {
      Session.Logits logits = session.eval(0, ids, ids.length - 1);
      t1 = System.nanoTime();
      prefill = (t1 - t0) / 1e9;
      while (true) {
        if (cancelled) {
          stop = Stop.CANCELLED;
          break;
        }
        if (generated >= options.nPredict()) {
          stop = Stop.N_PREDICT;
          break;
        }
        int tok = session.sample(logits, 0, options.temp(), options.topK(), options.topP(), rng);
        unevaluated = tok;
        record(tok);
        if (session.isEog(tok)) {
          stop = Stop.EOG;
          break;
        }
        out.accept(utf8.add(session.tokenPiece(tok)));
        generated++;
        if (generated >= options.nPredict()) {
          stop = Stop.N_PREDICT; // the last token's own logits are not needed
          break;
        }
        if (session.nPast(0) >= nCtx) {
          stop = Stop.CTX;
          break;
        }
        logits = session.eval(0, new int[] {tok}, 0);
        unevaluated = -1;
      }
    } catch (SessionException e) {
      if (!e.cancelled()) {
        throw e;
      }
      stop = Stop.CANCELLED;
      if (t1 == t0) {
        t1 = System.nanoTime();
        prefill = (t1 - t0) / 1e9;
      }
    }
    out.accept(utf8.finish());
    double decode = (System.nanoTime() - t1) / 1e9;
    return new Result(
        all.toString(), ids.length, generated, prefill, decode, stop, session.stats());
  }

  /**
   * After a cancelled generation, on a session that goes on (the server's next request, the chat's
   * next turn): the cancel may still be kept by the engine, which keeps it until an eval consumes
   * it, and would stop the next eval at once. One throwaway eval of one token consumes it; the
   * sequence is then truncated back to what it held.
   */
  public static void settleCancel(Session session) {
    int held = session.nPast(0);
    if (held >= session.nCtx()) {
      return; // no room for the throwaway token; the caller truncates before its next eval
    }
    try {
      session.eval(0, new int[] {0}, 1);
    } catch (SessionException e) {
      if (!e.cancelled()) {
        throw e;
      }
    }
    session.truncate(0, held);
  }

  private void record(int tok) {
    if (nSampled == sampled.length) {
      sampled = java.util.Arrays.copyOf(sampled, sampled.length * 2);
    }
    sampled[nSampled++] = tok;
  }

  /**
   * The tokens the last {@link #generate} sampled, in order (an end-of-generation token included);
   * all but the last are in the pools, the last one too unless {@link #lastEvaluated()} is false.
   */
  public int[] sampled() {
    return java.util.Arrays.copyOf(sampled, nSampled);
  }

  /** Whether the last sampled token's K and V are in the pools. */
  public boolean lastEvaluated() {
    return unevaluated < 0;
  }

  private static void snapshot(Runnable call) {
    try {
      call.run();
    } catch (SessionException e) {
      throw new SnapshotRefused(e);
    }
  }

  /**
   * Token bytes to text: whole UTF-8 characters as soon as their last byte comes; a character split
   * across tokens waits for the next one; malformed bytes become U+FFFD.
   */
  static final class Utf8Assembler {
    private final CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    private ByteBuffer pending = ByteBuffer.allocate(64);

    /** The text the bytes complete (maybe empty). */
    String add(byte[] bytes) {
      if (pending.remaining() < bytes.length) {
        ByteBuffer bigger = ByteBuffer.allocate(pending.position() + bytes.length + 64);
        pending.flip();
        bigger.put(pending);
        pending = bigger;
      }
      pending.put(bytes);
      return drain(false);
    }

    /** The rest: an unfinished character as U+FFFD. */
    String finish() {
      String s = drain(true);
      CharBuffer tail = CharBuffer.allocate(4);
      decoder.flush(tail);
      tail.flip();
      decoder.reset();
      return s + tail;
    }

    private String drain(boolean end) {
      pending.flip();
      CharBuffer chars = CharBuffer.allocate(pending.remaining() + 4);
      decoder.decode(pending, chars, end);
      pending.compact();
      chars.flip();
      return chars.toString();
    }
  }
}
