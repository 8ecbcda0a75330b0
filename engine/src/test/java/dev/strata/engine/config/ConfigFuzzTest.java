package dev.strata.engine.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.strata.engine.ExitCodes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A seeded mutator over valid configs (issue 8): every mutated text either reads as a config that
 * writes and reads back to itself, or is refused with a one-line {@link ConfigException} naming the
 * file. Anything else — another exception, an error, a stack overflow — fails with the case number
 * and its text, reproducible from the seed.
 */
class ConfigFuzzTest {
  private static final long SEED = 0x57A7A_C0F1_6L;
  private static final int CASES = 10_000;

  private static final String[] TAGS = {
    "!!python/object/apply:os.system ['id'] ",
    "!!javax.script.ScriptEngineManager [!!java.net.URLClassLoader [[!!java.net.URL"
        + " [\"http://x/\"]]]] ",
    "!!java.io.FileInputStream [/etc/passwd] ",
    "!foo ",
    "! ",
    "!!map ",
    "!!seq ",
    "!!binary ",
    "!!str ",
    "!!int ",
    "!!bool ",
    "!!null ",
    "!!float ",
    "!<tag:yaml.org,2002:str> ",
    "!<tag:evil.com,2000:x> ",
    "!e!x ",
  };

  private static final String[] NOISE = {
    ":",
    ": ",
    "{",
    "}",
    "[",
    "]",
    "&",
    "*",
    "!",
    "|",
    ">",
    "'",
    "\"",
    "%",
    "@",
    "`",
    "#",
    ",",
    "- ",
    "? ",
    "---",
    "...",
    "\\",
    "\t",
    " ",
    "\n",
    "\r",
    "\u0085",
    "\u2028",
    "~",
    "null",
    "<<",
    "0x",
    "1e9",
    "é",
    "🦙",
    "\u0000",
    "\u001b",
    "\ufeff",
    "--ctz",
    "--kv",
    "q4_0",
    "LD_PRELOAD",
  };

  private static List<String> seeds() {
    List<String> s = new ArrayList<>();
    s.add(ConfigCodec.write(Configs.metal()));
    s.add(ConfigCodec.write(Configs.metal("--experts", "resident", "--spec", "2", "--kv", "q4_0")));
    s.add(
        ConfigCodec.write(
            Configs.withModel(
                "cpu-reference",
                List.of("/Users/José Ñ/My Models/a b.gguf", "/m/it's: #2.gguf"),
                Map.of("STRATA_METAL_PROMPT", "window", "OMP_NUM_THREADS", "8"))));
    // a hand-written one in flow style, with comments and plain numbers in args
    s.add(
        """
        # hand-written
        schema: strata.engine/v1
        engine: {backend: pc, library: "/lib/libstrata.so"}
        model: {shards: [/m.gguf]}
        host: {os: linux, chip: x, cpu_cores: 2, perf_cores: 2, efficiency_cores: 0,
          memory_bytes: 1000, gpu_family: 0, metal4: false, k4: false, os_version: '1',
          wired_limit_mb: 0}
        args: [--model, /m.gguf, --ctx, 8192, --kv-resident]
        env: {STRATA_KV_ROT: '1'}
        """);
    return s;
  }

