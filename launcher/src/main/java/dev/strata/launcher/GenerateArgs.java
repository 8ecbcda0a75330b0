package dev.strata.launcher;

import dev.strata.cli.CliOption;
import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.launcher.run.Generation;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * {@code strata-launch --prompt}'s options, judged the same for picocli's parse and the fast path
 * (both hand the values over as typed: {@link LaunchFlow.Generate}), and the prompt read. Defaults
 * are llama.cpp's (its {@code common_params_sampling}): temperature 0.8, top-k 40, top-p 0.95, a
 * random seed; {@code --n-predict} 128 (llama.cpp's -1, "until the end", is not offered: a launch
 * always ends). docs/LAUNCH.md.
 */
final class GenerateArgs {
  private GenerateArgs() {}

  static final int DEFAULT_N_PREDICT = 128;
  static final float DEFAULT_TEMP = 0.8f;
  static final int DEFAULT_TOP_K = 40;
  static final float DEFAULT_TOP_P = 0.95f;

  /** The most prompt bytes read from a file or standard input. */
  static final int MAX_PROMPT_BYTES = 16 << 20;

  private static final Pattern DIGITS = Pattern.compile("[0-9]{1,20}");
  private static final Pattern DECIMAL =
      Pattern.compile("[0-9]{1,9}(\\.[0-9]{1,9})?|\\.[0-9]{1,9}");

  /**
   * The generation {@code r} asks for, or null when it asks for none.
   *
   * @throws StrataException (exit 2) for a bad value, an option without a prompt, a prompt with
   *     --plan, --dry-run or --isolate, an unreadable prompt file
   */
  static Generation.Options options(LaunchFlow.Request r, Io io, Machine machine) {
    LaunchFlow.Generate g = r.generate();
    if (!g.asked()) {
      String stray =
          LaunchOptions.firstGiven(
              new Object[] {
                g.nPredict(),
                g.temp(),
                g.topK(),
                g.topP(),
                g.seed(),
                g.saveSession(),
                g.loadSession()
              },
              LaunchOptions.N_PREDICT,
              LaunchOptions.TEMP,
              LaunchOptions.TOP_K,
              LaunchOptions.TOP_P,
              LaunchOptions.SEED,
              LaunchOptions.SAVE_SESSION,
              LaunchOptions.LOAD_SESSION);
      if (stray != null) {
        throw usage(stray + " goes with --prompt or --prompt-file: it sets how text is generated");
      }
      return null;
    }
    if (g.prompt() != null && g.promptFile() != null) {
      throw usage("--prompt and --prompt-file exclude each other: give the prompt once");
    }
    if (r.plan() || r.dryRun()) {
      throw usage(
          "--prompt goes with a launch, not with "
              + (r.plan() ? "--plan" : "--dry-run")
              + ": nothing is generated there");
    }
    if (r.isolate()) {
      throw usage("--prompt runs the engine in this process: --isolate does not go with it yet");
    }
    int nPredict =
        (int)
            number(
                LaunchOptions.N_PREDICT,
                g.nPredict(),
                DEFAULT_N_PREDICT,
                DIGITS,
                0,
                1 << 20,
                "tokens");
    float temp =
        (float) number(LaunchOptions.TEMP, g.temp(), DEFAULT_TEMP, DECIMAL, 0, 100, "(0 = greedy)");
    int topK =
        (int) number(LaunchOptions.TOP_K, g.topK(), DEFAULT_TOP_K, DIGITS, 0, 1 << 24, "(0 = all)");
    float topP =
        (float) number(LaunchOptions.TOP_P, g.topP(), DEFAULT_TOP_P, DECIMAL, 0, 1, "(1 = all)");
    if (g.topP() != null && topP <= 0) {
      throw usage("--top-p: " + g.topP() + " keeps no token: give a value above 0, at most 1");
    }
    long seed = g.seed() == null ? ThreadLocalRandom.current().nextLong() : seed(g.seed());
    String prompt = g.prompt() != null ? g.prompt() : readPrompt(g.promptFile(), io, machine);
    return new Generation.Options(
        prompt,
        nPredict,
        temp,
        topK,
        topP,
        seed,
        sessionFile(LaunchOptions.SAVE_SESSION.name(), g.saveSession(), machine),
        sessionFile(LaunchOptions.LOAD_SESSION.name(), g.loadSession(), machine));
  }

  /**
   * {@code --save-session FILE} / {@code --load-session FILE}: the path, resolved; null if absent.
   */
  private static Path sessionFile(String flag, String file, Machine machine) {
    if (file == null) {
      return null;
    }
    try {
      return machine.resolve(Path.of(file));
    } catch (InvalidPathException e) {
      throw usage(flag + ": '" + file + "' is not a path");
    }
  }

  /**
   * The number {@code text} gives {@code option}, {@code dflt} when it is absent (null). {@code
   * form} is {@link #DIGITS} for a whole number (exact here: every bound is below 2^53) or {@link
   * #DECIMAL}.
   *
   * @throws StrataException (exit 2) naming the option and the range when text is not such a number
   *     within min..max
   */
  private static double number(
      CliOption<?> option,
      String text,
      double dflt,
      Pattern form,
      double min,
      double max,
      String what) {
    if (text == null) {
      return dflt;
    }
    String range =
        (form == DIGITS ? "a whole number in " : "a number in ")
            + num(min)
            + ".."
            + num(max)
            + " "
            + what;
    if (form.matcher(text).matches()) {
      double v = Double.parseDouble(text);
      if (v >= min && v <= max) {
        return v;
      }
      // the flag table's words (ValueKind): a number that is one, but not in the range
      throw usage(option.name() + ": " + text + " is out of range (" + range + ")");
    }
    throw usage(option.name() + ": '" + text + "' is not " + range);
  }

  private static String num(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  private static long seed(String text) {
    String range = "a whole number in 0..18446744073709551615";
    if (DIGITS.matcher(text).matches()) {
      try {
        return Long.parseUnsignedLong(text);
      } catch (NumberFormatException e) {
        throw usage(LaunchOptions.SEED.name() + ": " + text + " is out of range (" + range + ")");
      }
    }
    throw usage(LaunchOptions.SEED.name() + ": '" + text + "' is not " + range);
  }

  /** {@code --prompt-file F} (UTF-8), {@code -} = standard input. */
  private static String readPrompt(String file, Io io, Machine machine) {
    byte[] bytes;
    String shown = file.equals("-") ? "standard input" : file;
    try {
      if (file.equals("-")) {
        bytes = readAtMost(io.in());
      } else {
        Path p;
        try {
          p = machine.resolve(Path.of(file));
        } catch (InvalidPathException e) {
          throw usage("--prompt-file: '" + file + "' is not a path");
        }
        if (!Files.isRegularFile(p)) {
          throw usage("--prompt-file: no file at " + p);
        }
        try (InputStream in = Files.newInputStream(p)) {
          bytes = readAtMost(in);
        }
      }
    } catch (IOException e) {
      throw usage("--prompt-file: cannot read " + shown + ": " + e.getMessage());
    }
    if (bytes.length > MAX_PROMPT_BYTES) {
      throw usage("--prompt-file: " + shown + " is over " + (MAX_PROMPT_BYTES >> 20) + " MiB");
    }
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static byte[] readAtMost(InputStream in) throws IOException {
    return in.readNBytes(MAX_PROMPT_BYTES + 1);
  }

  private static StrataException usage(String message) {
    return new StrataException(ExitCodes.USAGE, message);
  }
}
