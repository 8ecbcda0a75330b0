package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** IntValue's written-out equals/hashCode mean what a record's would: same type, same bits. */
class GgufValueTest {
  @Test
  void intValuesAreEqualByTypeAndBits() {
    assertEquals(GgufValue.u32(7), GgufValue.u32(7));
    assertEquals(GgufValue.u32(7).hashCode(), GgufValue.u32(7).hashCode());
    assertNotEquals(GgufValue.u32(7), GgufValue.u32(8));
    assertNotEquals(GgufValue.u32(7), GgufValue.i32(7)); // another GGUF type
    assertNotEquals(GgufValue.u16(1), GgufValue.bool(true));
    assertNotEquals(GgufValue.u32(7), null);
    assertNotEquals(GgufValue.u32(7), new GgufValue.StringValue("7"));
    Map<GgufValue, Integer> votes = new HashMap<>();
    votes.merge(GgufValue.u16(4), 1, Integer::sum);
    votes.merge(GgufValue.u16(4), 1, Integer::sum);
    votes.merge(GgufValue.u32(4), 1, Integer::sum);
    assertEquals(2, votes.get(GgufValue.u16(4)));
    assertEquals(1, votes.get(GgufValue.u32(4)));
  }
}
