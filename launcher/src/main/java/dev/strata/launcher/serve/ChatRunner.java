package dev.strata.launcher.serve;

import dev.strata.cli.Io;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.ffm.NativeEngine;
import dev.strata.engine.ffm.Session;
import dev.strata.engine.ffm.SessionException;
import dev.strata.engine.ffm.VerifiedLibrary;
import dev.strata.engine.text.TerminalText;
import dev.strata.launcher.run.EngineLog;
import dev.strata.launcher.run.GenerateRunner;
import dev.strata.launcher.run.Generation;
import dev.strata.launcher.run.SessionFrame;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

/**
 * {@code strata-launch --chat}: a conversation in the terminal (JLine) on one session. Each turn
 * renders the whole history with the chat template, keeps the positions the session already holds
 * (the common prefix) and evaluates the rest; the reply streams, then its tokens/s. Ctrl-C stops
 * the reply (the session stays); a history that does not fit the context loses its oldest turns,
 * and the chat says so. {@code /save FILE}, {@code /load FILE} (session snapshots), {@code /exit}.
 */
public final class ChatRunner {

  /** The most tokens of one reply (less when the context has less room). */
  static final int MAX_REPLY = 512;

  /** Room kept for the reply when trimming the history. */
  static final int REPLY_ROOM = 128;

  private final NativeEngine engine;
  private final Io io;
  private volatile Generation running;

  private ChatRunner(NativeEngine engine, Io io) {
    this.engine = engine;
    this.io = io;
  }

  /** Loads the checked library (as {@code --prompt} does). */
  public static ChatRunner load(VerifiedLibrary library, Io io) {
    NativeEngine engine = GenerateRunner.withSessions(library, io.err(), "--chat", "a chat");
    return new ChatRunner(engine, io);
  }

  /** Opens the session with the config's argv and env and chats until /exit or end of input. */
  public int run(List<String> args, java.util.Map<String, String> env, EngineLog log) {
    return SessionFrame.run(engine, args, env, log, null, this::chat);
  }

  private int chat(Session session) {
    try (Terminal terminal =
        TerminalBuilder.builder()
            .system(true)
            .name("strata-chat")
            .encoding(StandardCharsets.UTF_8)
            .build()) {
      return new Conversation(session, terminal).loop();
    } catch (IOException e) {
      io.err().println("strata-launch: --chat: no terminal: " + e.getMessage());
      io.err().flush();
      return ExitCodes.USAGE;
    }
  }

  /** One chat: the history, the tokens the session holds, the terminal. */
  private final class Conversation {
    private final Session session;
    private final Terminal terminal;
    private final PrintWriter out;
    private final ChatTemplate template;
    private final List<ChatTemplate.Message> history = new ArrayList<>();
    private int[] prefix = new int[0]; // a loaded conversation's tokens, before the history
    private int[] held = new int[0]; // the tokens sequence 0 holds

    Conversation(Session session, Terminal terminal) {
      this.session = session;
      this.terminal = terminal;
      this.out = terminal.writer();
      this.template = ServeRunner.templateOf(session);
    }

    int loop() {
      LineReader reader = LineReaderBuilder.builder().terminal(terminal).build();
      terminal.handle(
          Terminal.Signal.INT,
          sig -> {
            Generation g = running;
            if (g != null) {
              g.cancel();
            }
          });
      out.println(
          "chat: "
              + session.meta("general.name").orElse("the model")
              + ", context "
              + session.nCtx()
              + " tokens, chat template: "
              + template.kind()
              + (template.why() != null ? " (" + template.why() + ")" : "")
              + ". Ctrl-C stops a reply; /save FILE, /load FILE, /exit.");
      out.flush();
      while (true) {
        String line;
        try {
          line = reader.readLine("> ");
        } catch (UserInterruptException e) {
          out.println("chat: (Ctrl-C stops a reply; /exit or Ctrl-D leaves)");
          out.flush();
          continue;
        } catch (EndOfFileException e) {
          return ExitCodes.OK;
        }
        String t = line.strip();
        if (t.isEmpty()) {
          continue;
        }
        if (t.equals("/exit") || t.equals("/quit")) {
          return ExitCodes.OK;
        }
        if (t.startsWith("/save ") || t.startsWith("/load ")) {
          snapshot(t.substring(0, 5), t.substring(6).strip());
          continue;
        }
        if (t.startsWith("/")) {
          out.println("chat: commands are /save FILE, /load FILE, /exit");
          out.flush();
          continue;
        }
        turn(line);
      }
    }

