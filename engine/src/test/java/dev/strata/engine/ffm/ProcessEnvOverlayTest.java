package dev.strata.engine.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.libc.NativeCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The engine's environment put over the process's in one step: linear in the entries (a count
 * check: no setenv/unsetenv per entry, each environ entry visited once), seen by libc getenv, and
 * put back whole.
 */
@DisabledOnOs(OS.WINDOWS)
@SuppressWarnings("restricted") // libc getenv, as the engine calls it
class ProcessEnvOverlayTest {
  private static final MethodHandle GETENV =
      NativeCalls.libc("getenv", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));

  /** What the engine's getenv sees. */
  static String getenv(String name) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = (MemorySegment) GETENV.invokeExact(a.allocateFrom(name));
      return v.address() == 0 ? null : v.reinterpret(1 << 20).getString(0);
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
  }

  @Test
  void thirtyThousandEntriesInOneStepAndBack() {
    String path = getenv("PATH");
    assertTrue(path != null, "this test runs with a PATH");
    Map<String, String> env = new LinkedHashMap<>();
    for (int i = 0; i < 30_000; i++) {
      env.put("STRATA_OVERLAY_TEST_" + i, "v" + i);
    }
    env.put("PATH", "/overlaid");
    long calls = ProcessEnv.LIBC_CALLS.get();
    long visited = ProcessEnv.ENTRIES_VISITED.get();
    int before = System.getenv().size();

    Runnable restore = ProcessEnv.overlay(env);
    try {
      assertEquals("v0", getenv("STRATA_OVERLAY_TEST_0"));
      assertEquals("v29999", getenv("STRATA_OVERLAY_TEST_29999"));
      assertEquals("/overlaid", getenv("PATH"), "an entry of the config replaces the process's");
    } finally {
      restore.run();
    }
    assertEquals(path, getenv("PATH"));
    assertNull(getenv("STRATA_OVERLAY_TEST_0"));
    // linear: no libc call per entry, and every entry of the environment read once
    assertEquals(0, ProcessEnv.LIBC_CALLS.get() - calls);
    long read = ProcessEnv.ENTRIES_VISITED.get() - visited;
    assertTrue(read <= before + 64, "entries read: " + read + " of an environment of " + before);
  }

  @Test
  void aBadNameChangesNothing() {
    String path = getenv("PATH");
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", "/overlaid");
    env.put("A=B", "x");
    assertThrows(IllegalArgumentException.class, () -> ProcessEnv.overlay(env));
    assertEquals(path, getenv("PATH"));
  }
}
