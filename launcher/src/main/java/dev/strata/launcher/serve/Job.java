package dev.strata.launcher.serve;

import dev.strata.launcher.run.Generation;
import java.util.List;
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

  /** {@link #maxTokens} of a chat that set none: what the context has room for, up to the limit. */
  static final int UP_TO_THE_CONTEXT = -1;

  final String prompt;
  final List<ChatTemplate.Message> messages;
  final int maxTokens;
  final float temp;
  final int topK;
  final float topP;
  final long seed;
  final Sink sink;
  final CompletableFuture<Generation.Result> done = new CompletableFuture<>();
  private volatile boolean cancelled;
  private volatile Generation running;

  Job(
      String prompt,
      List<ChatTemplate.Message> messages,
      int maxTokens,
      float temp,
      int topK,
      float topP,
      long seed,
      Sink sink) {
    this.prompt = prompt;
    this.messages = messages;
    this.maxTokens = maxTokens;
    this.temp = temp;
    this.topK = topK;
    this.topP = topP;
    this.seed = seed;
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
