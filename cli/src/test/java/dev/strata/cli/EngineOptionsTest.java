package dev.strata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.strata.engine.gen.Answers;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link EngineOptions#answers}, the one reading of a command's engine answers: each command's own
 * {@code --ctx} (its help and default its own) is read by name, an option the command does not have
 * reads as null, and the values are the typed ones the options' rows read.
 */
class EngineOptionsTest {
  private static final CliOption<Long> CTX = EngineOptions.context("a context");

  private static Answers answers(List<CliOption<?>> table, String... args) {
    return EngineOptions.answers(SimpleArgs.scan(args, table, Set.of()));
  }

  @Test
  void setupsOptionsGiveEveryAnswer() {
    List<CliOption<?>> table = List.of(CTX, EngineOptions.EXPERTS, EngineOptions.KV);
    assertEquals(
        new Answers(32_768L, ExpertsMode.STREAM, KvFormat.Q4_0),
        answers(table, "--ctx", "32k", "--experts", "stream", "--kv", "q4_0"));
    assertEquals(Answers.DEFAULTS, answers(table));
  }

  @Test
  void aCommandWithoutAnOptionLeavesItsAnswerToThePlan() {
    CliOption<Long> demoCtx = EngineOptions.context("the demo's").defaultsTo("1024");
    List<CliOption<?>> table = List.of(EngineOptions.KV, demoCtx);
    assertEquals(new Answers(1024L, null, null), answers(table));
    assertEquals(
        new Answers(2048L, null, KvFormat.INT8), answers(table, "--kv", "int8", "--ctx", "2k"));
  }
}
