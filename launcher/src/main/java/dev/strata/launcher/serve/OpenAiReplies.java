package dev.strata.launcher.serve;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.strata.launcher.run.Generation;
import java.util.Locale;

/**
 * The OpenAI answer bodies {@link OpenAiServer} sends: {@code text_completion}, {@code
 * chat.completion}, their stream chunks ({@code chat.completion.chunk}), the model object and the
 * error body (OpenAI's API reference names each field).
 */
final class OpenAiReplies {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private OpenAiReplies() {}

  static ObjectNode object() {
    return NODES.objectNode();
  }

  /** The whole answer of a non-streamed request. */
  static ObjectNode completion(String id, boolean chat, String model, Generation.Result r) {
    ObjectNode o = NODES.objectNode();
    o.put("id", id);
    o.put("object", chat ? "chat.completion" : "text_completion");
    o.put("created", System.currentTimeMillis() / 1000);
    o.put("model", model);
    ObjectNode choice = o.putArray("choices").addObject();
    choice.put("index", 0);
    if (chat) {
      ObjectNode m = choice.putObject("message");
      m.put("role", "assistant");
      m.put("content", r.text());
    } else {
      choice.put("text", r.text());
      choice.putNull("logprobs");
    }
    choice.put("finish_reason", finish(r));
    usage(o, r);
    return o;
  }

  /**
   * One event of a stream: a chat's {@code delta} (null: an empty one) or a completion's {@code
   * text}, and the finish reason (null until the last).
   */
  static ObjectNode chunk(
      String id,
      long createdAt,
      boolean chat,
      String model,
      ObjectNode delta,
      String text,
      String finish) {
    ObjectNode o = NODES.objectNode();
    o.put("id", id);
    o.put("object", chat ? "chat.completion.chunk" : "text_completion");
    o.put("created", createdAt);
    o.put("model", model);
    ObjectNode c = o.putArray("choices").addObject();
    c.put("index", 0);
    if (chat) {
      c.set("delta", delta != null ? delta : NODES.objectNode());
    } else {
      c.put("text", text);
      c.putNull("logprobs");
    }
    if (finish == null) {
      c.putNull("finish_reason");
    } else {
      c.put("finish_reason", finish);
    }
    return o;
  }

  /** A chat delta: {@code role} (the first) and {@code content}. */
  static ObjectNode delta(String role, String content) {
    ObjectNode d = NODES.objectNode();
    if (role != null) {
      d.put("role", role);
    }
    d.put("content", content);
    return d;
  }

  /** The model object of {@code /v1/models}. */
  static ObjectNode model(String id, long created, int nCtx, ChatTemplate template) {
    ObjectNode m = NODES.objectNode();
    m.put("id", id);
    m.put("object", "model");
    m.put("created", created);
    m.put("owned_by", "strata");
    m.put("context_length", nCtx);
    m.put("chat_template", template.kind());
    if (template.why() != null) {
      m.put("chat_template_note", template.why() + "; the fallback: " + ChatTemplate.FALLBACK_DOC);
    }
    return m;
  }

  /** {@code {"error": {"message", "type", "param", "code"}}}. */
  static ObjectNode error(ApiError e) {
    ObjectNode o = NODES.objectNode();
    ObjectNode err = o.putObject("error");
    err.put("message", e.getMessage());
    err.put("type", e.type());
    if (e.param() == null) {
      err.putNull("param");
    } else {
      err.put("param", e.param());
    }
    if (e.code() == null) {
      err.putNull("code");
    } else {
      err.put("code", e.code());
    }
    return o;
  }

  /** OpenAI's finish reason: {@code stop} at an end-of-generation token, else {@code length}. */
  static String finish(Generation.Result r) {
    return r.stop() == Generation.Stop.EOG ? "stop" : "length";
  }

  /** {@code usage}: prompt, completion and total tokens. */
  static void usage(ObjectNode o, Generation.Result r) {
    ObjectNode u = o.putObject("usage");
    u.put("prompt_tokens", r.promptTokens());
    u.put("completion_tokens", r.generatedTokens());
    u.put("total_tokens", r.promptTokens() + r.generatedTokens());
  }

  /** The log line's note of a generation that ended. */
  static String note(Generation.Result r) {
    if (r.stop() == Generation.Stop.CANCELLED) {
      return "client gone: cancelled after " + r.generatedTokens() + " tokens";
    }
    return String.format(
        Locale.ROOT,
        "prompt=%d completion=%d (%.1f tok/s) finish=%s",
        r.promptTokens(),
        r.generatedTokens(),
        r.decodeTokS(),
        finish(r));
  }
}
