package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.strata.engine.Folders;
import dev.strata.testsupport.SharedData;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code strata-launch --chat} in a real terminal (tmux, on its own server socket): two turns with
 * their replies and tokens/s lines, a Ctrl-C in the middle of a third reply (the reply stops, the
 * chat goes on), {@code /save} and {@code /load} of the conversation, then {@code /exit} (exit 0).
 */
class ChatTmuxE2eTest {

  /**
   * {@code strata-launch --chat} of a config of its own (the shared tiny qwen3 Q8_0, 16 prompt and
   * 16 predicted tokens) in a 160×50 tmux session "chat" on the server socket {@code socket},
   * waiting at its prompt; the exit code is written to {@code exit}. Closing it ends the tmux
   * server and deletes {@code dir}.
   */
  private record Chat(Path dir, String socket, Path exit) implements AutoCloseable {
    static Chat start(String socket, int ctx, List<String> flags) throws Exception {
      Path model = SharedData.resolve("models/tiny-qwen3-q8_0.gguf").orElse(null);
      assumeTrue(model != null && Files.isRegularFile(model), SharedData.WHY_NOT);
      assumeTrue(Files.isExecutable(Path.of("/usr/bin/tmux")), "tmux is not installed");
      Path dir = E2e.privateDir(Files.createTempDirectory("strata-chat-"));
      Chat chat =
          new Chat(dir, socket + "-" + ProcessHandle.current().pid(), dir.resolve("exit-code"));
      try {
        List<String> all = new ArrayList<>(List.of("--prompt-tokens", "16", "--n-predict", "16"));
        all.addAll(flags);
        Path config =
            E2e.config(
                dir.resolve("chat.yaml"),
                E2e.refLibrary(),
                null,
                List.of(model),
                ctx,
                all,
                Map.of());
        List<String> cmd =
            E2e.launcherProcess(List.of("--config", config.toString(), "--chat")).command();
        String line =
            cmd.stream().map(ChatTmuxE2eTest::quote).collect(Collectors.joining(" "))
                + "; echo $? > "
                + quote(chat.exit.toString())
                + "; sleep 30";
        tmux(chat.socket, "new-session", "-d", "-x", "160", "-y", "50", "-s", "chat", line);
        awaitScreen(chat.socket, s -> s.contains("> "), 60, "the chat's prompt");
        return chat;
      } catch (Throwable t) {
        chat.close();
        throw t;
      }
    }

    @Override
    public void close() throws IOException {
      try {
        new ProcessBuilder("tmux", "-L", socket, "kill-server")
            .redirectErrorStream(true)
            .start()
            .waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // close may not throw it (javac's try lint)
      } finally {
        Folders.deleteQuietly(dir);
      }
    }
  }

  @Test
  void twoTurnsACtrlCMidReplySaveLoadAndExit() throws Exception {
    // room for a whole 512-token third reply (at 1024 the history left 170)
    try (Chat chat = Chat.start("strata-chat", 4096, List.of("--threads", "1"))) {
      String socket = chat.socket();
      Path dir = chat.dir();
      Path exit = chat.exit();
      send(socket, "Hello there");
      awaitScreen(socket, s -> count(s, " tok/s") >= 1, 90, "the first reply's tokens/s");
      send(socket, "Tell me about Debian packages");
      awaitScreen(socket, s -> count(s, " tok/s") >= 2, 90, "the second reply's tokens/s");
      String third = "Write a long essay about the Linux kernel";
      send(socket, third);
      // Ctrl-C as soon as the reply streams: on an idle machine a whole reply takes about a second,
      // so a fixed wait could land after it (the 2026-12-02 CI saw that)
      awaitScreen(
          socket,
          s -> {
            int at = s.lastIndexOf(third);
            return at >= 0 && s.substring(at + third.length()).strip().length() > 40;
          },
          60,
          "the third reply streaming");
      tmux(socket, "send-keys", "-t", "chat", "C-c");
      awaitScreen(socket, s -> s.contains("stopped (Ctrl-C)"), 30, "the reply stopped by Ctrl-C");
      // the chat goes on after a Ctrl-C: the next reply is a whole one
      send(socket, "And then?");
      awaitScreen(socket, s -> count(s, " tok/s") >= 4, 90, "a reply after the Ctrl-C");
      String after = screen(socket);
      String last = after.substring(after.lastIndexOf("> And then?"));
      assertTrue(!last.contains("stopped (Ctrl-C)") && !last.contains("[0 tokens"), last);
      Path saved = dir.resolve("talk.snap");
      send(socket, "/save " + saved);
      awaitScreen(socket, s -> s.contains("chat: saved "), 30, "/save");
      send(socket, "/load " + saved);
      awaitScreen(socket, s -> s.contains("chat: loaded "), 30, "/load");
      send(socket, "/exit");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!Files.exists(exit) && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertTrue(Files.exists(exit), "the chat ended:\n" + screen(socket));
      assertEquals("0", Files.readString(exit).strip(), screen(socket));
    }
  }

  @Test
  void aHistoryOverTheContextLosesItsOldestTurnAndSaysSo() throws Exception {
    try (Chat chat = Chat.start("strata-chat-drop", 256, List.of())) {
      String socket = chat.socket();
      // two messages of about 100 tokens each: with a reply between them they pass the 192 tokens
      // a 256-token context leaves the history (64 kept for the reply)
      send(socket, "Hello there, tell me about Debian. ".repeat(12));
      awaitScreen(socket, s -> count(s, " tok/s") >= 1, 90, "the first reply");
      send(socket, "And the Linux kernel, and its packages? ".repeat(12));
      awaitScreen(
          socket,
          s -> s.contains("oldest turn was dropped: the conversation no longer fits the context"),
          90,
          "the note that the oldest turn was dropped");
      awaitScreen(socket, s -> count(s, " tok/s") >= 2, 90, "the second reply");
      send(socket, "/exit");
    }
  }

  static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }

  static void send(String socket, String text) throws Exception {
    tmux(socket, "send-keys", "-t", "chat", "-l", text);
    tmux(socket, "send-keys", "-t", "chat", "Enter");
  }

  static String screen(String socket) throws Exception {
    return tmux(socket, "capture-pane", "-p", "-J", "-S", "-2000", "-t", "chat");
  }

  static void awaitScreen(String socket, Predicate<String> ok, int seconds, String what)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    String s = "";
    while (System.nanoTime() < deadline) {
      s = screen(socket);
      if (ok.test(s)) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("no " + what + " within " + seconds + " s; the screen:\n" + s);
  }

  static String tmux(String socket, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("tmux", "-L", socket));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(20, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
    return out;
  }

  static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
