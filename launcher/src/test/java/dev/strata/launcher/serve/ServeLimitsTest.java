package dev.strata.launcher.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link OpenAiServer}'s limits on what a client sends, on a real loopback socket with a stand-in
 * queue (no engine: every request that passes the checks finds the queue full, 503): a body
 * announced over the cap is a 413 at once, one that trickles is a 408 at the deadline, clients that
 * trickle their headers hold no thread the others wait for, and connections beyond {@link
 * JdkLimits#MAX_CONNECTIONS} are closed; a request without {@code model} is told the served one.
 */
class ServeLimitsTest {
  static final int MAX_BODY = 1024;
  static final Duration DEADLINE = Duration.ofSeconds(1);

  OpenAiServer server;
  final StringWriter log = new StringWriter();
  final List<Socket> sockets = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    Job.Queue full =
        new Job.Queue() {
          @Override
          public boolean offer(Job job) {
            return false;
          }

          @Override
          public int waiting() {
            return 0;
          }
        };
    server =
        new OpenAiServer(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            full,
            ChatTemplate.of(null, "", ""),
            256,
            new OpenAiServer.Settings("tiny", null, MAX_BODY, DEADLINE, 64),
            new PrintWriter(log, true));
    server.start();
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    server.close();
  }

  /** A response: its status and its body. */
  record Answer(int status, String body, long millis) {
    JsonNode error() throws IOException {
      return OpenAiServer.JSON.readTree(body).get("error");
    }
  }

  Socket open() throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
    s.setSoTimeout(10_000);
    sockets.add(s);
    return s;
  }

  /** Sends {@code head} (and {@code body}) on a new connection and reads the answer. */
  Answer exchange(String head, String body) throws IOException {
    Socket s = open();
    long t0 = System.nanoTime();
    s.getOutputStream().write((head + body).getBytes(StandardCharsets.UTF_8));
    s.getOutputStream().flush();
    return read(s.getInputStream(), t0);
  }

  static Answer read(InputStream in, long t0) throws IOException {
    ByteArrayOutputStream headers = new ByteArrayOutputStream();
    while (!headers.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
      int c = in.read();
      if (c < 0) {
        throw new IOException("closed before an answer: " + headers);
      }
      headers.write(c);
    }
    String h = headers.toString(StandardCharsets.ISO_8859_1);
    int status = Integer.parseInt(h.substring(9, 12));
    int length = 0;
    for (String line : h.split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
    return new Answer(status, body, (System.nanoTime() - t0) / 1_000_000);
  }

  static String post(String path, long contentLength) {
    return "POST "
        + path
        + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
        + contentLength
        + "\r\n\r\n";
  }

  @Test
  void aBodyAnnouncedOverTheCapIs413AtOnceNamingTheLimit() throws IOException {
    // a terabyte announced, nothing sent: answered before any of it is read
    Answer a = exchange(post("/v1/completions", 1L << 40), "");
    assertEquals(413, a.status(), a.body());
    assertEquals("request_too_large", a.error().get("code").asText());
    assertEquals("body", a.error().get("param").asText());
    assertTrue(a.error().get("message").asText().contains(MAX_BODY + " bytes"), a.body());
    assertTrue(a.millis() < 900, "answered in " + a.millis() + " ms, before the deadline");
    assertEquals(1, a.body().lines().count(), "one JSON line: " + a.body());
  }

  @Test
  void aTrickledBodyIs408AtTheDeadline() throws IOException {
    Answer a = exchange(post("/v1/completions", 100), "{\"model\":");
    assertEquals(408, a.status(), a.body());
    assertEquals("request_timeout", a.error().get("code").asText());
    assertTrue(a.error().get("message").asText().contains("within 1 s"), a.body());
    assertTrue(a.millis() >= 900 && a.millis() < 5000, "answered after " + a.millis() + " ms");
  }

  @Test
  void aMalformedChunkedBodyIs400NamingTheBody() throws IOException {
    // the JDK's chunk decoder throws as a closed connection does: the client still gets an answer
    Answer a =
        exchange(
            "POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
            "zz\r\n{}\r\n0\r\n\r\n");
    assertEquals(400, a.status(), a.body());
    assertEquals("body", a.error().get("param").asText());
    assertTrue(
        a.error().get("message").asText().startsWith("the request body could not be read: "),
        a.body());
    assertEquals(1, a.body().lines().count(), "one JSON line: " + a.body());
  }

  @Test
  void a413IsLoggedAsAnsweredNotAsAClientGone() throws IOException {
    Socket s = open();
    s.getOutputStream().write(post("/v1/completions", 1L << 20).getBytes(StandardCharsets.UTF_8));
    assertEquals(413, read(s.getInputStream(), System.nanoTime()).status());
    s.close(); // gone before the announced body: what the server was draining ends
    long end = System.nanoTime() + 5_000_000_000L;
    while (!log.toString().contains("(this server's limit)") && System.nanoTime() < end) {
      Thread.onSpinWait();
    }
    String line = log.toString().lines().filter(l -> l.contains(" 413 ")).findFirst().orElse("");
    assertTrue(line.endsWith("(this server's limit)"), "the log line: " + line);
  }

  @Test
  void aWholeBodyWithinTheLimitsIsChecked() throws IOException {
    String ok = "{\"model\":\"tiny\",\"prompt\":\"a\"}";
    Answer a = exchange(post("/v1/completions", ok.length()), ok);
    assertEquals(503, a.status(), a.body()); // past every check: the stand-in queue is full
    String big = "{\"model\":\"tiny\",\"prompt\":\"" + "x".repeat(MAX_BODY) + "\"}";
    assertEquals(413, exchange(post("/v1/completions", big.length()), big).status());
  }

  @Test
  void aRequestWithoutModelIsToldTheServedOne() throws IOException {
    for (String body : List.of("{\"prompt\":\"a\"}", "{\"model\":7,\"prompt\":\"a\"}")) {
      Answer a = exchange(post("/v1/completions", body.length()), body);
      assertEquals(400, a.status(), a.body());
      assertEquals("model", a.error().get("param").asText());
      assertTrue(a.error().get("message").asText().contains("this server has 'tiny'"), a.body());
    }
    String wrong = "{\"model\":\"gpt-4\",\"prompt\":\"a\"}";
    Answer a = exchange(post("/v1/completions", wrong.length()), wrong);
    assertEquals(404, a.status(), a.body());
    assertTrue(a.error().get("message").asText().contains("this server has 'tiny'"), a.body());
  }

  @Test
  void clientsTricklingTheirHeadersHoldNoThreadTheOthersWaitFor() throws IOException {
    // more slow clients than the fixed pool of handler threads this server had (queue 16 + 4)
    for (int i = 0; i < 40; i++) {
      Socket s = open();
      s.getOutputStream()
          .write(
              "POST /v1/completions HTTP/1.1\r\nHost: x\r\nX-Slow: "
                  .getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
    }
    Answer a = exchange("GET /health HTTP/1.1\r\nHost: x\r\n\r\n", "");
    assertEquals(200, a.status(), a.body());
    assertTrue(a.millis() < 5000, "answered in " + a.millis() + " ms");
  }

  @Test
  void connectionsBeyondTheCapAreClosed() throws IOException {
    for (int i = 0; i < JdkLimits.MAX_CONNECTIONS; i++) {
      open();
    }
    // the JDK accepts and counts connections on its dispatcher thread: wait for the last one
    long end = System.nanoTime() + 5_000_000_000L;
    Socket extra = null;
    while (System.nanoTime() < end) {
      extra = open();
      extra.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
      try {
        if (extra.getInputStream().read() < 0) {
          break; // closed without an answer: beyond the cap
        }
      } catch (IOException reset) {
        break;
      }
      extra = null; // answered: the first ones were not all counted yet
    }
    assertTrue(extra != null, "a connection beyond " + JdkLimits.MAX_CONNECTIONS + " answered");
  }
}
