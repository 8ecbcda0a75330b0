package dev.strata.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Reading the engine's accounting lines {@code plan: item=NAME bytes=N} (docs/ENGINE-ABI.md), as
 * {@code strata-launch --plan} does to show them beside the plan's.
 */
class PlanItemsTest {
  @Test
  void theNameIsWhatFollowsItemUpToASpace() {
    assertEquals("kv", PlanItems.name("plan: item=kv bytes=416858112"));
    assertEquals("ssm_state", PlanItems.name("plan: item=ssm_state"));
    assertEquals("", PlanItems.name("plan: item= bytes=1"));
    assertNull(PlanItems.name("alloc: item=kv bytes=1"));
    assertNull(PlanItems.name("plan: kv"));
  }

  @Test
  void theBytesAreTheFigureAfterBytesOrMinusOne() {
    assertEquals(416_858_112L, PlanItems.bytes("plan: item=kv bytes=416858112"));
    assertEquals(0, PlanItems.bytes("plan: item=kv bytes=0 note=x"));
    assertEquals(-1, PlanItems.bytes("plan: item=kv bytes=4x"));
    assertEquals(-1, PlanItems.bytes("plan: item=kv"));
    assertEquals(-1, PlanItems.bytes("plan: item=kv mybytes=5"));
  }

  @Test
  void byNameKeepsTheFirstLineOfEachNameInOrder() {
    List<String> lines =
        List.of(
            "kv: format=int8",
            "plan: item=kv bytes=1",
            "plan: item=arena bytes=2",
            "plan: item=kv bytes=3");
    Map<String, String> m = PlanItems.byName(lines);
    assertEquals(List.of("kv", "arena"), List.copyOf(m.keySet()));
    assertEquals("plan: item=kv bytes=1", m.get("kv"));
    assertEquals(Map.of(), PlanItems.byName(List.of("nothing here")));
  }
}