    private void snapshot(String command, String file) {
      Path p;
      try {
        p = Path.of(file).toAbsolutePath();
      } catch (InvalidPathException e) {
        out.println("chat: " + command + ": '" + TerminalText.escape(file) + "' is not a path");
        out.flush();
        return;
      }
      try {
        if (command.equals("/save")) {
          session.save(0, p);
          out.println("chat: saved " + session.nPast(0) + " tokens to " + p);
        } else {
          session.load(0, p);
          prefix = session.tokens(0);
          held = prefix;
          history.clear();
          out.println(
              "chat: loaded "
                  + prefix.length
                  + " tokens from "
                  + p
                  + "; the next turns continue that conversation");
        }
      } catch (SessionException e) {
        out.println("chat: " + command + " refused (the engine's line above says why)");
      }
      out.flush();
    }

    private void turn(String text) {
      history.add(new ChatTemplate.Message("user", text));
      int[] ids = fit();
      if (ids == null) {
        history.removeLast();
        out.println("chat: that message alone does not fit the context: say it shorter");
        out.flush();
        return;
      }
      int keep = commonPrefix(held, ids);
      keep = Math.min(Math.min(keep, ids.length - 1), session.nPast(0));
      session.truncate(0, keep);
      int room = session.nCtx() - ids.length;
      Generation g =
          new Generation(
              session,
              new Generation.Options(
                  text,
                  Math.min(MAX_REPLY, room),
                  0.8f,
                  40,
                  0.95f,
                  ThreadLocalRandom.current().nextLong()));
      running = g;
      StringBuilder reply = new StringBuilder();
      Generation.Result r;
      try {
        r =
            g.generate(
                Arrays.copyOfRange(ids, keep, ids.length),
                piece -> {
                  reply.append(piece);
                  out.print(TerminalText.escapeLines(piece));
                  out.flush();
                });
      } finally {
        running = null;
      }
      int[] sampled = g.sampled();
      int[] all = Arrays.copyOf(ids, ids.length + sampled.length);
      System.arraycopy(sampled, 0, all, ids.length, sampled.length);
      held = Arrays.copyOf(all, Math.min(all.length, session.nPast(0)));
      history.add(new ChatTemplate.Message("assistant", reply.toString().strip()));
      out.println();
      out.println(
          String.format(
              Locale.ROOT,
              "[%d tokens, %.1f tok/s%s]",
              r.generatedTokens(),
              r.decodeTokS(),
              switch (r.stop()) {
                case CANCELLED -> "; stopped (Ctrl-C)";
                case N_PREDICT -> "; reply limit";
                case CTX -> "; the context is full";
                case EOG -> "";
              }));
      out.flush();
    }

    /**
     * The conversation's tokens when they fit with room for a reply, dropping the oldest turns (and
     * then a loaded conversation) as needed and saying so; null when the last message alone does
     * not fit.
     */
    private int[] fit() {
      int dropped = 0;
      while (true) {
        int[] ids = tokens();
        if (ids.length + Math.min(REPLY_ROOM, session.nCtx() / 4) <= session.nCtx()) {
          if (dropped > 0) {
            out.println(
                "chat: the "
                    + (dropped == 1 ? "oldest turn was" : dropped + " oldest turns were")
                    + " dropped: the conversation no longer fits the context ("
                    + session.nCtx()
                    + " tokens)");
            out.flush();
          }
          return ids;
        }
        int firstTurn = !history.isEmpty() && history.getFirst().role().equals("system") ? 1 : 0;
        if (history.size() - firstTurn > 1) {
          // the oldest turn: a user message and the reply after it
          history.remove(firstTurn);
          if (history.size() - firstTurn > 1 && history.get(firstTurn).role().equals("assistant")) {
            history.remove(firstTurn);
          }
          dropped++;
        } else if (prefix.length > 0) {
          prefix = new int[0];
          out.println("chat: the loaded conversation was dropped: it no longer fits the context");
          out.flush();
        } else {
          return null;
        }
      }
    }

    private int[] tokens() {
      String text = template.render(history, true);
      boolean ownBos = !template.bos().isEmpty() && text.startsWith(template.bos());
      int flags = Session.PARSE_SPECIAL | (prefix.length == 0 && !ownBos ? Session.ADD_SPECIAL : 0);
      int[] ids = session.tokenize(text, flags);
      if (prefix.length == 0) {
        return ids;
      }
      int[] all = Arrays.copyOf(prefix, prefix.length + ids.length);
      System.arraycopy(ids, 0, all, prefix.length, ids.length);
      return all;
    }
  }

  static int commonPrefix(int[] a, int[] b) {
    int n = Math.min(a.length, b.length);
    int i = 0;
    while (i < n && a[i] == b[i]) {
      i++;
    }
    return i;
  }
}
