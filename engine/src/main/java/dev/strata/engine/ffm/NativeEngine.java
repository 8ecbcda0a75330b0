package dev.strata.engine.ffm;

import dev.strata.engine.Os;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.libc.NativeCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Strata engine library (the Metal engine, or strata-ref) bound through {@code
 * java.lang.foreign}: the C ABI of {@code engine/native/include/strata_engine.h}
 * (docs/ENGINE-ABI.md) behind a small Java API. Every method handle is resolved once, in {@link
 * #load}; the library, the log upcall stub and the handles live in this object's own shared arena,
 * released by {@link #close()}.
 *
 * <p>Threading: {@link #run} runs the engine on the calling thread, one run at a time per process
 * (the engines keep process-wide state such as the cancel flag); {@link #cancel()} may be called
 * from any thread, including a signal-handling thread, while a run is in progress. The {@link
 * LogSink} is called from engine threads; see its contract.
 *
 * <p>ABI 3 engines also have sessions ({@link #openSession}, {@link Session}): the model loaded
 * once, tokens evaluated and sampled call by call. Their handles are resolved at load with the
 * rest; an ABI 1 or 2 engine loads, and {@link #hasSessions()} is false.
 */
@SuppressWarnings("restricted") // this class is the FFM binding: it exists to call native code
public final class NativeEngine implements AutoCloseable {

  /**
   * The newest ABI version this binding speaks ({@code STRATA_ENGINE_ABI_VERSION}): 2 added {@code
   * strata_engine_check}, 3 the session API ({@link Session}; docs/ENGINE-ABI.md).
   */
  public static final int ABI_VERSION = 3;

  /** The first ABI version with sessions ({@code strata_session_*}, {@link #openSession}). */
  public static final int SESSION_ABI_VERSION = 3;

  /** The oldest ABI version this binding still loads (ABI 1: no {@code strata_engine_check}). */
  public static final int MIN_ABI_VERSION = 1;

  /** The symbol ABI 2 added: the engine's own preflight. Optional on ABI 1 libraries. */
  public static final String CHECK_SYMBOL = "strata_engine_check";

  /** The symbols of ABI 1, in the header's order (ABI 3's: {@link #SESSION_SYMBOLS}). */
  public static final List<String> SYMBOLS =
      List.of(
          "strata_engine_abi_version",
          "strata_engine_name",
          "strata_engine_main",
          "strata_engine_cancel",
          "strata_kv_cell_bytes",
          "strata_kv_encode",
          "strata_kv_decode");

  /** The symbols ABI 3 added (the session API), in the header's order; required from ABI 3. */
  public static final List<String> SESSION_SYMBOLS = SessionCalls.SYMBOLS;

  private static final Linker LINKER = NativeCalls.LINKER;

  /** {@code size_t} (64-bit platforms only). */
  static final ValueLayout SIZE_T = sizeT();

  /**
   * {@code int f(int argc, char **argv, strata_log_fn log, void *user)}: strata_engine_main and
   * strata_engine_check, which takes the argv main would.
   */
  private static final FunctionDescriptor MAIN_FN =
      FunctionDescriptor.of(
          ValueLayout.JAVA_INT,
          ValueLayout.JAVA_INT,
          ValueLayout.ADDRESS,
          ValueLayout.ADDRESS,
          ValueLayout.ADDRESS);

  /** Only one engine run per process: the ABI's cancel flag and the engines' state are global. */
  private static final AtomicBoolean RUNNING = new AtomicBoolean();

  private final Path path;
  private final Arena arena;
  private final MethodHandle name;
  private final MethodHandle main;
  private final MethodHandle check; // null on an ABI 1 library
  private final int version;
  private final MethodHandle cancel;
  private final KvRecordCalls kv;
  private final SessionCalls sessionCalls; // null below ABI 3
  private final LogUpcall log;
  private volatile Throwable lastSinkFailure;
  private final AtomicBoolean closed = new AtomicBoolean();

  private NativeEngine(LibraryLoader.Loaded lib) {
    this.path = lib.shown();
    this.arena = lib.arena();
    // The version first: a library of another ABI may lack (or redefine) the other symbols, and
    // "ABI 2, launcher speaks 1" is the message that helps there.
    int version = lib.abiVersion(MIN_ABI_VERSION, ABI_VERSION);
    this.version = version;
    this.name = lib.downcall("strata_engine_name", FunctionDescriptor.of(ValueLayout.ADDRESS));
    this.main = lib.downcall("strata_engine_main", MAIN_FN);
    // ABI 2 requires the check; an ABI 1 library has none (the launcher falls back to its own
    // rules and says so).
    this.check = version >= 2 ? lib.downcall(CHECK_SYMBOL, MAIN_FN) : null;
    this.cancel = lib.downcall("strata_engine_cancel", FunctionDescriptor.ofVoid());
    this.kv = new KvRecordCalls(lib);
    // ABI 3 requires every session symbol; older engines have none (what needs them says so)
    this.sessionCalls = version >= SESSION_ABI_VERSION ? SessionCalls.bind(lib) : null;
    this.log = new LogUpcall(arena);
  }

  /**
   * Opens, checks and loads an engine library that no config pins ({@link VerifiedLibrary#open}
   * with no hash): the same ownership, mode and header checks as a launch, and the loader gets the
   * checked file, never the path again.
   *
   * @throws EngineLoadException (exit 3) for a missing file, a file that is not a shared library, a
   *     library the system cannot load, a missing ABI symbol, or another ABI version
   * @throws dev.strata.engine.trust.TrustRefused (exit 3) for a file or folder another user could
   *     change
   */
  public static NativeEngine load(Path library) {
    Objects.requireNonNull(library, "library");
    try (VerifiedLibrary v = VerifiedLibrary.open(library, null, null)) {
      return load(v);
    }
  }

  /**
   * Loads a checked library: {@code dlopen} of the descriptor it holds ({@code /proc/self/fd/N}) or
   * of its private copy, never of the configured path ({@link LibraryLoader}). The library may be
   * closed afterwards.
   *
   * @throws EngineLoadException (exit 3) when the loader refuses it, an ABI symbol is missing, or
   *     the ABI version differs
   */
  public static NativeEngine load(VerifiedLibrary library) {
    Objects.requireNonNull(library, "library");
    LibraryLoader.Loaded l = LibraryLoader.load(library);
    try {
      return new NativeEngine(l);
    } catch (RuntimeException e) {
      l.arena().close();
      throw e;
    }
  }

  /**
   * Where the build puts strata-ref under a checkout: {@code
   * <root>/engine/target/native/libstrata_ref.so} ({@code .dylib} on macOS). Not checked for
   * existence: {@link #load} says what is wrong.
   */
  public static Path defaultLibrary(Path root) {
    boolean mac = Os.isMac();
    return root.resolve("engine/target/native/libstrata_ref." + (mac ? "dylib" : "so"));
  }

  public Path path() {
    return path;
  }

  /** {@code strata_engine_abi_version()}: {@link #MIN_ABI_VERSION}..{@link #ABI_VERSION}. */
  public int abiVersion() {
    return version;
  }

  /** Whether the library has {@code strata_engine_check} (ABI 2 and later). */
  public boolean hasCheck() {
    return check != null;
  }

  /** Whether the library has the session API (ABI 3 and later): {@link #openSession}. */
  public boolean hasSessions() {
    return sessionCalls != null;
  }

  /**
   * What needs a session says this when the engine has none, after its own name: "{@code <what>:
   * the engine libstrata_x.so speaks ABI 2; <needs> needs ABI 3 (a session API)}".
   *
   * @param what who asks, e.g. "strata-launch --prompt"
   * @param needs what needs the sessions, e.g. "generation"
   */
  public String needsSessions(String what, String needs) {
    return what
        + ": the engine "
        + path.getFileName()
        + " speaks ABI "
        + version
        + "; "
        + needs
        + " needs ABI "
        + SESSION_ABI_VERSION
        + " (a session API)";
  }

  /**
   * {@code strata_session_open} with {@code argv = [library file name, args...]}, exactly the argv
   * {@link #run} passes: the engine applies main's startup rules (same refusals, same lines, its
   * {@code alloc:} items) and loads the model. The session's lines go to {@code sink}, from inside
   * its calls only. Sessions have their own cancel flags: several may be open, and they do not take
   * the one-run-at-a-time rule of {@link #run}. The caller sets the config's environment before (as
   * for {@link #run}).
   *
   * @throws SessionException with the engine's code (2 usage, 3 refused, 4 out of memory); the
   *     engine has logged why
   * @throws EngineLoadException (exit 3) when the engine has no sessions (ABI 1 or 2): {@link
   *     #needsSessions}
   * @throws IllegalArgumentException when an argument contains NUL
   */
  public Session openSession(List<String> args, LogSink sink) {
    Objects.requireNonNull(sink, "sink");
    if (sessionCalls == null) {
      throw new EngineLoadException(needsSessions("NativeEngine.openSession", "a session"));
    }
    List<String> argv = EngineArgv.of(path, args);
    if (closed.get()) {
      throw new IllegalStateException("engine library " + path + " is closed");
    }
    return sessionCalls.open(this, argv, log, sink);
  }

  /** A closed session's sink is dropped. */
  void forget(long sessionId) {
    log.forget(sessionId);
  }

  /** {@code strata_engine_name()}, e.g. "strata-ref 0.1.0 (cpu)". */
  public String name() {
    try {
      MemorySegment s = (MemorySegment) name.invokeExact();
      if (s.equals(MemorySegment.NULL)) {
        return "";
      }
      return s.reinterpret(4096).getString(0);
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
  }

  /**
   * Sets a variable in the process environment through libc {@code setenv}, where the engine reads
   * it ({@link ProcessEnv#set}).
   */
  public void setEnv(String name, String value) {
    ProcessEnv.set(name, value);
  }

  /** Removes a variable from the process environment ({@link ProcessEnv#unset}). */
  public void unsetEnv(String name) {
    ProcessEnv.unset(name);
  }

  /**
   * Puts {@code env} over the process environment in one step, linear in its size ({@link
   * ProcessEnv#overlay}); the returned {@link Runnable} puts the environment back as it was.
   */
  public Runnable overlayEnv(java.util.Map<String, String> env) {
    return ProcessEnv.overlay(env);
  }

  /**
   * Runs {@code strata_engine_main} on the calling thread with {@code argv = [library file name,
   * args...]} and returns its exit code (0 ok, 2 usage, 3 refused, 130 cancelled, else the
   * engine's). Lines go to {@code sink} as they come, possibly from engine threads.
   *
   * @throws IllegalStateException when another run is in progress in this process
   * @throws IllegalArgumentException when an argument contains NUL
   */
  public int run(List<String> args, LogSink sink) {
    return call(main, args, sink);
  }

  /**
   * Runs {@code strata_engine_check} (ABI 2) on the calling thread with the argv {@link #run} would
   * pass: the engine parses the flags, reads the model and applies its startup rules, logs {@code
   * plan: item=<name> bytes=<n> ...} lines, and returns the code {@code strata_engine_main} would
   * return before it starts work (0: it would start). Allocates no large buffer, runs nothing.
   *
   * @throws UnsupportedOperationException on an ABI 1 library ({@link #hasCheck()} is false)
   * @throws IllegalStateException when another run or check is in progress in this process
   * @throws IllegalArgumentException when an argument contains NUL
   */
  public int check(List<String> args, LogSink sink) {
    if (check == null) {
      throw new UnsupportedOperationException(
          "engine library " + path + " has ABI version " + version + ": no " + CHECK_SYMBOL);
    }
    return call(check, args, sink);
  }

  private int call(MethodHandle fn, List<String> args, LogSink sink) {
    Objects.requireNonNull(sink, "sink");
    List<String> argv = EngineArgv.of(path, args);
    if (closed.get()) {
      throw new IllegalStateException("engine library " + path + " is closed");
    }
    if (!RUNNING.compareAndSet(false, true)) {
      throw new IllegalStateException("an engine run is already in progress in this process");
    }
    LogUpcall.RunState state = log.begin(sink);
    try (Arena a = Arena.ofConfined()) {
      int rc =
          (int)
              fn.invokeExact(
                  argv.size(), EngineArgv.segment(a, argv), log.stub(), MemorySegment.NULL);
      lastSinkFailure = state.failure().get();
      return rc;
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    } finally {
      log.end();
      RUNNING.set(false);
    }
  }

  /** The first exception the sink threw during the last {@link #run}, if any. */
  public Optional<Throwable> lastSinkFailure() {
    return Optional.ofNullable(lastSinkFailure);
  }

  /**
   * {@code strata_engine_cancel()}: the run in progress returns 130 soon after. Safe from any
   * thread; a no-op when nothing runs.
   */
  public void cancel() {
    try {
      cancel.invokeExact();
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
  }

  /**
   * Bytes of one cell: K and V records of every KV head of one layer (docs/ENGINE-CONTRACT.md, KV
   * formats; {@code strata_kv_cell_bytes}).
   *
   * @throws IllegalArgumentException when the engine has no such cell (it answered 0)
   */
  public long cellBytes(KvFormat format, int kvHeads, int headDim) {
    return kv.cellBytes(format, kvHeads, headDim);
  }

  /**
   * Encodes {@code src.length / headDim} head vectors into vector records ({@code
   * strata_kv_encode}).
   */
  public byte[] encode(KvFormat format, float[] src, int headDim) {
    return kv.encode(format, src, headDim);
  }

  /** Decodes whole vector records back to floats ({@code strata_kv_decode}). */
  public float[] decode(KvFormat format, byte[] src, int headDim) {
    return kv.decode(format, src, headDim);
  }

  /**
   * Releases the library and the upcall stub.
   *
   * @throws IllegalStateException while a run of this engine is in progress, or a session of it is
   *     open (close the sessions first: their code is the library's)
   */
  @Override
  public void close() {
    if (log.running()) {
      throw new IllegalStateException("cannot close " + path + " while it runs");
    }
    if (log.sessions() > 0) {
      throw new IllegalStateException(
          "cannot close " + path + " while " + log.sessions() + " session(s) are open");
    }
    if (closed.compareAndSet(false, true)) {
      arena.close();
    }
  }

  private static ValueLayout sizeT() {
    MemoryLayout l = LINKER.canonicalLayouts().get("size_t");
    if (!(l instanceof ValueLayout.OfLong v)) {
      throw new IllegalStateException("strata needs a 64-bit platform (size_t is " + l + ")");
    }
    return v;
  }
}
