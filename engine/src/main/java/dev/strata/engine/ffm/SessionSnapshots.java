package dev.strata.engine.ffm;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.libc.NativeCalls;
import java.lang.foreign.Arena;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A {@link Session}'s snapshot calls ({@code strata_session_save}, {@code _load}, {@code _tokens};
 * docs/ENGINE-ABI.md, "Session snapshots"): optional in an ABI 3 engine, so each says so (code 3)
 * when the engine has none.
 *
 * @param session the session the calls act on
 * @param calls the engine's session symbols, the snapshot ones among them when it has them
 */
record SessionSnapshots(Session session, SessionCalls calls) {

  /** {@code strata_session_tokens} of {@code seq}. */
  int[] tokens(int seq) {
    if (!calls.snapshots()) {
      throw absent("strata_session_tokens");
    }
    try {
      long n =
          session
              .buffers()
              .intoIds((b, cap) -> (long) calls.tokens().invokeExact(session.live(), seq, b, cap));
      if (n < 0) {
        throw new IllegalArgumentException("sequence " + seq + " does not exist");
      }
      return session.buffers().idsOf(n);
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
  }

  /** A save or a load ({@code h}, named {@code name}) of {@code seq} with {@code file}. */
  void call(String name, MethodHandle h, int seq, Path file) {
    Objects.requireNonNull(file, "file");
    if (h == null) {
      throw absent(name);
    }
    String path = file.toString();
    if (path.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("a path with a NUL byte");
    }
    if (!session.enter()) {
      throw new IllegalStateException("a call on this session is already in progress");
    }
    try (Arena a = Arena.ofConfined()) {
      int rc = (int) h.invokeExact(session.live(), seq, a.allocateFrom(path));
      if (rc != 0) {
        throw new SessionException(rc, name + " answered " + rc + " for " + path);
      }
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    } finally {
      session.leave();
    }
  }

  private SessionException absent(String name) {
    return new SessionException(
        ExitCodes.PREFLIGHT,
        "engine " + session.engine().name() + " has no session snapshots (" + name + " is absent)");
  }
}
