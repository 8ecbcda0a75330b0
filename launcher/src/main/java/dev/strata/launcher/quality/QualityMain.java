package dev.strata.launcher.quality;

import dev.strata.cli.SignalTrap;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.IoReason;
import dev.strata.engine.StrataException;
import dev.strata.engine.ffm.SessionException;
import dev.strata.engine.quality.Evaluation;
import dev.strata.engine.quality.QualitySpec;
import dev.strata.engine.text.TerminalText;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code strata-quality} (docs/KV-QUALITY.md): teacher-forced evaluation of one model with each KV
 * format against the fp16 reference (or a {@code _logits_} base file), llama-perplexity's layout
 * and statistics, through {@link Evaluation}. This class is the command: its flags ({@link
 * QualityOptions}), the signals, the output files and one line for every failure. Exit codes: 0
 * done; 2 bad usage or input; 3 the engine or the model refused; 4 out of memory; 1 an unexpected
 * failure (a bug: the line says what was being done); 130 / 143 interrupted (the summary of the
 * completed chunks is still written).
 */
public final class QualityMain {
  static final String USAGE =
      """
      usage: strata-quality (--model PATH | --config C) [--text FILE | --tokens FILE.u16|.u32 | --base FILE]
                            [--kv fp16,int8,q4_0] [--ctx N] [--chunks N] [--threads N] [--engine-lib LIB]
                            [--decode-check N] [--json] [--out DIR] [--save-base FILE]
      Teacher-forced KV quality: chunks of --ctx tokens (default 1024, at most the model's trained context),
      positions ctx/2 .. ctx-2 of each scored as llama-perplexity scores them; per --kv format: perplexity,
      mean/median/p99/max KL to the fp16 reference, same top-1, RMS dp of the next token, KV bytes per cell
      per layer; then the prompt path against the decode path (the first chunk's scored positions one
      token at a time against the batch) over the q4_0 pools (--decode-check N positions, 0: off).
        --base FILE       compare against a llama-perplexity --kl-divergence-base file (its tokens, n_ctx)
        --save-base FILE  write the fp16 reference as such a file (llama-perplexity --kl-divergence reads it)
        --json            the summary as JSON on stdout; the table always goes to stderr
        --out DIR         DIR/chunks.tsv (per chunk and format) and DIR/summary.json
      Exit: 0 done, 2 bad usage or input, 3 engine or model refused, 4 out of memory, 1 an unexpected
      failure (please report the line), 130 interrupted (143 on SIGTERM; the completed chunks are kept
      and reported).
      """;

  /** An unexpected failure: not the input, not the engine (docs/KV-QUALITY.md "Exit codes"). */
  static final int UNEXPECTED = 1;

  /** Out of memory (the engine's code for it, and the JVM's heap). */
  static final int OUT_OF_MEMORY = 4;

  private QualityMain() {}

  public static void main(String[] args) {
    int rc = run(args, System.out, System.err);
    System.out.flush();
    System.err.flush();
    System.exit(rc);
  }

  /** Runs {@code args}; the table and progress go to {@code stderr}, {@code --json} to stdout. */
  public static int run(String[] args, PrintStream stdout, PrintStream stderr) {
    QualityOptions o;
    try {
      o = QualityOptions.parse(args);
      if (o == null) {
        stdout.print(USAGE);
        return ExitCodes.OK;
      }
    } catch (StrataException e) {
      return say(stderr, e.getMessage(), e.exitCode());
    }
    Evaluation[] ev = new Evaluation[1];
    String doing = "reading the options";
    try {
      doing = "reading " + (o.config != null ? o.config : o.model);
      QualitySpec spec = o.spec();
      doing = "evaluating " + spec.model();
      ev[0] =
          new Evaluation(
              spec,
              Evaluation.Listener.of(
                  line -> stderr.println("strata-quality: " + line),
                  line -> stderr.println("strata-quality: " + TerminalText.escape(line))));
      return evaluate(ev[0], o, stdout, stderr);
    } catch (SessionException e) {
      if (ev[0] != null && ev[0].engineSaid()) {
        return e.exitCode() == 0 ? ExitCodes.PREFLIGHT : e.exitCode(); // it said why
      }
      return say(
          stderr,
          "the engine refused the session (code "
              + e.exitCode()
              + "): "
              + e.getMessage()
              + " (try the same model with strata-launch to see why)",
          e.exitCode() == 0 ? ExitCodes.PREFLIGHT : e.exitCode());
    } catch (StrataException e) {
      return say(stderr, e.getMessage(), e.exitCode());
    } catch (FileSystemException e) {
      return say(
          stderr,
          e.getFile()
              + ": "
              + IoReason.of(e)
              + " ("
              + o.flagOf(e.getFile())
              + "; check the path and its permissions)",
          ExitCodes.USAGE);
    } catch (IOException e) {
      return say(stderr, doing + ": " + IoReason.of(e), ExitCodes.USAGE);
    } catch (OutOfMemoryError e) {
      return say(
          stderr,
          "out of Java heap while "
              + doing
              + ": give fewer --chunks or a smaller --ctx, or more heap (JAVA_TOOL_OPTIONS=-Xmx4g)",
          OUT_OF_MEMORY);
    } catch (RuntimeException e) {
      // never a stack trace: what was being done, what went wrong in words, and what to do
      String why = e.getMessage() == null ? "no detail" : e.getMessage();
      return say(
          stderr,
          "unexpected failure while "
              + doing
              + " ("
              + why
              + "): this is a bug; please report this line with the command you ran",
          UNEXPECTED);
    }
  }

  static int say(PrintStream stderr, String line, int code) {
    stderr.println("strata-quality: " + TerminalText.escape(String.valueOf(line)));
    return code;
  }

  /** Runs the evaluation with SIGINT / SIGTERM cancelling it, then writes what it found. */
  static int evaluate(Evaluation ev, QualityOptions o, PrintStream stdout, PrintStream stderr)
      throws IOException {
    int[] stopCode = {ExitCodes.INTERRUPTED};
    List<SignalTrap.Installed> traps = new ArrayList<>();
    Evaluation.Outcome out;
    try {
      for (SignalTrap.Sig sig : List.of(SignalTrap.Sig.INT, SignalTrap.Sig.TERM)) {
        traps.add(
            SignalTrap.install(
                sig,
                n -> {
                  stopCode[0] = 128 + n;
                  ev.cancel();
                }));
      }
      out = ev.run();
    } finally {
      for (SignalTrap.Installed t : traps) {
        t.close();
      }
    }
    stderr.print(out.report().table());
    if (out.interrupted()) {
      stderr.printf(
          "strata-quality: interrupted: the summary covers the %d completed chunks%n",
          out.report().chunksDone());
    }
    String json = out.report().json();
    if (o.json) {
      stdout.println(json);
    }
    if (o.out != null) {
      Path dir = o.out;
      Files.createDirectories(dir);
      Files.write(dir.resolve("chunks.tsv"), out.chunksTsv(), StandardCharsets.UTF_8);
      Files.writeString(dir.resolve("summary.json"), json + "\n", StandardCharsets.UTF_8);
      Files.writeString(dir.resolve("summary.txt"), out.report().table(), StandardCharsets.UTF_8);
    }
    return out.interrupted() ? stopCode[0] : ExitCodes.OK;
  }
}
