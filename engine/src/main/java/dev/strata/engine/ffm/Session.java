package dev.strata.engine.ffm;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.libc.NativeCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One engine session (ABI 3, {@code strata_session_*} of strata_engine.h; docs/ENGINE-ABI.md): a
 * loaded model, its tokenizer and the KV pools of its sequences. Opened by {@link
 * NativeEngine#openSession}; {@link #close()} frees everything the engine holds for it.
 *
 * <p>Threading: calls on one session are not concurrent (the caller serializes them, as the C
 * contract says) — except {@link #cancel()}, which any thread may call at any time, a signal
 * handler's thread included. The session's lines go to the {@link LogSink} given at open, from
 * inside the calls only.
 *
 * <p>Memory: the logits, token, piece and RNG buffers are off-heap in the session's own arena and
 * reused from call to call (grown when a call needs more); {@link #eval} returns a view of the
 * logits buffer ({@link Logits}), valid until the next eval, that {@link #sample} reads in place.
 */
@SuppressWarnings("restricted") // NativeEngine's binding: the session pointer the engine returned
public final class Session implements AutoCloseable {
  /** {@code strata_session_token}'s {@code which}: the beginning-of-sequence token. */
  public static final int BOS = 0;

  /** {@code which}: the end-of-sequence token. */
  public static final int EOS = 1;

  /** {@code which}: the end-of-turn token. */
  public static final int EOT = 2;

  /** {@code strata_session_tokenize} flag: add BOS/EOS as the model says. */
  public static final int ADD_SPECIAL = 1;

  /** {@code strata_session_tokenize} flag: parse special tokens written in the text. */
  public static final int PARSE_SPECIAL = 2;

  private final NativeEngine engine;
  private final SessionCalls calls;
  private final MemorySegment handle;
  private final long id;
  private final int nVocab;
  private final Object lifecycle = new Object();
  private final AtomicBoolean inCall = new AtomicBoolean();
  private boolean closed; // guarded by lifecycle
  private final SessionBuffers buf;
  private final SessionSnapshots snapshots;
  private long evalSerial;

  Session(NativeEngine engine, SessionCalls calls, MemorySegment handle, long id) {
    this.engine = engine;
    this.calls = calls;
    this.handle = handle;
    this.id = id;
    try {
      this.nVocab = (int) calls.nVocab().invokeExact(handle);
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
    this.buf = new SessionBuffers(nVocab);
    this.snapshots = new SessionSnapshots(this, calls);
  }

  /** The engine this session belongs to. */
  public NativeEngine engine() {
    return engine;
  }

  /** {@code strata_session_n_vocab}: the number of token ids, and of logits per position. */
  public int nVocab() {
    return nVocab;
  }

  /** {@code strata_session_n_ctx}: the positions one sequence may hold (the config's --ctx). */
  public int nCtx() {
    return SessionCalls.intCall(() -> (int) calls.nCtx().invokeExact(live()));
  }

  /** {@code strata_session_n_seq}: the sequences of the session. */
  public int nSeq() {
    return SessionCalls.intCall(() -> (int) calls.nSeq().invokeExact(live()));
  }

  /**
   * {@code strata_session_token}: a special token's id ({@link #BOS}, {@link #EOS}, {@link #EOT}),
   * or -1 when the model has none.
   */
  public int token(int which) {
    return SessionCalls.intCall(() -> (int) calls.token().invokeExact(live(), which));
  }

  /** {@code strata_session_is_eog}: whether generation ends at {@code token}. */
  public boolean isEog(int token) {
    return SessionCalls.intCall(() -> (int) calls.isEog().invokeExact(live(), token)) != 0;
  }

  /**
   * {@code strata_session_meta}: a string-valued GGUF key of the model ("general.name",
   * "tokenizer.chat_template"), or empty when the model has no such string key.
   */
  public Optional<String> meta(String key) {
    Objects.requireNonNull(key, "key");
    if (key.indexOf('\0') >= 0) {
      return Optional.empty();
    }
    try (Arena a = Arena.ofConfined()) {
      MemorySegment k = a.allocateFrom(key);
      long n = buf.intoBytes((b, cap) -> (long) calls.meta().invokeExact(live(), k, b, cap), 1);
      return n < 0 ? Optional.empty() : Optional.of(buf.text(n));
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
  }

  /**
   * {@code strata_session_tokenize}: the ids of {@code text} (encoded as UTF-8).
   *
   * @param flags {@link #ADD_SPECIAL}, {@link #PARSE_SPECIAL}, or both
   * @throws IllegalArgumentException when the engine calls the arguments bad (-1)
   */
  public int[] tokenize(String text, int flags) {
    byte[] utf8 = Objects.requireNonNull(text, "text").getBytes(StandardCharsets.UTF_8);
    try (Arena a = Arena.ofConfined()) {
      MemorySegment t = a.allocate(Math.max(1, utf8.length));
      MemorySegment.copy(utf8, 0, t, ValueLayout.JAVA_BYTE, 0, utf8.length);
      long len = utf8.length;
      long n =
          buf.intoIds(
              (b, cap) -> (long) calls.tokenize().invokeExact(live(), t, len, flags, b, cap));
      if (n < 0) {
        throw new IllegalArgumentException("strata_session_tokenize refused the text");
      }
      return buf.idsOf(n);
    } catch (Throwable e) {
      throw NativeCalls.rethrow(e);
    }
  }

  /**
   * {@code strata_session_token_piece} (special tokens' text too): the bytes of one token. A UTF-8
   * character may be split across tokens: assemble the bytes of consecutive tokens before decoding
   * them.
   *
   * @throws IllegalArgumentException for an id outside the vocabulary
   */
  public byte[] tokenPiece(int token) {
    try {
      long n =
          buf.intoBytes(
              (b, cap) -> (long) calls.tokenPiece().invokeExact(live(), token, 1, b, cap), 0);
      if (n < 0) {
        throw new IllegalArgumentException(
            "token id " + token + " is outside the vocabulary (0.." + (nVocab - 1) + ")");
      }
      return buf.bytesOf(n);
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
  }

  /**
   * {@code strata_session_eval}: appends {@code tokens} to sequence {@code seq} at its next
   * positions and returns the logits of positions {@code [logitsFrom, tokens.length)} of this call
   * (none when {@code logitsFrom >= tokens.length}), as a view of the session's reused buffer.
   *
   * @throws SessionException with the engine's code: 2 for a bad argument (the engine logged
   *     which), 130 when cancelled ({@link SessionException#cancelled()}; the call's tokens are
   *     then not kept). A {@link #cancel()} that came while no eval ran cancels this one.
   */
  public Logits eval(int seq, int[] ids, int logitsFrom) {
    Objects.requireNonNull(ids, "tokens");
    if (logitsFrom < 0) {
      throw new IllegalArgumentException("logitsFrom " + logitsFrom + " is negative");
    }
    int rows = Math.max(0, ids.length - logitsFrom);
    if (!inCall.compareAndSet(false, true)) {
      throw new IllegalStateException("a call on this session is already in progress");
    }
    try {
      MemorySegment s = live();
      MemorySegment out = buf.logits((long) rows * nVocab);
      MemorySegment in = buf.ids(ids);
      int rc =
          (int) calls.eval().invokeExact(s, seq, in, (long) ids.length, (long) logitsFrom, out);
      if (rc == ExitCodes.INTERRUPTED) {
        throw new SessionException(ExitCodes.INTERRUPTED, "strata_session_eval: cancelled");
      }
      if (rc != 0) {
        throw new SessionException(
            rc,
            "strata_session_eval refused "
                + ids.length
                + " tokens on sequence "
                + seq
                + " (code "
                + rc
                + ")");
      }
      evalSerial++;
      return new Logits(this, rows);
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    } finally {
      inCall.set(false);
    }
  }

  /** {@code strata_session_n_past}: the positions {@code seq} holds (-1: no such sequence). */
  public int nPast(int seq) {
    return SessionCalls.intCall(() -> (int) calls.nPast().invokeExact(live(), seq));
  }

  /**
   * {@code strata_session_truncate}: keeps the first {@code nKeep} positions of {@code seq} (0:
   * clear).
   *
   * @throws SessionException (2) when {@code nKeep} is over {@link #nPast} or the sequence is bad
   */
  public void truncate(int seq, int nKeep) {
    int rc = SessionCalls.intCall(() -> (int) calls.truncate().invokeExact(live(), seq, nKeep));
    if (rc != 0) {
      throw new SessionException(
          rc, "strata_session_truncate: sequence " + seq + " cannot keep " + nKeep + " positions");
    }
  }

  /**
   * {@code strata_session_sample} on row {@code row} of the last {@link #eval}'s logits, read in
   * place: {@code temp <= 0} greedy (the lowest id among equal maxima); else softmax(logits/temp)
   * over the {@code topK} largest (0: all), then the smallest set of probability {@code >= topP}
   * (1: all), drawn with the splitmix64 state {@code rng[0]} (advanced).
   */
  public int sample(Logits l, int row, float temp, int topK, float topP, long[] rngState) {
    if (!l.current(this)) {
      throw new IllegalStateException("these logits were overwritten by a later eval");
    }
    Objects.checkIndex(row, l.rows());
    MemorySegment at = buf.logits().asSlice((long) row * nVocab * Float.BYTES);
    return sampleAt(at, temp, topK, topP, rngState);
  }

  /** {@link #sample} on logits of the caller's ({@link #nVocab} of them). */
  public int sample(float[] values, float temp, int topK, float topP, long[] rngState) {
    if (values.length != nVocab) {
      throw new IllegalArgumentException(
          values.length + " logits, the vocabulary has " + nVocab + " ids");
    }
    try (Arena a = Arena.ofConfined()) {
      return sampleAt(a.allocateFrom(ValueLayout.JAVA_FLOAT, values), temp, topK, topP, rngState);
    }
  }

  private int sampleAt(MemorySegment at, float temp, int topK, float topP, long[] rngState) {
    if (rngState.length < 1) {
      throw new IllegalArgumentException("the RNG state is one long");
    }
    MemorySegment rng = buf.rng();
    rng.set(ValueLayout.JAVA_LONG, 0, rngState[0]);
    int tok =
        SessionCalls.intCall(
            () -> (int) calls.sample().invokeExact(live(), at, temp, topK, topP, rng));
    rngState[0] = rng.get(ValueLayout.JAVA_LONG, 0);
    return tok;
  }

  /**
   * {@code strata_session_cancel}: the eval in progress returns 130 soon after ({@link #eval}
   * throws {@link SessionException} with {@link SessionException#cancelled()}); when none is in
   * progress, the next one does. Any thread, any number of times; a no-op once closed.
   */
  public void cancel() {
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      try {
        calls.cancel().invokeExact(handle);
      } catch (Throwable t) {
        throw NativeCalls.rethrow(t);
      }
    }
  }

  /**
   * {@code strata_session_stats}: the counters so far, in the engine's order ({@code
   * prefill_tokens, prefill_seconds, decode_tokens, decode_seconds, lookups, hits, misses, ...,
   * peak_rss_bytes}), values as the engine wrote them.
   */
  public Map<String, String> stats() {
    try {
      return SessionCalls.statsWords(
          buf.text(buf.intoBytes((b, cap) -> (long) calls.stats().invokeExact(live(), b, cap), 1)));
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
  }

  /**
   * Whether the engine saves and loads sessions ({@link #save}, {@link #load}, {@link #tokens}).
   */
  public boolean hasSnapshots() {
    return calls.snapshots();
  }

  /**
   * {@code strata_session_save}: writes sequence {@code seq} (its token ids and the used cells of
   * its pools) to {@code file}, atomically (docs/ENGINE-ABI.md, "Session snapshots").
   *
   * @throws SessionException 2 when the file cannot be written or the sequence is bad (the engine
   *     logged its one line); 3 when the engine has no snapshots
   */
  public void save(int seq, Path file) {
    snapshots.call("strata_session_save", calls.save(), seq, file);
  }

  /**
   * {@code strata_session_load}: replaces sequence {@code seq} with the snapshot in {@code file}; a
   * refused load leaves the sequence as it was.
   *
   * @throws SessionException 2 for a file that is not an intact snapshot (unreadable, truncated,
   *     corrupted) or a bad sequence; 3 for an intact snapshot this session cannot take (another
   *     model, another KV format, a context smaller than its cells, a newer format version,
   *     recurrent state) or an engine without snapshots. The engine logged its one line.
   */
  public void load(int seq, Path file) {
    snapshots.call("strata_session_load", calls.load(), seq, file);
  }

  /** {@code strata_session_tokens}: the ids sequence {@code seq} holds, in position order. */
  public int[] tokens(int seq) {
    return snapshots.tokens(seq);
  }

  /** {@code strata_session_close}: frees the engine's session and this object's buffers. */
  @Override
  public void close() {
    if (inCall.get()) {
      throw new IllegalStateException("cannot close a session while it evaluates");
    }
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
      try {
        calls.close().invokeExact(handle);
      } catch (Throwable t) {
        throw NativeCalls.rethrow(t);
      } finally {
        engine.forget(id);
        buf.close();
      }
    }
  }

  /** The serial of the last eval (a {@link Logits} of another serial is stale). */
  long evalSerial() {
    return evalSerial;
  }

  /** The session's buffers (its logits are read, and its snapshot calls use the id buffer). */
  SessionBuffers buffers() {
    return buf;
  }

  /** Marks a call in progress; false when one already is. */
  boolean enter() {
    return inCall.compareAndSet(false, true);
  }

  /** The call in progress ended. */
  void leave() {
    inCall.set(false);
  }

  MemorySegment live() {
    synchronized (lifecycle) {
      if (closed) {
        throw new IllegalStateException("the session is closed");
      }
    }
    return handle;
  }

  @Override
  public String toString() {
    return "Session[" + engine.path().getFileName() + ", n_vocab=" + nVocab + "]";
  }
}
