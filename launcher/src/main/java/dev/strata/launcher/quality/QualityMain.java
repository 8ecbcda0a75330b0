package dev.strata.launcher.quality;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.ffm.EngineLoadException;
import dev.strata.engine.ffm.LogLevel;
import dev.strata.engine.ffm.Logits;
import dev.strata.engine.ffm.NativeEngine;
import dev.strata.engine.ffm.Session;
import dev.strata.engine.ffm.SessionException;
import dev.strata.engine.ffm.StrataRefLibrary;
import dev.strata.engine.ffm.VerifiedLibrary;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.text.TerminalText;
import dev.strata.launcher.run.SignalTrap;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code strata-quality} (docs/KV-QUALITY.md): teacher-forced evaluation of one model with each KV
 * format against the fp16 reference (or a {@code _logits_} base file), llama-perplexity's layout
 * and statistics. Exit codes: 0 done; 2 bad usage or input; 3 the engine or the model refused; 130
 * interrupted (the summary of the completed chunks is still written).
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
      Exit: 0 done, 2 bad usage or input, 3 engine or model refused, 4 out of memory, 130 interrupted (143 on
      SIGTERM; the completed chunks are kept and reported).
      """;

  private QualityMain() {}

  public static void main(String[] args) {
    int rc = run(args, System.out, System.err);
    System.out.flush();
    System.err.flush();
    System.exit(rc);
  }

  /** Options as typed. */
  static final class Options {
    Path model;
    Path config;
    Path engineLib;
    String pin;
    Path text;
    Path tokens;
    Path base;
    Path saveBase;
    Path out;
    List<KvFormat> kv = List.of(KvFormat.FP16, KvFormat.INT8, KvFormat.Q4_0);
    Integer ctx;
    int chunks = Integer.MAX_VALUE;
    Integer threads;
    int decodeCheck = -1; // -1: all scored positions of the first chunk
    boolean json;
    Map<String, String> env = Map.of();
  }

  static final class Usage extends RuntimeException {
    Usage(String m) {
      super(m);
    }
  }

  public static int run(String[] args, PrintStream stdout, PrintStream stderr) {
    Options o;
    try {
      o = parse(args);
      if (o == null) {
        stdout.print(USAGE);
        return ExitCodes.OK;
      }
    } catch (Usage e) {
      stderr.println("strata-quality: " + TerminalText.escape(e.getMessage()));
      return ExitCodes.USAGE;
    }
    QualityRun q = new QualityRun(o, stdout, stderr);
    try {
      return q.run();
    } catch (Usage | LogitsFile.BadInput e) {
      stderr.println("strata-quality: " + TerminalText.escape(e.getMessage()));
      return ExitCodes.USAGE;
    } catch (SessionException e) {
      if (!q.engineSaid) { // else the engine's own error line said why
        stderr.println(
            "strata-quality: the engine refused the session (code " + e.exitCode() + ")");
      }
      return e.exitCode() == 0 ? ExitCodes.PREFLIGHT : e.exitCode();
    } catch (StrataException e) {
      stderr.println("strata-quality: " + TerminalText.escape(e.getMessage()));
      return e.exitCode();
    } catch (java.nio.file.NoSuchFileException e) {
      stderr.println("strata-quality: " + TerminalText.escape(e.getFile()) + ": no such file");
      return ExitCodes.USAGE;
    } catch (java.nio.file.AccessDeniedException e) {
      stderr.println("strata-quality: " + TerminalText.escape(e.getFile()) + ": permission denied");
      return ExitCodes.USAGE;
    } catch (IOException e) {
      stderr.println("strata-quality: " + TerminalText.escape(String.valueOf(e.getMessage())));
      return ExitCodes.USAGE;
    } catch (RuntimeException e) {
      // never a stack trace: one line naming what failed
      stderr.println("strata-quality: internal error: " + TerminalText.escape(String.valueOf(e)));
      return 1;
    }
  }

  static final java.util.Set<String> VALUED =
      java.util.Set.of(
          "--model",
          "--config",
          "--engine-lib",
          "--text",
          "--tokens",
          "--base",
          "--save-base",
          "--out",
          "--ctx",
          "--chunks",
          "--threads",
          "--decode-check",
          "--kv");

  static Options parse(String[] args) {
    Options o = new Options();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--help") || a.equals("-h")) {
        return null;
      }
      if (a.equals("--json")) {
        o.json = true;
        continue;
      }
      if (!a.startsWith("--")) {
        throw new Usage("unexpected argument '" + a + "' (see --help)");
      }
      if (!VALUED.contains(a)) {
        throw new Usage("unknown option " + a + " (see --help)");
      }
      if (i + 1 >= args.length) {
        throw new Usage(a + " needs a value");
      }
      String v = args[++i];
      switch (a) {
        case "--model" -> o.model = Path.of(v);
        case "--config" -> o.config = Path.of(v);
        case "--engine-lib" -> o.engineLib = Path.of(v);
        case "--text" -> o.text = Path.of(v);
        case "--tokens" -> o.tokens = Path.of(v);
        case "--base" -> o.base = Path.of(v);
        case "--save-base" -> o.saveBase = Path.of(v);
        case "--out" -> o.out = Path.of(v);
        case "--ctx" -> o.ctx = number(a, v, 8, 1 << 20);
        case "--chunks" -> o.chunks = number(a, v, 1, Integer.MAX_VALUE);
        case "--threads" -> o.threads = number(a, v, 0, 1024);
        case "--decode-check" -> o.decodeCheck = number(a, v, 0, 1 << 20);
        case "--kv" -> o.kv = formats(v);
        default -> throw new Usage("unknown option " + a + " (see --help)");
      }
    }
    if ((o.model == null) == (o.config == null)) {
      throw new Usage("give one of --model PATH or --config C");
    }
    int inputs = (o.text != null ? 1 : 0) + (o.tokens != null ? 1 : 0) + (o.base != null ? 1 : 0);
    if (inputs != 1) {
      throw new Usage("give exactly one of --text FILE, --tokens FILE or --base FILE");
    }
    if (o.base != null && o.saveBase != null) {
      throw new Usage(
          "--base and --save-base do not go together (the reference comes from --base)");
    }
    return o;
  }

  static int number(String flag, String v, int min, int max) {
    try {
      int n = Integer.parseInt(v);
      if (n < min || n > max) {
        throw new Usage(flag + ": " + v + " is out of range (" + min + ".." + max + ")");
      }
      return n;
    } catch (NumberFormatException e) {
      throw new Usage(flag + ": '" + v + "' is not a whole number");
    }
  }

  static List<KvFormat> formats(String v) {
    List<KvFormat> out = new ArrayList<>();
    for (String w : v.split(",", -1)) {
      KvFormat f = KvFormat.fromName(w.trim());
      if (f == null || f == KvFormat.K8V4) {
        throw new Usage("--kv: '" + w + "' is not one of fp16, int8, q4_0");
      }
      if (!out.contains(f)) {
        out.add(f);
      }
    }
    return out;
  }

  /** One evaluation. */
  static final class QualityRun {
    final Options o;
    final PrintStream stdout;
    final PrintStream stderr;
    volatile boolean interrupted;
    volatile boolean engineSaid;
    volatile int stopCode = ExitCodes.INTERRUPTED;
    final List<Session> sessions = new ArrayList<>();

    QualityRun(Options o, PrintStream stdout, PrintStream stderr) {
      this.o = o;
      this.stdout = stdout;
      this.stderr = stderr;
    }

    int run() throws IOException {
      resolveConfig();
      ModelGeometry g = GgufReader.readModel(o.model).geometry();
      LogitsFile.Reader base = o.base == null ? null : new LogitsFile.Reader(o.base);
      try (base) {
        int nCtx =
            base != null
                ? base.nCtx
                : o.ctx == null ? (int) Math.min(1024, g.trainedContext()) : o.ctx;
        if (base != null && o.ctx != null && o.ctx != base.nCtx) {
          throw new Usage("--ctx " + o.ctx + " differs from the base file's n_ctx " + base.nCtx);
        }
        if (nCtx > g.trainedContext()) {
          throw new Usage(
              "--ctx "
                  + nCtx
                  + " is more than the model's trained context ("
                  + g.trainedContext()
                  + ")");
        }
        Path lib = library();
        NativeEngine engine;
        try (VerifiedLibrary v =
            VerifiedLibrary.open(lib, o.pin, o.engineLib == null ? null : "--engine-lib")) {
          engine = v.load();
        }
        try {
          if (!engine.hasSessions()) {
            throw new EngineLoadException(engine.needsSessions("strata-quality", "evaluation"));
          }
          return evaluate(engine, g, nCtx, base);
        } finally {
          for (Session s : sessions) {
            s.close();
          }
          engine.close();
        }
      }
    }

    void resolveConfig() {
      if (o.config == null) {
        return;
      }
      EngineConfig c = ConfigCodec.read(o.config);
      o.model = Path.of(c.model().shards().getFirst());
      if (o.engineLib == null && c.engine().library() != null) {
        o.engineLib = Path.of(c.engine().library());
        o.pin = c.engine().sha256();
      }
      List<String> a = c.args();
      for (int i = 0; i + 1 < a.size(); i++) {
        if (a.get(i).equals("--threads") && o.threads == null) {
          o.threads = Integer.parseInt(a.get(i + 1));
        }
      }
      o.env = c.env();
    }

    Path library() {
      if (o.engineLib != null) {
        return o.engineLib;
      }
      String home = System.getProperty("strata.home");
      String root = System.getProperty("strata.root");
      return StrataRefLibrary.discover(
              home == null ? null : Path.of(home),
              root == null ? null : Path.of(root),
              System.getProperty("os.name"))
          .orElseThrow(
              () ->
                  new Usage(
                      "strata-ref was not found (build it with ./strata build, or give --engine-lib)"));
    }

    Session open(NativeEngine engine, KvFormat f, int nCtx) {
      List<String> a =
          new ArrayList<>(
              List.of(
                  "--model",
                  o.model.toString(),
                  "--ctx",
                  Integer.toString(nCtx),
                  "--kv",
                  f.flagName(),
                  "--prompt-tokens",
                  "1",
                  "--n-predict",
                  "0"));
      if (o.threads != null) {
        a.addAll(List.of("--threads", o.threads.toString()));
      }
      Session s =
          engine.openSession(
              a,
              (level, line) -> {
                if (level == LogLevel.ERROR) {
                  engineSaid = true;
                  stderr.println("strata-quality: " + TerminalText.escape(line));
                }
              });
      sessions.add(s);
      return s;
    }

    int[] tokens(Session s) throws IOException {
      if (o.text != null) {
        return s.tokenize(Files.readString(o.text, StandardCharsets.UTF_8), Session.ADD_SPECIAL);
      }
      String name = o.tokens.getFileName().toString();
      int width = name.endsWith(".u16") ? 2 : name.endsWith(".u32") ? 4 : 0;
      if (width == 0) {
        throw new Usage(
            "--tokens: " + o.tokens + " is neither .u16 nor .u32 (little-endian token ids)");
      }
      byte[] b = Files.readAllBytes(o.tokens);
      if (b.length % width != 0) {
        throw new Usage(
            "--tokens: " + o.tokens + " is not a whole number of " + (8 * width) + "-bit ids");
      }
      ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
      int[] t = new int[b.length / width];
      for (int i = 0; i < t.length; i++) {
        t[i] = width == 2 ? bb.getShort() & 0xffff : bb.getInt();
      }
      return t;
    }

    int evaluate(NativeEngine engine, ModelGeometry g, int nCtx, LogitsFile.Reader base)
        throws IOException {
      long t0 = System.nanoTime();
      List<KvFormat> formats = o.kv;
      Map<KvFormat, Session> byFormat = new LinkedHashMap<>();
      Session ref = null;
      if (base == null) {
        ref = open(engine, KvFormat.FP16, nCtx);
        byFormat.put(KvFormat.FP16, ref);
      }
      for (KvFormat f : formats) {
        if (!byFormat.containsKey(f)) {
          byFormat.put(f, open(engine, f, nCtx));
        }
      }
      Session any = byFormat.values().iterator().next();
      int nVocab = any.nVocab();
      int[] toks;
      int first;
      if (base != null) {
        if (base.nVocab != nVocab) {
          throw new Usage(
              "the base file's n_vocab " + base.nVocab + " is not the model's " + nVocab);
        }
        toks = base.tokens;
        first = base.first;
      } else {
        toks = tokens(any);
        first = nCtx / 2;
      }
      for (int t : toks) {
        if (t < 0 || t >= nVocab) {
          throw new Usage(
              "token id " + t + " is outside the model's vocabulary (0.." + (nVocab - 1) + ")");
        }
      }
      int available = toks.length / nCtx;
      if (available < 1) {
        throw new Usage(toks.length + " tokens do not fill one chunk of --ctx " + nCtx);
      }
      int chunks = Math.min(available, o.chunks);
      int scored = nCtx - 1 - first;
      KvFormat decodeFormat = formats.contains(KvFormat.Q4_0) ? KvFormat.Q4_0 : formats.getLast();
      int decodeN = o.decodeCheck < 0 ? scored : Math.min(o.decodeCheck, scored);

      Map<KvFormat, KlStats> total = new LinkedHashMap<>();
      for (KvFormat f : formats) {
        total.put(f, new KlStats());
      }
      List<String> tsv = new ArrayList<>();
      tsv.add(
          "chunk\tformat\tpositions\tppl\tppl_ref\tmean_kl\tmedian_kl\tp99_kl\tmax_kl\tsame_top\trms_dp");
      KlStats decode = new KlStats();
      double[] decodeMaxAbs = {0};
      LogitsFile.Writer save =
          o.saveBase == null ? null : new LogitsFile.Writer(o.saveBase, nCtx, nVocab);
      int done = 0;
      stderr.printf(
          Locale.ROOT,
          "strata-quality: %s, %d chunks of %d tokens, %d scored positions each, kv %s%s%n",
          TerminalText.escape(o.model.getFileName().toString()),
          chunks,
          nCtx,
          scored,
          names(formats),
          base != null ? ", base " + TerminalText.escape(o.base.toString()) : ", reference fp16");
      Runnable stop =
          () -> {
            interrupted = true;
            for (Session s : sessions) {
              s.cancel();
            }
          };
      List<SignalTrap.Installed> traps = new ArrayList<>();
      for (SignalTrap.Sig sig : List.of(SignalTrap.Sig.INT, SignalTrap.Sig.TERM)) {
        traps.add(
            SignalTrap.install(
                sig,
                n -> {
                  stopCode = 128 + n;
                  stop.run();
                }));
      }
      try {
        for (int c = 0; c < chunks && !interrupted; c++) {
          int[] chunk = java.util.Arrays.copyOfRange(toks, c * nCtx, (c + 1) * nCtx);
          int[] input = java.util.Arrays.copyOf(chunk, nCtx - 1);
          double[][] refLp = new double[scored][];
          int[] refTop = new int[scored];
          if (base != null) {
            for (int k = 0; k < scored; k++) {
              refLp[k] = new double[nVocab];
              refTop[k] = base.next(refLp[k]);
            }
          } else {
            ref.truncate(0, 0);
            Logits l = ref.eval(0, input, first);
            for (int k = 0; k < scored; k++) {
              float[] row = l.row(k);
              refLp[k] = KlStats.logSoftmax(row);
              refTop[k] = KlStats.argmax(row);
              if (save != null) {
                save.record(row);
              }
            }
          }
          Map<KvFormat, KlStats> perChunk = new LinkedHashMap<>();
          double[][] batchLp = null;
          for (KvFormat f : formats) {
            KlStats st = new KlStats();
            Session s = byFormat.get(f);
            boolean keep = c == 0 && decodeN > 0 && f == decodeFormat;
            if (keep) {
              batchLp = new double[decodeN][];
            }
            if (s == ref) {
              for (int k = 0; k < scored; k++) {
                st.add(refLp[k], refTop[k], refLp[k], refTop[k], chunk[first + k + 1]);
              }
              if (keep) {
                System.arraycopy(refLp, 0, batchLp, 0, decodeN);
              }
            } else {
              s.truncate(0, 0);
              Logits l = s.eval(0, input, first);
              for (int k = 0; k < scored; k++) {
                float[] row = l.row(k);
                double[] lp = KlStats.logSoftmax(row);
                st.add(refLp[k], refTop[k], lp, KlStats.argmax(row), chunk[first + k + 1]);
                if (keep && k < decodeN) {
                  batchLp[k] = lp;
                }
              }
            }
            perChunk.put(f, st);
          }
          if (c == 0 && decodeN > 0) {
            Session s = byFormat.get(decodeFormat);
            s.truncate(0, 0);
            s.eval(0, java.util.Arrays.copyOf(input, first), first);
            for (int k = 0; k < decodeN; k++) {
              Logits l = s.eval(0, new int[] {input[first + k]}, 0);
              float[] row = l.row(0);
              double[] lp = KlStats.logSoftmax(row);
              for (int i = 0; i < nVocab; i++) {
                decodeMaxAbs[0] = Math.max(decodeMaxAbs[0], Math.abs(lp[i] - batchLp[k][i]));
              }
              decode.add(
                  batchLp[k],
                  KlStats.argmax(batchLp[k]),
                  lp,
                  KlStats.argmax(row),
                  chunk[first + k + 1]);
            }
          }
          for (Map.Entry<KvFormat, KlStats> e : perChunk.entrySet()) {
            total.get(e.getKey()).addAll(e.getValue());
            tsv.add(c + "\t" + e.getKey().flagName() + "\t" + tsvRow(e.getValue().summary()));
          }
          if (save != null) {
            save.chunk(chunk);
          }
          done++;
          double el = (System.nanoTime() - t0) / 1e9;
          stderr.printf(
              Locale.ROOT,
              "strata-quality: chunk %d/%d done, %.1f s, ETA %.0f s%n",
              done,
              chunks,
              el,
              el / done * (chunks - done));
        }
      } catch (SessionException e) {
        if (!e.cancelled()) {
          throw e;
        }
      } finally {
        for (SignalTrap.Installed t : traps) {
          t.close();
        }
      }
      if (save != null) {
        if (done > 0) {
          save.finish(scored);
        } else {
          save.close();
        }
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      Report r =
          new Report(
              o.model,
              g,
              nCtx,
              first,
              done,
              chunks,
              seconds,
              total,
              decodeFormat,
              done > 0 && decodeN > 0 ? decode : null,
              decodeMaxAbs[0],
              base != null ? o.base.toString() : null,
              o.text != null
                  ? o.text.toString()
                  : o.tokens != null ? o.tokens.toString() : o.base.toString());
      stderr.print(r.table());
      if (interrupted) {
        stderr.printf(
            "strata-quality: interrupted: the summary covers the %d completed chunks%n", done);
      }
      String json = r.json();
      if (o.json) {
        stdout.println(json);
      }
      if (o.out != null) {
        Files.createDirectories(o.out);
        Files.write(o.out.resolve("chunks.tsv"), tsv, StandardCharsets.UTF_8);
        Files.writeString(o.out.resolve("summary.json"), json + "\n", StandardCharsets.UTF_8);
        Files.writeString(o.out.resolve("summary.txt"), r.table(), StandardCharsets.UTF_8);
      }
      return interrupted ? stopCode : ExitCodes.OK;
    }
  }

  static String names(List<KvFormat> fs) {
    List<String> n = new ArrayList<>();
    for (KvFormat f : fs) {
      n.add(f.flagName());
    }
    return String.join(",", n);
  }

  static String tsvRow(KlStats.Summary s) {
    StringBuilder b = new StringBuilder().append(s.positions());
    for (double v : s.figures()) {
      b.append('\t').append(String.format(Locale.ROOT, "%.8g", v));
    }
    return b.toString();
  }
}
