package dev.strata.launcher.serve;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.interpret.FatalTemplateErrorsException;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A model's chat template: the GGUF's {@code tokenizer.chat_template} (Jinja, as Hugging Face
 * writes it) rendered by Jinjava with the model's special tokens ({@code bos_token}, {@code
 * eos_token}) and {@code add_generation_prompt}; a model without one, or whose template does not
 * render here, gets the plain fallback ({@link #FALLBACK_DOC}). docs/LAUNCH.md, "Chat templates".
 */
public final class ChatTemplate {

  /** One message of a conversation: its role (system, user, assistant) and its text. */
  public record Message(String role, String content) {
    public Message {
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(content, "content");
    }
  }

  /** What the fallback writes, for the docs and {@code /v1/models}. */
  public static final String FALLBACK_DOC =
      "each message as 'Role: content' on its own line (System:, User:, Assistant:), then"
          + " 'Assistant:' when a reply is asked for";

  /**
   * A conversation that exercises a template at start-up (a template that fails it is not used).
   */
  private static final List<Message> PROBE =
      List.of(
          new Message("system", "You are helpful."),
          new Message("user", "Hello"),
          new Message("assistant", "Hi."),
          new Message("user", "How are you?"));

  private final String template;
  private final String bos;
  private final String eos;
  private final String why;
  private final Jinjava jinja;

  private ChatTemplate(String template, String bos, String eos, String why) {
    // Jinja2 drops one trailing newline of the source (keep_trailing_newline is off)
    this.template =
        template != null && template.endsWith("\n")
            ? template.substring(0, template.length() - 1)
            : template;
    this.bos = bos;
    this.eos = eos;
    this.why = why;
    this.jinja = template == null ? null : newJinja();
  }

  /**
   * The template a model's metadata gives, checked by rendering a short conversation; the fallback
   * when {@code template} is null or blank, or when it does not render ({@link #why()} says which).
   *
   * @param bos the text of the model's BOS token ("" when it has none)
   * @param eos the text of its EOS token ("" when it has none)
   */
  public static ChatTemplate of(String template, String bos, String eos) {
    if (template == null || template.isBlank()) {
      return new ChatTemplate(null, bos, eos, "the model has no tokenizer.chat_template");
    }
    ChatTemplate t = new ChatTemplate(template, bos, eos, null);
    try {
      t.render(PROBE, true);
      return t;
    } catch (TemplateException e) {
      return new ChatTemplate(
          null, bos, eos, "the model's tokenizer.chat_template does not render: " + e.getMessage());
    }
  }

  /** "gguf" (the model's own template) or "fallback" (the plain one). */
  public String kind() {
    return template != null ? "gguf" : "fallback";
  }

  /** Why the fallback is used (null when the model's template is). */
  public String why() {
    return why;
  }

  /** The text of the BOS token the template was given. */
  public String bos() {
    return bos;
  }

  /**
   * The conversation as the model reads it.
   *
   * @param addGenerationPrompt end with the start of the assistant's turn (a reply is asked for)
   * @throws TemplateException when the template raises an error or does not render
   */
  public String render(List<Message> messages, boolean addGenerationPrompt) {
    if (template == null) {
      return fallback(messages, addGenerationPrompt);
    }
    List<Map<String, Object>> ms = new ArrayList<>();
    for (Message m : messages) {
      Map<String, Object> one = new LinkedHashMap<>();
      one.put("role", m.role());
      one.put("content", m.content());
      ms.add(one);
    }
    Map<String, Object> context = new HashMap<>();
    context.put("messages", ms);
    context.put("add_generation_prompt", addGenerationPrompt);
    context.put("bos_token", bos);
    context.put("eos_token", eos);
    RAISED.remove();
    try {
      var result = jinja.renderForResult(template, context);
      if (RAISED.get() != null) {
        throw new TemplateException(RAISED.get());
      }
      for (var e : result.getErrors()) {
        if (e.getSeverity() == com.hubspot.jinjava.interpret.TemplateError.ErrorType.FATAL) {
          throw new TemplateException(e.getMessage());
        }
      }
      return result.getOutput();
    } catch (FatalTemplateErrorsException e) {
      throw new TemplateException(e.getMessage());
    } catch (TemplateException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new TemplateException(RAISED.get() != null ? RAISED.get() : rootMessage(e));
    } finally {
      RAISED.remove();
    }
  }

  /** The plain fallback ({@link #FALLBACK_DOC}). */
  static String fallback(List<Message> messages, boolean addGenerationPrompt) {
    StringBuilder b = new StringBuilder();
    for (Message m : messages) {
      b.append(roleWord(m.role())).append(": ").append(m.content()).append('\n');
    }
    if (addGenerationPrompt) {
      b.append("Assistant:");
    }
    return b.toString();
  }

  private static String roleWord(String role) {
    return role.isEmpty()
        ? role
        : Character.toUpperCase(role.charAt(0))
            + role.substring(1).toLowerCase(java.util.Locale.ROOT);
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() != null ? t.getMessage() : t.toString();
  }

  private static Jinjava newJinja() {
    JinjavaConfig config =
        JinjavaConfig.newBuilder()
            // as Hugging Face's transformers compiles chat templates (trim_blocks, lstrip_blocks)
            .withTrimBlocks(true)
            .withLstripBlocks(true)
            .withFailOnUnknownTokens(false)
            .withMaxRenderDepth(16)
            .withMaxOutputSize(4L << 20)
            // Jinja2's rules, as Hugging Face's templates are written for them: {{- and -}} trim,
            // filters bind tighter than + and ~, whitespace control parsed as Jinja2 parses it
            .withLegacyOverrides(
                com.hubspot.jinjava.LegacyOverrides.newBuilder()
                    .withUseTrimmingForNotesAndExpressions(true)
                    .withUseNaturalOperatorPrecedence(true)
                    .withParseWhitespaceControlStrictly(true)
                    .withKeepNullableLoopValues(true)
                    .build())
            .build();
    Jinjava j = new Jinjava(config);
    // Hugging Face's template helpers: raise_exception(msg) and strftime_now(fmt)
    j.getGlobalContext()
        .registerFunction(
            new ELFunctionDefinition(
                "", "raise_exception", ChatTemplate.class, "raiseException", String.class));
    j.getGlobalContext()
        .registerFunction(
            new ELFunctionDefinition(
                "", "strftime_now", ChatTemplate.class, "strftimeNow", String.class));
    return j;
  }

  /** What the template's {@code raise_exception} said during this thread's render. */
  private static final ThreadLocal<String> RAISED = new ThreadLocal<>();

  /** {@code raise_exception(message)} of a template: the render fails with that message. */
  public static String raiseException(String message) {
    RAISED.set("the template raised: " + message);
    throw new TemplateException("the template raised: " + message);
  }

  /** {@code strftime_now(format)}: today's date; only the usual %d %b %Y %m %H %M are mapped. */
  public static String strftimeNow(String format) {
    java.time.ZonedDateTime now = java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC);
    String f = format;
    f = f.replace("%d", String.format("%02d", now.getDayOfMonth()));
    f = f.replace("%m", String.format("%02d", now.getMonthValue()));
    f = f.replace("%Y", Integer.toString(now.getYear()));
    f = f.replace("%H", String.format("%02d", now.getHour()));
    f = f.replace("%M", String.format("%02d", now.getMinute()));
    f =
        f.replace(
            "%b",
            now.getMonth()
                .getDisplayName(java.time.format.TextStyle.SHORT, java.util.Locale.ENGLISH));
    f =
        f.replace(
            "%B",
            now.getMonth()
                .getDisplayName(java.time.format.TextStyle.FULL, java.util.Locale.ENGLISH));
    return f;
  }

  /** A template that raised an error or could not be rendered. */
  public static final class TemplateException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TemplateException(String message) {
      super(message);
    }
  }
}
