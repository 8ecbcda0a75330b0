package dev.strata.launcher.serve;

import dev.strata.engine.ffm.Session;
import dev.strata.engine.ffm.SessionException;
import dev.strata.launcher.run.Generation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The threads that use the session, one per sequence ({@link Session#nSeq()}: the engine's {@code
 * --parallel N}): each takes {@link Job}s from one bounded queue — a full queue is the server's 503
 * — renders and tokenizes it, checks it fits the context, and generates on its own sequence from
 * empty (the same prompt and sampling give the same text as {@code strata-launch --prompt}). Calls
 * on a session are not concurrent: the threads take turns on it through one fair lock, an eval and
 * the sampling of its logits per turn ({@link Generation}), so N requests advance token by token
 * together.
 */
final class SessionWorker implements Job.Queue {

  /** A job that ended without a generation: the client went away, or the server is stopping. */
  static final class Dropped extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Dropped(String why) {
      super(why, null, false, false);
    }
  }

  private final Session session;
  private final ChatTemplate template;
  private final BlockingQueue<Job> queue;
  private final ReentrantLock turn = new ReentrantLock(true);
  private final int nCtx;
  private final AtomicReferenceArray<Job> current;
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopping;

  SessionWorker(Session session, ChatTemplate template, int queueSize) {
    this.session = session;
    this.template = template;
    this.queue = new ArrayBlockingQueue<>(queueSize);
    this.nCtx = session.nCtx();
    this.current = new AtomicReferenceArray<>(Math.max(1, session.nSeq()));
  }

  /** The sequences generating at once. */
  int sequences() {
    return current.length();
  }

  /** Starts one thread per sequence. */
  void start() {
    for (int i = 0; i < current.length(); i++) {
      int seq = i;
      Thread t = new Thread(() -> loop(seq), "strata-serve-seq-" + i);
      threads.add(t);
      t.start();
    }
  }

  /** Waits up to {@code millis} for the threads to end (after {@link #stop}). */
  void join(long millis) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    for (Thread t : threads) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())));
    }
  }

  @Override
  public boolean offer(Job job) {
    return !stopping && queue.offer(job);
  }

  @Override
  public int waiting() {
    return queue.size();
  }

  /** Stops taking jobs: the running ones are cancelled, the queued ones dropped. */
  void stop() {
    stopping = true;
    for (int i = 0; i < current.length(); i++) {
      Job j = current.get(i);
      if (j != null) {
        j.cancel();
      }
    }
  }

  private void loop(int seq) {
    try {
      while (!stopping) {
        Job job;
        try {
          job = queue.poll(100, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          break;
        }
        if (job != null) {
          current.set(seq, job);
          try {
            runOne(seq, job);
          } finally {
            current.set(seq, null);
          }
        }
      }
    } finally {
      Job left;
      while ((left = queue.poll()) != null) {
        left.done.completeExceptionally(new Dropped("the server is stopping"));
      }
    }
  }

  private void runOne(int seq, Job job) {
    if (job.cancelled() || stopping) {
      job.done.completeExceptionally(new Dropped("the client went away while queued"));
      return;
    }
    try {
      boolean chat = job.request.messages() != null;
      String text;
      try {
        text = chat ? template.render(job.request.messages(), true) : job.request.prompt();
      } catch (ChatTemplate.TemplateException e) {
        throw ApiError.invalid("messages", "the model's chat template refused: " + e.getMessage());
      }
      // a template that writes the BOS itself gets no second one
      boolean ownBos = chat && !template.bos().isEmpty() && text.startsWith(template.bos());
      int[] ids;
      turn.lock();
      try {
        ids = session.tokenize(text, (ownBos ? 0 : Session.ADD_SPECIAL) | Session.PARSE_SPECIAL);
        session.truncate(seq, 0);
      } finally {
        turn.unlock();
      }
      String field = chat ? "messages" : "prompt";
      if (ids.length == 0) {
        throw ApiError.invalid(field, "the " + field + " has no tokens: give some text");
      }
      int maxTokens =
          job.request.maxTokens() == Job.UP_TO_THE_CONTEXT
              ? Math.max(1, Math.min(ServeRunner.MAX_TOKENS, nCtx - ids.length))
              : job.request.maxTokens();
      if ((long) ids.length + maxTokens > nCtx) {
        throw ApiError.invalid(
            field,
            "context_length_exceeded",
            "this model's context holds "
                + nCtx
                + " tokens; the request needs "
                + (ids.length + maxTokens)
                + " ("
                + ids.length
                + " in the "
                + field
                + ", max_tokens "
                + maxTokens
                + "): shorten the "
                + field
                + " or lower max_tokens");
      }
      Generation g =
          new Generation(
              session,
              seq,
              turn,
              new Generation.Options(
                  text,
                  job.request.maxTokens(),
                  job.request.temp(),
                  job.request.topK(),
                  job.request.topP(),
                  job.request.seed()));
      job.running(g);
      try {
        job.sink.started(ids.length);
      } catch (IOException e) {
        job.cancel();
        throw new Dropped("the client went away");
      }
      Generation.Result r =
          g.generate(
              ids,
              piece -> {
                if (job.cancelled()) {
                  return;
                }
                try {
                  job.sink.text(piece);
                } catch (IOException e) {
                  job.cancel(); // the client is gone: stop at the next token
                }
              });
      job.running(null);
      if (stopping && r.stop() == Generation.Stop.CANCELLED) {
        // cancelled by stop(), not by its client: the answer says so (a 503 body, not blanks)
        throw new Dropped("the server is stopping");
      }
      job.done.complete(r);
    } catch (ApiError | Dropped e) {
      job.done.completeExceptionally(e);
    } catch (SessionException e) {
      job.done.completeExceptionally(
          new ApiError(500, "server_error", null, null, "the engine refused: " + e.getMessage()));
    } catch (RuntimeException e) {
      job.done.completeExceptionally(
          new ApiError(500, "server_error", null, null, "internal error: " + e));
    }
  }
}
