package dev.strata.launcher;

import dev.strata.cli.Io;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.ValueKind;
import dev.strata.launcher.preflight.Preflight;
import dev.strata.launcher.run.EngineRunner;
import dev.strata.launcher.run.LogRouter;
import dev.strata.launcher.run.Supervisor;
import dev.strata.launcher.serve.ChatRunner;
import dev.strata.launcher.serve.ServeRunner;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code strata-launch --serve} and {@code --chat}: their options judged the same for picocli's
 * parse and the fast path (before anything is loaded), then the runner under the {@link Supervisor}
 * after the launch's own preflight. docs/LAUNCH.md, "Serving" and "Chat".
 */
final class ServeArgs {
  private ServeArgs() {}

  static final String DEFAULT_HOST = "127.0.0.1";
  static final int DEFAULT_PORT = 8080;
  static final int DEFAULT_QUEUE = 16;
  static final String KEY_ENV = "STRATA_API_KEY";

  /**
   * What was judged: serving ({@code address} set) or a chat ({@code address} null).
   *
   * @param parallel {@code --parallel N}, or 0 when not given (the config's, 1 by default)
   */
  record Judged(InetSocketAddress address, String apiKey, int queue, int parallel) {
    boolean serve() {
      return address != null;
    }

    @Override
    public String toString() {
      return "Judged[" + address + ", apiKey=" + (apiKey == null ? "none" : "(set)") + "]";
    }
  }

  /**
   * What {@code r} asks for, or null when it asks for neither {@code --serve} nor {@code --chat}.
   *
   * @throws StrataException (exit 2) for a bad value or a combination that does not go
   */
  static Judged judge(LaunchFlow.Request r, Io io) {
    LaunchFlow.Serve s = r.serve();
    if (!s.serve() && !s.chat()) {
      String stray = stray(s);
      if (stray != null) {
        throw usage(stray + " goes with --serve: it sets how the server listens");
      }
      return null;
    }
    String mode = s.serve() ? LaunchOptions.SERVE.name() : LaunchOptions.CHAT.name();
    if (s.serve() && s.chat()) {
      throw usage("--serve and --chat exclude each other: serve the model, or chat with it here");
    }
    if (r.plan() || r.dryRun()) {
      throw usage(
          mode
              + " goes with a launch, not with "
              + (r.plan() ? "--plan" : "--dry-run")
              + ": nothing runs there");
    }
    if (r.isolate() || r.json()) {
      throw usage(
          mode
              + " runs the engine in this process and talks to "
              + (s.serve() ? "HTTP clients" : "you")
              + ": "
              + (r.isolate() ? "--isolate" : "--json")
              + " does not go with it");
    }
    if (r.generate().asked() || r.generate().nPredict() != null || r.generate().temp() != null) {
      throw usage(
          mode
              + " and --prompt exclude each other: "
              + (s.serve() ? "requests bring their own prompts" : "the chat asks for each turn"));
    }
    if (r.generate().saveSession() != null || r.generate().loadSession() != null) {
      throw usage(mode + ": --save-session/--load-session go with --prompt (the chat has /save)");
    }
    if (!s.serve()) {
      String stray = stray(s);
      if (stray != null) {
        throw usage(stray + " goes with --serve, not --chat");
      }
      return new Judged(null, null, 0, 0);
    }
    // --parallel N: N sequences, each with its own KV pools; the plan counts them (withParallel)
    int parallel =
        s.parallel() == null
            ? 0
            : whole(LaunchOptions.PARALLEL.name(), s.parallel(), 1, EngineFlags.MAX_PARALLEL);
    int port =
        s.port() == null ? DEFAULT_PORT : whole(LaunchOptions.PORT.name(), s.port(), 0, 65535);
    int queue =
        s.queue() == null ? DEFAULT_QUEUE : whole(LaunchOptions.QUEUE.name(), s.queue(), 1, 1024);
    String key = s.apiKey() != null ? s.apiKey() : io.env().get(KEY_ENV);
    String keyFrom = s.apiKey() != null ? LaunchOptions.API_KEY.name() : KEY_ENV;
    if (key != null && (key.isBlank() || !key.chars().allMatch(c -> c > 32 && c < 127))) {
      throw usage(keyFrom + ": the key is empty or has spaces or non-ASCII characters");
    }
    String host = s.host() != null ? s.host() : DEFAULT_HOST;
    InetAddress address;
    try {
      if (host.isBlank()) {
        throw new UnknownHostException("empty");
      }
      address = InetAddress.getByName(host);
    } catch (UnknownHostException | SecurityException e) {
      throw usage(
          "--host: '"
              + dev.strata.engine.text.TerminalText.escape(host)
              + "' is not an address here");
    }
    if (!address.isLoopbackAddress() && key == null) {
      throw usage(
          "--host "
              + host
              + " is not a loopback address: serving beyond this machine needs an API key"
              + " (--api-key KEY or STRATA_API_KEY), which every request must then send");
    }
    return new Judged(new InetSocketAddress(address, port), key, queue, parallel);
  }