  // A bound, not a timing assertion: ~50x the run's usual time, so only a hang trips it.
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void mutatedConfigsReadOrAreRefusedCleanly() {
    List<String> seeds = seeds();
    for (String s : seeds) {
      ConfigCodec.read(s, "seed.yaml"); // the seeds themselves are valid
    }
    SplittableRandom rnd = new SplittableRandom(SEED);
    int read = 0;
    int refused = 0;
    long start = System.nanoTime();
    var threads = java.lang.management.ManagementFactory.getThreadMXBean();
    long cpuStart = threads.getCurrentThreadCpuTime();
    for (int i = 0; i < CASES; i++) {
      byte[] input = mutate(seeds.get(rnd.nextInt(seeds.size())), rnd);
      try {
        EngineConfig c = ConfigCodec.read(input, "fuzz.yaml");
        read++;
        String w = ConfigCodec.write(c);
        assertEquals(c, ConfigCodec.read(w, "rewritten.yaml"), w);
      } catch (ConfigException e) {
        refused++;
        assertFalse(e.getMessage().contains("\n"), "case " + i + ": " + e.getMessage());
        assertFalse(e.getMessage().contains("\r"), "case " + i + ": " + e.getMessage());
        assertTrue(e.getMessage().startsWith("fuzz.yaml"), "case " + i + ": " + e.getMessage());
        // the kind: a config mistake is a usage error (exit 2), and its position is in the input
        assertEquals(ExitCodes.USAGE, e.exitCode(), "case " + i + ": " + e.getMessage());
        long lines = new String(input, StandardCharsets.UTF_8).lines().count();
        assertTrue(
            e.where().line() >= 0 && e.where().line() <= lines + 1 && e.where().column() >= 0,
            "case "
                + i
                + ": position "
                + e.where().line()
                + ":"
                + e.where().column()
                + " outside the input");
      } catch (Throwable t) {
        String text = new String(input, StandardCharsets.UTF_8);
        fail(
            "case "
                + i
                + " (seed "
                + Long.toHexString(SEED)
                + ") threw "
                + t
                + " on:\n"
                + (text.length() > 3000 ? text.substring(0, 3000) + "…" : text),
            t);
      }
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    long cpuMs = (threads.getCurrentThreadCpuTime() - cpuStart) / 1_000_000;
    // reported, not asserted: wall time on a shared machine says little
    System.out.printf(
        "config fuzz: %d cases, %d read, %d refused, %d ms wall, %d ms cpu%n",
        CASES, read, refused, ms, cpuMs);
    assertTrue(read > 100, "the mutator leaves some inputs valid: " + read);
    assertTrue(refused > CASES / 2, "the mutator breaks most inputs: " + refused);
  }

  static byte[] mutate(String seed, SplittableRandom rnd) {
    String text = seed;
    int n = 1 + rnd.nextInt(3);
    byte[] bytes = null;
    for (int k = 0; k < n; k++) {
      int op = rnd.nextInt(16);
      if (op <= 1) {
        // byte level: flip a bit or set a byte, then go on as bytes (maybe not UTF-8 any more)
        bytes = bytes == null ? text.getBytes(StandardCharsets.UTF_8) : bytes;
        if (bytes.length == 0) {
          continue;
        }
        int at = rnd.nextInt(bytes.length);
        bytes[at] = op == 0 ? (byte) (bytes[at] ^ (1 << rnd.nextInt(8))) : (byte) rnd.nextInt(256);
        continue;
      }
      if (bytes != null) {
        text = new String(bytes, StandardCharsets.UTF_8);
        bytes = null;
      }
      text = mutateText(text, op, rnd);
    }
    return bytes != null ? bytes : text.getBytes(StandardCharsets.UTF_8);
  }

  private static String mutateText(String text, int op, SplittableRandom rnd) {
    List<String> lines = new ArrayList<>(Arrays.asList(text.split("\n", -1)));
    int li = rnd.nextInt(lines.size());
    String line = lines.get(li);
    switch (op) {
      case 2 -> lines.remove(li);
      case 3 -> lines.add(li, line);
      case 4 -> {
        int other = rnd.nextInt(lines.size());
        lines.set(li, lines.get(other));
        lines.set(other, line);
      }
      case 5 -> {
        int at = rnd.nextInt(line.length() + 1);
        lines.set(li, line.substring(0, at) + "\t" + line.substring(at));
      }
      case 6 -> lines.set(li, beforeValue(line, TAGS[rnd.nextInt(TAGS.length)]));
      case 7 -> {
        // an alias chain (a small billion laughs) in place of a value, or at the top
        StringBuilder chain = new StringBuilder("&a0 [x, x, x]");
        int depth = 1 + rnd.nextInt(10);
        List<String> extra = new ArrayList<>();
        extra.add("l0: &a0 [x, x, x, x, x, x, x, x]");
        for (int d = 1; d < depth; d++) {
          extra.add(
              "l" + d + ": &a" + d + " [*a" + (d - 1) + ", *a" + (d - 1) + ", *a" + (d - 1) + "]");
        }
        if (rnd.nextBoolean()) {
          lines.addAll(0, extra);
        } else {
          lines.set(li, beforeValue(line, "*a0 ") + " " + chain);
        }
      }
      case 8 -> {
        int depth = 20 + rnd.nextInt(100);
        String nest =
            rnd.nextBoolean()
                ? "[".repeat(depth) + "]".repeat(depth)
                : "{a: ".repeat(depth) + "1" + "}".repeat(depth);
        lines.set(li, valueReplaced(line, nest));
      }
      case 9 -> {
        // huge scalars: big but allowed, just over the line limit, or over the file limit
        int len =
            switch (rnd.nextInt(10)) {
              case 0 -> (1 << 20) + rnd.nextInt(1000);
              case 1, 2, 3 -> ConfigReader.MAX_LINE + rnd.nextInt(100);
              default -> 2000 + rnd.nextInt(6000);
            };
        String big = "x".repeat(len);
        lines.set(li, valueReplaced(line, rnd.nextBoolean() ? big : "'" + big + "'"));
      }
      case 10 -> {
        int at = rnd.nextInt(line.length() + 1);
        lines.set(
            li, line.substring(0, at) + NOISE[rnd.nextInt(NOISE.length)] + line.substring(at));
      }
      case 11 -> {
        String joined = String.join("\n", lines);
        return joined.substring(0, rnd.nextInt(joined.length() + 1));
      }
      case 12 -> {
        lines.set(
            li, rnd.nextBoolean() ? " ".repeat(1 + rnd.nextInt(4)) + line : line.stripLeading());
      }
      case 13 -> {
        // move a line into another section: unknown or duplicate keys
        lines.add(rnd.nextInt(lines.size() + 1), line);
      }
      case 14 -> {
        String[] values = {
          "--ctz", "0", "-1", "99999999999999999999", "q5_0", "LD_PRELOAD: x", "1.5", "true",
          "null", "''", "\"\\x00\"", "\"\\u2028\"", "é", "[]", "{}", "- x",
        };
        lines.set(li, valueReplaced(line, values[rnd.nextInt(values.length)]));
      }
      default -> {
        // 15: a random code point anywhere, including unpaired surrogates and controls
        int at = rnd.nextInt(line.length() + 1);
        int cp = rnd.nextInt(4) == 0 ? rnd.nextInt(0x20) : rnd.nextInt(0x11_0000);
        String ins = Character.isValidCodePoint(cp) ? new String(Character.toChars(cp)) : "?";
        lines.set(li, line.substring(0, at) + ins + line.substring(at));
      }
    }
    return String.join("\n", lines);
  }

  /** {@code key: value} → {@code key: <prefix>value}; {@code - item} → {@code - <prefix>item}. */
  private static String beforeValue(String line, String prefix) {
    int colon = line.indexOf(": ");
    if (colon >= 0) {
      return line.substring(0, colon + 2) + prefix + line.substring(colon + 2);
    }
    int dash = line.indexOf("- ");
    if (dash >= 0) {
      return line.substring(0, dash + 2) + prefix + line.substring(dash + 2);
    }
    return prefix + line;
  }

  private static String valueReplaced(String line, String value) {
    int colon = line.indexOf(": ");
    if (colon >= 0) {
      return line.substring(0, colon + 2) + value;
    }
    int dash = line.indexOf("- ");
    if (dash >= 0) {
      return line.substring(0, dash + 2) + value;
    }
    return line + value;
  }
}
