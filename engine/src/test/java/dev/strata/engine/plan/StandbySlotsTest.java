package dev.strata.engine.plan;

import static dev.strata.engine.plan.Fixtures.linux;
import static dev.strata.engine.plan.Fixtures.mac;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.strata.engine.Backend;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The stand-by rule (the seed's 576 / 64 slots) and its bound by the model: with the prompt-GEMM
 * chain at most experts per layer + 64, without it 64, and never more than the model's slots less
 * one token's.
 */
class StandbySlotsTest {
  private static final StandbySlots ON = new StandbySlots(true, 576, "prompt-GEMM chain on");
  private static final StandbySlots OFF = new StandbySlots(false, 64, "off");

  @Test
  void theSeedKeepsItsRule() {
    // 512 experts + 64 = 576: exactly the rule, so the rule itself, unbounded
    assertSame(ON, ON.boundedBy(512, 24_576, 480));
    assertSame(OFF, OFF.boundedBy(512, 24_576, 480));
  }

  /** gpt-oss-20b's shape: 32 experts per layer in 24 layers, 4 used. */
  @Test
  void fewerExpertsPerLayerBoundTheChainsSlots() {
    assertEquals(
        new StandbySlots(
            true,
            96,
            "prompt-GEMM chain on; bounded by the model's 32 experts per layer and 768 slots"),
        ON.boundedBy(32, 768, 96));
    assertSame(OFF, OFF.boundedBy(32, 768, 96));
  }

  @Test
  void standbyAndOneTokenNeverExceedTheModelsSlots() {
    // 8 experts in 2 layers, 2 used: 16 slots, 4 for a token, 12 left
    assertEquals(12, ON.boundedBy(8, 16, 4).slots());
    assertEquals(12, OFF.boundedBy(8, 16, 4).slots());
    assertEquals(
        "off; bounded by the model's 8 experts per layer and 16 slots",
        OFF.boundedBy(8, 16, 4).reason());
    // 64 + 4 = 68 slots: 64 left, the rule itself
    assertSame(OFF, OFF.boundedBy(8, 68, 4));
    assertEquals(63, OFF.boundedBy(8, 67, 4).slots());
    // a token that needs more than the model has leaves none
    assertEquals(0, OFF.boundedBy(8, 4, 6).slots());
  }

  @Test
  void thePromptSwitchesAreReadAsTheEngineReadsThem() {
    Map<String, String> none = Map.of();
    assertEquals(576, StandbySlots.decide(mac(24), Backend.METAL, none).slots());
    assertEquals(
        new StandbySlots(false, 64, "pc engine: no Metal prompt-GEMM chain"),
        StandbySlots.decide(linux(24), Backend.PC, Map.of(StandbySlots.ENV_PROMPT_GEMM, "1")));
    assertEquals(
        new StandbySlots(false, 64, "STRATA_METAL_PROMPT=window"),
        StandbySlots.decide(mac(24), Backend.METAL, Map.of(StandbySlots.ENV_PROMPT, " window\n")));
    // atoi: "" and "0x" are 0 (off), " +2" is 2 (on)
    for (String off : new String[] {"", "0x", "-0", "zero"}) {
      assertEquals(
          new StandbySlots(false, 64, "STRATA_METAL_PROMPT_GEMM=0"),
          StandbySlots.decide(mac(24), Backend.METAL, Map.of(StandbySlots.ENV_PROMPT_GEMM, off)),
          off);
    }
    assertEquals(
        new StandbySlots(true, 576, "prompt-GEMM chain on"),
        StandbySlots.decide(mac(24), Backend.METAL, Map.of(StandbySlots.ENV_PROMPT_GEMM, " +2")));
    assertEquals(
        new StandbySlots(false, 64, "k4 host: prompts on the flash chain"),
        StandbySlots.decide(mac(24, 0, true), Backend.CPU_REFERENCE, none));
  }
}
