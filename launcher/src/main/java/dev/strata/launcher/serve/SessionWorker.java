package dev.strata.launcher.serve;

import dev.strata.engine.ffm.Session;
import dev.strata.engine.ffm.SessionException;
import dev.strata.launcher.run.Generation;
import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The one thread that uses the session (calls on a session are not concurrent): it takes {@link
 * Job}s from a bounded queue, one at a time — a full queue is the server's 503 — renders and
 * tokenizes each, checks it fits the context, and generates on sequence 0 from empty (the same
 * prompt and sampling give the same text as {@code strata-launch --prompt}).
 */
final class SessionWorker implements Runnable {

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
  private volatile boolean stopping;
  private volatile Job current;
  private boolean settle; // the last job was cancelled: its cancel may still be kept

  SessionWorker(Session session, ChatTemplate template, int queueSize) {
    this.session = session;
    this.template = template;
    this.queue = new ArrayBlockingQueue<>(queueSize);
  }

  /** Queues {@code job}; false when the queue is full (the caller answers 503). */
  boolean offer(Job job) {
    return !stopping && queue.offer(job);
  }

  /** Jobs waiting (the one running not counted). */
  int waiting() {
    return queue.size();
  }

  /** Stops taking jobs: the running one is cancelled, the queued ones dropped. */
  void stop() {
    stopping = true;
    Job j = current;
    if (j != null) {
      j.cancel();
    }
  }

  @Override
  public void run() {
    try {
      while (!stopping) {
        Job job;
        try {
          job = queue.poll(100, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          break;
        }
        if (job != null) {
          current = job;
          try {
            runOne(job);
          } finally {
            current = null;
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

  private void runOne(Job job) {
    if (job.cancelled() || stopping) {
      job.done.completeExceptionally(new Dropped("the client went away while queued"));
      return;
    }
    try {
      if (settle) {
        Generation.settleCancel(session); // the job before's cancel is not this one's
        settle = false;
      }
      boolean chat = job.messages != null;
      String text;
      try {
        text = chat ? template.render(job.messages, true) : job.prompt;
      } catch (ChatTemplate.TemplateException e) {
        throw ApiError.invalid("messages", "the model's chat template refused: " + e.getMessage());
      }
      // a template that writes the BOS itself gets no second one
      boolean ownBos = chat && !template.bos().isEmpty() && text.startsWith(template.bos());
      int[] ids =
          session.tokenize(text, (ownBos ? 0 : Session.ADD_SPECIAL) | Session.PARSE_SPECIAL);
      String field = chat ? "messages" : "prompt";
      if (ids.length == 0) {
        throw ApiError.invalid(field, "the " + field + " has no tokens: give some text");
      }
      int nCtx = session.nCtx();
      int maxTokens =
          job.maxTokens == Job.UP_TO_THE_CONTEXT
              ? Math.max(1, Math.min(ServeRunner.MAX_TOKENS, nCtx - ids.length))
              : job.maxTokens;
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
      session.truncate(0, 0);
      Generation g =
          new Generation(
              session,
              new Generation.Options(text, job.maxTokens, job.temp, job.topK, job.topP, job.seed));
      job.running(g);
      try {
        job.sink.started(ids.length);
      } catch (IOException e) {
        job.cancel();
        settle = true;
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
      settle = r.stop() == Generation.Stop.CANCELLED;
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
