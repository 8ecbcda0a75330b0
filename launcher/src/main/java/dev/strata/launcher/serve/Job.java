package dev.strata.launcher.serve;

import dev.strata.launcher.run.Generation;
import java.util.concurrent.CompletableFuture;

/**
 * One request for the engine, queued for the {@link SessionWorker}: a prompt (text, or a
 * conversation to render with the chat template), how to sample, and where the text goes.
 */
final class Job {

  /** Where a job's progress goes; called on the worker's thread. */
  interface Sink {
    /**
     * The prompt fits and generation starts (a stream sends its headers here).
     *
     * @throws java.io.IOException when the client is gone (the job is cancelled)
     */
    void started(int promptTokens) throws java.io.IOException;

    /**
     * A piece of text (whole UTF-8 characters).
     *
     * @throws java.io.IOException when the client is gone (the job is cancelled)
     */
    void text(String piece) throws java.io.IOException;
  }

  /** Where jobs wait for the engine: the {@link SessionWorker} (a test's stand-in). */
  interface Queue {
    /** Queues {@code job}; false when the queue is full (the caller answers 503). */
    boolean offer(Job job);

    /** Jobs waiting (the running ones not counted). */
    int waiting();
  }

  /** {@link #maxTokens} of a chat that set none: what the context has room for, up to the limit. */
  static final int UP_TO_THE_CONTEXT = -1;

  final OpenAiRequest request;
  final Sink sink;
  final CompletableFuture<Generation.Result> done = new CompletableFuture<>();
  private volatile boolean cancelled;
  private volatile Generation running;

  Job(OpenAiRequest request, Sink sink) {
    this.request = request;
    this.sink = sink;
  }

  /** The client went away: a queued job is skipped, a running one stops at its next token. */
  void cancel() {
    cancelled = true;
    Generation g = running;
    if (g != null) {
      g.cancel();
    }
  }

  boolean cancelled() {
    return cancelled;
  }

  void running(Generation g) {
    running = g;
    if (g != null && cancelled) {
      g.cancel();
    }
  }
}
