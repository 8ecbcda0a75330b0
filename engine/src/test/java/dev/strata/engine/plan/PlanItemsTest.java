package dev.strata.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
    String[][] cases = {
      {"plan: item=kv bytes=416858112", "kv"},
      {"plan: item=ssm_state", "ssm_state"},
      {"plan: item= bytes=1", ""},
      {"alloc: item=kv bytes=1", null},
      {"plan: kv", null},
    };
    for (String[] c : cases) {
      assertEquals(c[1], PlanItems.name(c[0]), c[0]);
    }
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
