package dev.strata.launcher.serve;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.ffm.NativeEngine;
import dev.strata.engine.ffm.Session;
import dev.strata.engine.ffm.VerifiedLibrary;
import dev.strata.launcher.run.EngineLog;
import dev.strata.launcher.run.EngineRunner;
import dev.strata.launcher.run.GenerateRunner;
import dev.strata.launcher.run.SessionFrame;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code strata-launch --serve}: the engine in this process, one session (ABI 3) opened with the
 * config's exact argv and env ({@code --parallel N} among them: N sequences, a {@link
 * SessionWorker} thread each), the {@link OpenAiServer} on it until a signal ({@link
 * dev.strata.launcher.run.Supervisor}: Ctrl-C, SIGTERM, SIGHUP) stops it.
 */
public final class ServeRunner implements EngineRunner {

  /**
   * What {@code --serve} was asked for.
   *
   * @param address where to listen ({@code --host}, {@code --port}; port 0: any free one)
   * @param apiKey the key requests must bear, or null (loopback only)
   * @param queue the most requests waiting for the engine (more: 503)
   * @param modelId the model's id for {@code /v1/models}
   */
  public record Options(InetSocketAddress address, String apiKey, int queue, String modelId) {
    @Override
    public String toString() {
      return "Options[" + address + ", apiKey=" + (apiKey == null ? "none" : "(set)") + "]";
    }
  }

  /** The largest request body (bytes). */
  public static final int MAX_BODY_BYTES = 1 << 20;

  /** How long a request's body may take to arrive (more: 408): 1 MiB at 35 KiB/s. */
  public static final Duration BODY_DEADLINE = Duration.ofSeconds(30);

  /** The largest {@code max_tokens} a request may ask for. */
  public static final int MAX_TOKENS = 4096;

  private final NativeEngine engine;
  private final Options options;
  private final PrintWriter out;
  private final CountDownLatch stop = new CountDownLatch(1);
  private volatile SessionWorker worker;

  private ServeRunner(NativeEngine engine, Options options, PrintWriter out) {
    this.engine = engine;
    this.options = options;
    this.out = out;
  }

  /**
   * Loads the checked library (as {@code --prompt} does).
   *
   * @throws EngineLoadException (exit 3) when it cannot be loaded or has no sessions
   */
  public static ServeRunner load(VerifiedLibrary library, PrintWriter out, Options options) {
    NativeEngine engine = GenerateRunner.withSessions(library, out, "--serve", "serving");
    return new ServeRunner(engine, options, out);
  }

  @Override
  public int run(List<String> args, Map<String, String> env, EngineLog log) {
    ServeMemory memory = new ServeMemory();
    return SessionFrame.run(engine, args, env, log, memory::line, s -> serve(s, memory));
  }

  private int serve(Session session, ServeMemory memory) {
    ChatTemplate template = templateOf(session);
    SessionWorker w = new SessionWorker(session, template, options.queue());
    worker = w;
    OpenAiServer server;
    try {
      server =
          new OpenAiServer(
              options.address(),
              w,
              template,
              session.nCtx(),
              new OpenAiServer.Settings(
                  options.modelId(), options.apiKey(), MAX_BODY_BYTES, BODY_DEADLINE, MAX_TOKENS),
              out);
    } catch (IOException e) {
      out.println(
          "strata-launch: --serve: cannot listen on "
              + options.address().getHostString()
              + ":"
              + options.address().getPort()
              + ": "
              + e.getMessage());
      out.flush();
      return ExitCodes.USAGE;
    }
    try (server) {
      w.start();
      server.start();
      String host = options.address().getAddress().getHostAddress();
      out.println(
          "strata-launch: serving "
              + options.modelId()
              + " on http://"
              + (host.contains(":") ? "[" + host + "]" : host)
              + ":"
              + server.port()
              + "/v1 (context "
              + session.nCtx()
              + (w.sequences() == 1
                  ? ", one generation at a time"
                  : ", " + w.sequences() + " generations at once (--parallel)")
              + ", queue "
              + options.queue()
              + ", chat template: "
              + template.kind()
              + (template.why() != null ? " — " + template.why() : "")
              + ", API key: "
              + (options.apiKey() != null ? "required" : "none (loopback only)")
              + "); Ctrl-C stops");
      out.println(memory.startLine());
      out.flush();
      stop.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      w.stop();
      try {
        w.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      out.println(memory.stopLine());
      out.flush();
    }
    return ExitCodes.OK;
  }

  /** The model's template ({@code tokenizer.chat_template}) with its BOS/EOS text, or fallback. */
  public static ChatTemplate templateOf(Session session) {
    return ChatTemplate.of(
        session.meta("tokenizer.chat_template").orElse(null),
        piece(session, Session.BOS),
        piece(session, Session.EOS));
  }

  private static String piece(Session s, int which) {
    int id = s.token(which);
    return id < 0 ? "" : new String(s.tokenPiece(id), StandardCharsets.UTF_8);
  }

  @Override
  public void cancel() {
    SessionWorker w = worker;
    if (w != null) {
      w.stop();
    }
    stop.countDown();
  }
}
