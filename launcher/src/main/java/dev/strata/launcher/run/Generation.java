package dev.strata.launcher.run;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.ffm.Logits;
import dev.strata.engine.ffm.Session;
import dev.strata.engine.ffm.SessionException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
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

  private final Session session;
  private final int seq;
  private final Lock turn;
  private final Options options;
  private volatile boolean cancelled;
  private volatile boolean evaluating; // this generation's eval is the one the session runs
  private int unevaluated = -1;
  private int[] sampled = new int[0];
  private int nSampled;

  /** A generation on sequence 0 of a session nobody else uses. */
  public Generation(Session session, Options options) {
    this(session, 0, new ReentrantLock(), options);
  }

  /**
   * A generation on sequence {@code seq} of a session other generations share ({@code strata-launch
   * --serve --parallel N}): every call on the session is made holding {@code turn}, one eval and
   * the sampling of its logits in one hold (calls on a session are not concurrent, and an eval
   * overwrites the logits the last one returned), so the sequences take turns token by token.
   */
  public Generation(Session session, int seq, Lock turn, Options options) {
    this.session = session;
    this.seq = seq;
    this.turn = turn;
    this.options = options;
  }

  /**
   * Stops the generation: no further token is made, and the eval in progress, when it is this
   * generation's, returns soon after. Any thread. The session's cancel flag is one for every
   * sequence: a cancel that lands on another sequence's eval (or is kept for the next one) makes
   * that eval return cancelled, and {@link #eval} runs it again when its own generation was not
   * cancelled — so no cancel is ever another generation's.
   */
  public void cancel() {
    cancelled = true;
    if (evaluating) {
      session.cancel();
    }
  }

  /**
   * Generates on sequence 0 from an empty one ({@code --prompt}: the session is this generation's
   * alone).
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
   * Appends {@code ids} to this generation's sequence as it stands (one eval), then generates from
   * their logits: the loop of {@link #run}, for callers that tokenized and placed the prompt
   * themselves (the server, the chat). The caller checks that the ids fit the context.
   *
   * @param ids at least one token
   * @param text receives the text as it is made, whole UTF-8 characters only
   */
  public Result generate(int[] ids, Consumer<String> text) {
    int nCtx;
    turn.lock();
    try {
      nCtx = session.nCtx();
    } finally {
      turn.unlock();
    }
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
    Stop stop = null;
    long t0 = System.nanoTime();
    double prefill = -1;
    long t1 = t0;
    int[] feed = ids;
    try {
      while (stop == null) {
        if (cancelled) {
          stop = Stop.CANCELLED;
          break;
        }
        int tok;
        boolean eog;
        byte[] piece = null;
        int held;
        turn.lock();
        try {
          Logits logits = eval(feed, feed.length - 1);
          unevaluated = -1;
          if (prefill < 0) {
            t1 = System.nanoTime();
            prefill = (t1 - t0) / 1e9;
          }
          if (cancelled || generated >= options.nPredict()) {
            stop = cancelled ? Stop.CANCELLED : Stop.N_PREDICT;
            break;
          }
          tok = session.sample(logits, 0, options.temp(), options.topK(), options.topP(), rng);
          eog = session.isEog(tok);
          if (!eog) {
            piece = session.tokenPiece(tok);
          }
          held = session.nPast(seq);
        } finally {
          turn.unlock();
        }
        unevaluated = tok;
        record(tok);
        if (eog) {
          stop = Stop.EOG;
          break;
        }
        out.accept(utf8.add(piece));
        generated++;
        if (generated >= options.nPredict()) {
          stop = Stop.N_PREDICT; // the last token's own logits are not needed
        } else if (held >= nCtx) {
          stop = Stop.CTX;
        }
        feed = new int[] {tok};
      }
    } catch (SessionException e) {
      if (!e.cancelled()) {
        throw e;
      }
      stop = Stop.CANCELLED;
    }
    if (prefill < 0) {
      t1 = System.nanoTime();
      prefill = (t1 - t0) / 1e9;
    }
    out.accept(utf8.finish());
    double decode = (System.nanoTime() - t1) / 1e9;
    Map<String, String> stats;
    turn.lock();
    try {
      stats = session.stats();
    } finally {
      turn.unlock();
    }
    return new Result(all.toString(), ids.length, generated, prefill, decode, stop, stats);
  }

  /**
   * {@code session.eval} on this generation's sequence (the caller holds {@code turn}). An eval
   * that returns cancelled while this generation was not cancelled met another generation's cancel
   * (the session has one flag, which that eval consumed): it is run again — its tokens were not
   * kept.
   */
  private Logits eval(int[] feed, int logitsFrom) {
    while (true) {
      evaluating = true;
      if (cancelled) {
        session.cancel(); // a cancel that came before this eval began stops it at once
      }
      try {
        return session.eval(seq, feed, logitsFrom);
      } catch (SessionException e) {
        if (!e.cancelled() || cancelled) {
          throw e;
        }
      } finally {
        evaluating = false;
      }
    }
  }

  private void record(int tok) {
    if (nSampled == sampled.length) {
      sampled = java.util.Arrays.copyOf(sampled, sampled.length * 2);
    }
    sampled[nSampled++] = tok;
  }

  /**
   * The tokens the last {@link #generate} sampled, in order (an end-of-generation token included);
   * all but the last are in the pools (the last one too once a following call evaluated it).
   */
  public int[] sampled() {
    return java.util.Arrays.copyOf(sampled, nSampled);
  }

  private static void snapshot(Runnable call) {
    try {
      call.run();
    } catch (SessionException e) {
      throw new SnapshotRefused(e);
    }
  }
}
