package dev.strata.launcher.serve;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One {@code POST /v1/completions} or {@code /v1/chat/completions} body, read and checked field by
 * field (OpenAI's names and defaults); every refusal is an {@link ApiError} naming the field.
 *
 * @param prompt the completion's prompt, or null for a chat
 * @param messages the chat's conversation, or null for a completion
 * @param maxTokens the most tokens to generate; {@link Job#UP_TO_THE_CONTEXT} for a chat that set
 *     none
 * @param temp the temperature, 0..2 (default 1)
 * @param topK the top-k cut, 0 = all (an extension OpenAI does not have; llama-server's)
 * @param topP the nucleus cut, (0, 1] (default 1)
 * @param seed the sampler's seed (drawn when not given)
 * @param stream whether the answer is server-sent events
 */
record OpenAiRequest(
    String prompt,
    List<ChatTemplate.Message> messages,
    int maxTokens,
    float temp,
    int topK,
    float topP,
    long seed,
    boolean stream) {

  private static final int DEFAULT_MAX_TOKENS = 16; // OpenAI's default for /v1/completions

  /** The job this request asks for, its progress going to {@code sink}. */
  Job job(Job.Sink sink) {
    return new Job(this, sink);
  }

  /**
   * The body's fields.
   *
   * @param modelId the one model's id: the body's {@code model} must be it (else 404)
   * @param limit the largest {@code max_tokens}
   */
  static OpenAiRequest of(JsonNode body, boolean chat, String modelId, int limit) {
    JsonNode given = body.get("model");
    if (given == null || given.isNull() || !given.isTextual()) {
      // OpenAI requires the field; the answer names the one model, as the 404 below does
      throw ApiError.invalid(
          "model",
          (given == null || given.isNull() ? "model is required" : "model must be a string")
              + ": this server has '"
              + modelId
              + "' (GET /v1/models)");
    }
    String model = given.asText();
    if (!model.equals(modelId)) {
      throw new ApiError(
          404,
          "invalid_request_error",
          "model",
          "model_not_found",
          "the model '"
              + clip(model)
              + "' does not exist here: this server has '"
              + modelId
              + "' (GET /v1/models)");
    }
    String prompt = null;
    List<ChatTemplate.Message> messages = null;
    if (chat) {
      messages = messages(body);
    } else {
      JsonNode p = body.get("prompt");
      if (p == null || p.isNull()) {
        throw ApiError.invalid("prompt", "prompt is required (a string)");
      }
      if (p.isArray() && p.size() == 1 && p.get(0).isTextual()) {
        p = p.get(0);
      }
      if (!p.isTextual()) {
        throw ApiError.invalid("prompt", "prompt must be a string (one prompt per request here)");
      }
      prompt = p.asText();
    }
    int maxTokens = maxTokens(body, chat, limit);
    float temp = number(body, "temperature", 1.0, 0, 2);
    float topP = number(body, "top_p", 1.0, 0, 1);
    if (body.has("top_p") && topP <= 0) {
      throw ApiError.invalid("top_p", "top_p must be above 0 (at most 1)");
    }
    int topK = (int) whole(body, "top_k", 0, 0, 1 << 24);
    long seed = body.hasNonNull("seed") ? seed(body) : ThreadLocalRandom.current().nextLong();
    JsonNode n = body.get("n");
    if (n != null && !n.isNull() && !(n.isIntegralNumber() && n.asLong() == 1)) {
      throw ApiError.invalid("n", "n must be 1 here (one choice per request)");
    }
    JsonNode stop = body.get("stop");
    if (stop != null && !stop.isNull() && !(stop.isArray() && stop.isEmpty())) {
      throw ApiError.invalid("stop", "stop sequences are not supported by this server yet");
    }
    return new OpenAiRequest(
        prompt, messages, maxTokens, temp, topK, topP, seed, bool(body, "stream"));
  }

  /** The request's body ({@link RequestBody#read}) as a JSON object. */
  static JsonNode body(byte[] bytes) {
    JsonNode body;
    try {
      body = OpenAiServer.JSON.readTree(bytes);
    } catch (IOException e) {
      String why = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
      throw ApiError.invalid(
          null, "the request body is not valid JSON: " + why.lines().findFirst().orElse(""));
    }
    if (body == null || !body.isObject()) {
      throw ApiError.invalid(null, "the request body must be a JSON object");
    }
    return body;
  }

  private static List<ChatTemplate.Message> messages(JsonNode body) {
    JsonNode ms = body.get("messages");
    if (ms == null || !ms.isArray() || ms.isEmpty()) {
      throw ApiError.invalid("messages", "messages must be a non-empty array of {role, content}");
    }
    List<ChatTemplate.Message> out = new ArrayList<>();
    for (int i = 0; i < ms.size(); i++) {
      JsonNode m = ms.get(i);
      String at = "messages[" + i + "]";
      if (!m.isObject()) {
        throw ApiError.invalid(at, at + " must be an object {role, content}");
      }
      JsonNode role = m.get("role");
      if (role == null || !role.isTextual()) {
        throw ApiError.invalid(at + ".role", at + ".role must be a string");
      }
      String r = role.asText();
      if (!List.of("system", "developer", "user", "assistant").contains(r)) {
        throw ApiError.invalid(
            at + ".role",
            at + ".role '" + clip(r) + "' is not one of system, developer, user, assistant");
      }
      out.add(new ChatTemplate.Message(r.equals("developer") ? "system" : r, content(m, at)));
    }
    return out;
  }

  /** A message's content: a string, or an array of {type: text, text} parts (joined). */
  private static String content(JsonNode m, String at) {
    JsonNode c = m.get("content");
    if (c != null && c.isTextual()) {
      return c.asText();
    }
    if (c != null && c.isArray()) {
      StringBuilder b = new StringBuilder();
      for (JsonNode part : (ArrayNode) c) {
        if (!part.isObject()
            || !"text".equals(part.path("type").asText())
            || !part.path("text").isTextual()) {
          throw ApiError.invalid(
              at + ".content", at + ".content parts must be {type: text, text} here");
        }
        b.append(part.get("text").asText());
      }
      return b.toString();
    }
    throw ApiError.invalid(at + ".content", at + ".content must be a string");
  }

  private static int maxTokens(JsonNode body, boolean chat, int limit) {
    String field =
        chat && body.hasNonNull("max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      // a chat without a limit: up to the context's end (at most the server's limit)
      return chat ? Job.UP_TO_THE_CONTEXT : DEFAULT_MAX_TOKENS;
    }
    if (!v.isIntegralNumber() || !v.canConvertToInt()) {
      throw ApiError.invalid(field, field + " must be a whole number");
    }
    int n = v.asInt();
    if (n < 0) {
      throw ApiError.invalid(field, field + " must not be negative (it is " + n + ")");
    }
    if (n > limit) {
      throw ApiError.invalid(field, field + " " + n + " is over this server's limit of " + limit);
    }
    return n;
  }

  private static float number(JsonNode body, String field, double dflt, double min, double max) {
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      return (float) dflt;
    }
    if (!v.isNumber()) {
      throw ApiError.invalid(field, field + " must be a number");
    }
    double d = v.asDouble();
    if (!(d >= min && d <= max)) {
      throw ApiError.invalid(field, field + " must be in " + min + ".." + max);
    }
    return (float) d;
  }

  private static long whole(JsonNode body, String field, long dflt, long min, long max) {
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min || v.asLong() > max) {
      throw ApiError.invalid(field, field + " must be a whole number " + min + ".." + max);
    }
    return v.asLong();
  }

  private static long seed(JsonNode body) {
    JsonNode v = body.get("seed");
    if (!v.isIntegralNumber()) {
      throw ApiError.invalid("seed", "seed must be a whole number");
    }
    return v.bigIntegerValue().longValue();
  }

  private static boolean bool(JsonNode body, String field) {
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      return false;
    }
    if (!v.isBoolean()) {
      throw ApiError.invalid(field, field + " must be true or false");
    }
    return v.asBoolean();
  }

  /** A client's text for an error message: at most 64 characters, control characters visible. */
  static String clip(String s) {
    String t = s.length() > 64 ? s.substring(0, 64) + "…" : s;
    return dev.strata.engine.text.TerminalText.escape(t);
  }
}
