package dev.strata.setup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The plan's refusal shown in the wizard: its figures, without advice that names flags. */
class WizardAdviceTest {
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "resident: … by 1.6 GiB; use --experts stream|resident: … by 1.6 GiB",
        "resident: … by 1.6 GiB; use --experts stream with a smaller context (--ctx 4096 fits)"
            + "|resident: … by 1.6 GiB",
        "stream: … GiB; short by 0.4 GiB; use a smaller context (--ctx 8192 fits) or --kv q4_0"
            + "|stream: … GiB; short by 0.4 GiB",
        "stream: … short by 9 GiB; the model does not fit even streamed at the smallest context;"
            + " use a machine with more memory|stream: … short by 9 GiB; the model does not fit"
            + " even streamed at the smallest context; use a machine with more memory",
        "stream: … short by 9 GiB; the model does not fit even streamed at the smallest context"
            + " within --mem-budget-mb 900; raise or remove --mem-budget-mb (…)"
            + "|stream: … short by 9 GiB",
        "q4_0 cannot hold head_dim 128|q4_0 cannot hold head_dim 128"
      })
  void figuresDropOnlyAdviceThatNamesFlags(String refusal, String shown) {
    assertEquals(shown, WizardAdvice.figures(refusal));
  }
}
