package dev.strata.engine.ffm;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.libc.NativeCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The method handles of ABI 3's session API ({@code strata_session_*} of strata_engine.h), resolved
 * once when an ABI 3 engine is loaded ({@link NativeEngine}), in the engine's arena. Every symbol
 * of {@link #SYMBOLS} is required: a library that says ABI 3 and lacks one is refused at load. The
 * session snapshots ({@link #SNAPSHOT_SYMBOLS}: save, load, tokens) are optional: null when the
 * engine has none, and {@link Session#save} says so.
 */
record SessionCalls(
    MethodHandle open,
    MethodHandle close,
    MethodHandle nVocab,
    MethodHandle nCtx,
    MethodHandle nSeq,
    MethodHandle token,
    MethodHandle isEog,
    MethodHandle meta,
    MethodHandle tokenize,
    MethodHandle tokenPiece,
    MethodHandle eval,
    MethodHandle nPast,
    MethodHandle truncate,
    MethodHandle sample,
    MethodHandle cancel,
    MethodHandle stats,
    MethodHandle save,
    MethodHandle load,
    MethodHandle tokens) {

  /** The symbols ABI 3 added, in the header's order. */
  static final List<String> SYMBOLS =
      List.of(
          "strata_session_open",
          "strata_session_close",
          "strata_session_n_vocab",
          "strata_session_n_ctx",
          "strata_session_n_seq",
          "strata_session_token",
          "strata_session_is_eog",
          "strata_session_meta",
          "strata_session_tokenize",
          "strata_session_token_piece",
          "strata_session_eval",
          "strata_session_n_past",
          "strata_session_truncate",
          "strata_session_sample",
          "strata_session_cancel",
          "strata_session_stats");

  /**
   * The session snapshots' symbols, optional in ABI 3 (docs/ENGINE-ABI.md, "Session snapshots").
   */
  static final List<String> SNAPSHOT_SYMBOLS =
      List.of("strata_session_save", "strata_session_load", "strata_session_tokens");

  /** Whether the engine has the session snapshots. */
  boolean snapshots() {
    return save != null && load != null && tokens != null;
  }

  private static final ValueLayout P = ValueLayout.ADDRESS;
  private static final ValueLayout I32 = ValueLayout.JAVA_INT;
  private static final ValueLayout I64 = ValueLayout.JAVA_LONG;
  private static final ValueLayout F32 = ValueLayout.JAVA_FLOAT;

  /** Binds every session symbol of {@code lib} ({@link EngineLoadException} for a missing one). */
  static SessionCalls bind(LibraryLoader.Loaded lib) {
    ValueLayout sizeT = NativeEngine.SIZE_T;
    return new SessionCalls(
        // strata_session *open(int argc, const char *const *argv, log, user, int *rc)
        lib.downcall("strata_session_open", FunctionDescriptor.of(P, I32, P, P, P, P)),
        lib.downcall("strata_session_close", FunctionDescriptor.ofVoid(P)),
        lib.downcall("strata_session_n_vocab", FunctionDescriptor.of(I32, P)),
        lib.downcall("strata_session_n_ctx", FunctionDescriptor.of(I32, P)),
        lib.downcall("strata_session_n_seq", FunctionDescriptor.of(I32, P)),
        lib.downcall("strata_session_token", FunctionDescriptor.of(I32, P, I32)),
        lib.downcall("strata_session_is_eog", FunctionDescriptor.of(I32, P, I32)),
        // int64_t meta(s, const char *key, char *buf, size_t cap)
        lib.downcall("strata_session_meta", FunctionDescriptor.of(I64, P, P, P, sizeT)),
        // int64_t tokenize(s, const char *text, size_t len, int flags, int32_t *out, size_t cap)
        lib.downcall(
            "strata_session_tokenize", FunctionDescriptor.of(I64, P, P, sizeT, I32, P, sizeT)),
        // int64_t token_piece(s, int32_t tok, int special, char *buf, size_t cap)
        lib.downcall(
            "strata_session_token_piece", FunctionDescriptor.of(I64, P, I32, I32, P, sizeT)),
        // int eval(s, int32_t seq, const int32_t *tokens, size_t n, size_t logits_from, float *)
        lib.downcall("strata_session_eval", FunctionDescriptor.of(I32, P, I32, P, sizeT, sizeT, P)),
        lib.downcall("strata_session_n_past", FunctionDescriptor.of(I32, P, I32)),
        lib.downcall("strata_session_truncate", FunctionDescriptor.of(I32, P, I32, I32)),
        // int32_t sample(s, const float *logits, float temp, int32_t top_k, float top_p, u64 *rng)
        lib.downcall("strata_session_sample", FunctionDescriptor.of(I32, P, P, F32, I32, F32, P)),
        lib.downcall("strata_session_cancel", FunctionDescriptor.ofVoid(P)),
        lib.downcall("strata_session_stats", FunctionDescriptor.of(I64, P, P, sizeT)),
        // int save(s, int32_t seq, const char *path) / load(...); int64_t tokens(s, seq, out, cap)
        lib.downcallIfPresent("strata_session_save", FunctionDescriptor.of(I32, P, I32, P)),
        lib.downcallIfPresent("strata_session_load", FunctionDescriptor.of(I32, P, I32, P)),
        lib.downcallIfPresent(
            "strata_session_tokens", FunctionDescriptor.of(I64, P, I32, P, sizeT)));
  }

  /**
   * {@code strata_session_open} with {@code argv} (the library's name first), the session's lines
   * to {@code sink} through the engine's one upcall ({@link NativeEngine#openSession}).
   */
  Session open(NativeEngine engine, List<String> argv, LogUpcall log, LogSink sink) {
    long id = log.addSession(sink);
    MemorySegment handle;
    int rc;
    try (Arena a = Arena.ofConfined()) {
      MemorySegment rcOut = a.allocate(ValueLayout.JAVA_INT);
      rcOut.set(ValueLayout.JAVA_INT, 0, -1);
      handle =
          (MemorySegment)
              open()
                  .invokeExact(
                      argv.size(),
                      EngineArgv.segment(a, argv),
                      log.stub(),
                      MemorySegment.ofAddress(id),
                      rcOut);
      rc = rcOut.get(ValueLayout.JAVA_INT, 0);
    } catch (Throwable t) {
      log.forget(id);
      throw NativeCalls.rethrow(t);
    }
    if (handle.equals(MemorySegment.NULL)) {
      log.forget(id);
      int code = rc > 0 ? rc : ExitCodes.PREFLIGHT;
      throw new SessionException(
          code, "strata_session_open: the engine refused the session (code " + code + ")");
    }
    return new Session(engine, this, handle, id);
  }

  /**
   * The line of {@code strata_session_stats}: {@code key=value} words separated by spaces, in
   * order; words without '=' are skipped.
   */
  static Map<String, String> statsWords(String line) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String word : line.trim().split(" +")) {
      int eq = word.indexOf('=');
      if (eq > 0) {
        m.put(word.substring(0, eq), word.substring(eq + 1));
      }
    }
    return m;
  }

  /** A call that answers an int (a method handle's {@code invokeExact}). */
  @FunctionalInterface
  interface IntCall {
    int call() throws Throwable;
  }

  /** {@code c}'s answer, what it threw rethrown ({@link NativeCalls#rethrow}). */
  static int intCall(IntCall c) {
    try {
      return c.call();
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
  }
}