  /**
   * The config the server runs: {@code cfg} with the engine's {@code --parallel N} when {@code
   * --parallel} was given (the value replaced, or the pair appended), so that the plan, preflight,
   * the engine's check and its allocation all count N sequences' pools.
   *
   * @throws StrataException (exit 2) when the config's engine takes no {@code --parallel}
   */
  static EngineConfig withParallel(Judged j, EngineConfig cfg) {
    if (!j.serve() || j.parallel() == 0) {
      return cfg;
    }
    List<String> args = new ArrayList<>(cfg.args());
    int at = args.indexOf(EngineFlags.PARALLEL);
    if (at >= 0 && at + 1 < args.size()) {
      args.set(at + 1, Integer.toString(j.parallel()));
    } else {
      args.add(EngineFlags.PARALLEL);
      args.add(Integer.toString(j.parallel()));
    }
    EngineConfig out =
        new EngineConfig(cfg.schema(), cfg.engine(), cfg.model(), cfg.host(), args, cfg.env());
    if (cfg.engineArgs() != null && out.engineArgs() == null) {
      throw usage(
          "--parallel "
              + j.parallel()
              + ": the config's engine ("
              + cfg.engine().backend()
              + ") takes no --parallel (strata-ref holds sequences; docs/FLAGS.md): serve without"
              + " --parallel, one request at a time");
    }
    return out;
  }

  /** Runs the server or the chat after preflight passed; returns the exit code. */
  static int run(Judged j, Preflight.Report report, Io io, EngineConfig cfg) {
    PrintWriter err = io.err();
    Reports.printStart(report, false, io.width(), err);
    LogRouter log = new LogRouter(err, err, null, io.interactive());
    EngineRunner runner;
    if (j.serve()) {
      String shard = cfg.model().shards().getFirst();
      String id = Path.of(shard).getFileName().toString();
      if (id.endsWith(".gguf")) {
        id = id.substring(0, id.length() - ".gguf".length());
      }
      runner =
          ServeRunner.load(
              report.verified(),
              err,
              new ServeRunner.Options(j.address(), j.apiKey(), j.queue(), id));
      return new Supervisor(runner, log, err, io.halt()).run(report.args(), report.env());
    }
    // the chat handles Ctrl-C itself (it stops the reply, not the session)
    ChatRunner chat = ChatRunner.load(report.verified(), io);
    return chat.run(report.args(), report.env(), log);
  }

  /** The first of the server's own options given, or null. */
  private static String stray(LaunchFlow.Serve s) {
    return LaunchOptions.firstGiven(
        new Object[] {s.host(), s.port(), s.apiKey(), s.parallel(), s.queue()},
        LaunchOptions.HOST,
        LaunchOptions.PORT,
        LaunchOptions.API_KEY,
        LaunchOptions.PARALLEL,
        LaunchOptions.QUEUE);
  }

  /** {@code text} as a whole number in {@code min..max}, refused in the flag table's words. */
  private static int whole(String flag, String text, int min, int max) {
    String problem = new ValueKind.IntRange(min, max).problem(text);
    if (problem != null) {
      throw usage(flag + ": " + problem);
    }
    return Integer.parseInt(text);
  }

  private static StrataException usage(String message) {
    return new StrataException(ExitCodes.USAGE, message);
  }
}
