package dev.strata.launcher.quality;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.ffm.StrataRefLibrary;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.quality.QualitySpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code strata-quality}'s flags as typed ({@link #parse}), and the {@link QualitySpec} they make
 * once a {@code --config} and the library's default place are read ({@link #spec}). Bad usage is a
 * {@link StrataException} with exit 2 and one line naming the flag.
 */
final class QualityOptions {
  Path model;
  Path config;
  Path engineLib;
  String pin;
  String libContext;
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

  static final Set<String> VALUED =
      Set.of(
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

  static StrataException usage(String message) {
    return new StrataException(ExitCodes.USAGE, message);
  }

  /** The options, or null for {@code --help}. */
  static QualityOptions parse(String[] args) {
    QualityOptions o = new QualityOptions();
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
        throw usage("unexpected argument '" + a + "' (see --help)");
      }
      if (!VALUED.contains(a)) {
        throw usage("unknown option " + a + " (see --help)");
      }
      if (i + 1 >= args.length) {
        throw usage(a + " needs a value");
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
        default -> o.kv = formats(v);
      }
    }
    if ((o.model == null) == (o.config == null)) {
      throw usage("give one of --model PATH or --config C");
    }
    int inputs = (o.text != null ? 1 : 0) + (o.tokens != null ? 1 : 0) + (o.base != null ? 1 : 0);
    if (inputs != 1) {
      throw usage("give exactly one of --text FILE, --tokens FILE or --base FILE");
    }
    if (o.base != null && o.saveBase != null) {
      throw usage("--base and --save-base do not go together (the reference comes from --base)");
    }
    if (o.engineLib != null) {
      o.libContext = "--engine-lib";
    }
    return o;
  }

  static int number(String flag, String v, int min, int max) {
    try {
      int n = Integer.parseInt(v);
      if (n < min || n > max) {
        throw usage(flag + ": " + v + " is out of range (" + min + ".." + max + ")");
      }
      return n;
    } catch (NumberFormatException e) {
      throw usage(flag + ": '" + v + "' is not a whole number");
    }
  }

  static List<KvFormat> formats(String v) {
    List<KvFormat> out = new ArrayList<>();
    for (String w : v.split(",", -1)) {
      KvFormat f = KvFormat.fromName(w.trim());
      if (f == null || f == KvFormat.K8V4) {
        throw usage("--kv: '" + w + "' is not one of fp16, int8, q4_0");
      }
      if (!out.contains(f)) {
        out.add(f);
      }
    }
    return out;
  }

  /** The flag that named {@code file} (for a file-system error's line), or "a file it reads". */
  String flagOf(String file) {
    Object[][] named = {
      {model, "--model"},
      {config, "--config"},
      {text, "--text"},
      {tokens, "--tokens"},
      {base, "--base"},
      {saveBase, "--save-base"},
      {out, "--out"},
      {engineLib, "--engine-lib"}
    };
    for (Object[] n : named) {
      if (n[0] != null && file != null && n[0].toString().equals(file)) {
        return "given as " + n[1];
      }
    }
    return "a file strata-quality reads or writes";
  }

  /** Reads the config (when given), finds the library, reads a --text file. */
  QualitySpec spec() throws IOException {
    if (config != null) {
      fromConfig(ConfigCodec.read(config));
    }
    QualitySpec.Input input =
        text != null
            ? new QualitySpec.Input.Text(
                text.toString(), Files.readString(text, StandardCharsets.UTF_8))
            : tokens != null
                ? new QualitySpec.Input.Tokens(tokens)
                : new QualitySpec.Input.Base(base);
    return new QualitySpec(
        model,
        library(),
        pin,
        libContext,
        input,
        saveBase,
        kv,
        ctx,
        chunks,
        threads,
        decodeCheck,
        env);
  }

  private void fromConfig(EngineConfig c) {
    model = Path.of(c.model().shards().getFirst());
    if (engineLib == null && c.engine().library() != null) {
      engineLib = Path.of(c.engine().library());
      pin = c.engine().sha256();
      libContext = "engine.library in " + config;
    }
    if (threads == null) {
      threads = c.engineArgs().threads(); // the config's typed --threads (checked when read)
    }
    env = c.env();
  }

  private Path library() {
    if (engineLib != null) {
      return engineLib;
    }
    String home = System.getProperty("strata.home");
    String root = System.getProperty("strata.root");
    return StrataRefLibrary.discover(
            home == null ? null : Path.of(home),
            root == null ? null : Path.of(root),
            System.getProperty("os.name"))
        .orElseThrow(
            () ->
                usage(
                    "strata-ref was not found (build it with ./strata build, or give --engine-lib)"));
  }
}
