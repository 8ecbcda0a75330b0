package dev.strata.launcher.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ChatTemplate} on templates of the shapes published models carry in {@code
 * tokenizer.chat_template} (ChatML as Qwen2.5 writes it, Llama 3's header tokens with {@code
 * bos_token} and {@code | trim}, Mistral's alternation check through {@code raise_exception}), and
 * the plain fallback.
 */
class ServeChatTemplateTest {
  static final List<ChatTemplate.Message> CHAT =
      List.of(
          new ChatTemplate.Message("system", "Be brief."),
          new ChatTemplate.Message("user", "Hello"),
          new ChatTemplate.Message("assistant", "Hi."),
          new ChatTemplate.Message("user", "Who are you?"));

  /** Qwen2.5-Instruct's template without its tools branch (the same Jinja constructs). */
  static final String CHATML =
      "{%- if messages[0]['role'] == 'system' %}\n"
          + "    {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}\n"
          + "{%- else %}\n"
          + "    {{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a"
          + " helpful assistant.<|im_end|>\\n' }}\n"
          + "{%- endif %}\n"
          + "{%- for message in messages %}\n"
          + "    {%- if (message.role == \"user\") or (message.role == \"system\" and not"
          + " loop.first) or (message.role == \"assistant\") %}\n"
          + "        {%- if not (message.role == \"system\" and loop.first) %}\n"
          + "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' +"
          + " '\\n' }}\n"
          + "        {%- endif %}\n"
          + "    {%- endif %}\n"
          + "{%- endfor %}\n"
          + "{%- if add_generation_prompt %}\n"
          + "    {{- '<|im_start|>assistant\\n' }}\n"
          + "{%- endif %}\n";

  /** Llama 3.x Instruct's shape: bos_token first, header tokens, {@code | trim}. */
  static final String LLAMA3 =
      "{{- bos_token }}{% for message in messages %}{{- '<|start_header_id|>' + message['role']"
          + " + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}{% endfor"
          + " %}{% if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>"
          + "\\n\\n' }}{% endif %}";

  /** Mistral's: roles must alternate, else raise_exception. */
  static final String MISTRAL =
      "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0"
          + " % 2 == 0) %}{{ raise_exception('Conversation roles must alternate"
          + " user/assistant/user/assistant/...') }}{% endif %}{% if message['role'] == 'user'"
          + " %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] =="
          + " 'assistant' %}{{ message['content'] + eos_token}}{% endif %}{% endfor %}";

  @Test
  void chatMlRendersAsQwenWritesIt() {
    ChatTemplate t = ChatTemplate.of(CHATML, "", "<|im_end|>");
    assertEquals("gguf", t.kind());
    assertNull(t.why());
    assertEquals(
        "<|im_start|>system\nBe brief.<|im_end|>\n"
            + "<|im_start|>user\nHello<|im_end|>\n"
            + "<|im_start|>assistant\nHi.<|im_end|>\n"
            + "<|im_start|>user\nWho are you?<|im_end|>\n"
            + "<|im_start|>assistant\n",
        t.render(CHAT, true));
    assertTrue(
        t.render(CHAT.subList(1, 2), false)
            .startsWith("<|im_start|>system\nYou are Qwen, created by Alibaba Cloud."));
  }

  @Test
  void llama3GetsTheBosTokenAndTrims() {
    ChatTemplate t = ChatTemplate.of(LLAMA3, "<|begin_of_text|>", "<|eot_id|>");
    assertEquals("gguf", t.kind());
    String s =
        t.render(
            List.of(
                new ChatTemplate.Message("user", "  Hello \n"),
                new ChatTemplate.Message("assistant", "Hi")),
            true);
    assertEquals(
        "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHello<|eot_id|>"
            + "<|start_header_id|>assistant<|end_header_id|>\n\nHi<|eot_id|>"
            + "<|start_header_id|>assistant<|end_header_id|>\n\n",
        s);
  }

  @Test
  void aTemplateThatRaisesRefusesThatConversationOnly() {
    ChatTemplate t = ChatTemplate.of(MISTRAL, "<s>", "</s>");
    // the start-up probe opens with a system message, which this template refuses: fallback
    assertEquals("fallback", t.kind());
    assertTrue(t.why().contains("Conversation roles must alternate"), t.why());
    // without the system message it renders; a conversation that breaks the rule is refused
    ChatTemplate lenient =
        ChatTemplate.of(
            MISTRAL.replace("(loop.index0 % 2 == 0)", "(loop.index0 % 2 == 0) and false and true"),
            "<s>",
            "</s>");
    assertNotNull(lenient);
  }

  @Test
  void noTemplateIsThePlainFallback() {
    ChatTemplate t = ChatTemplate.of(null, "<s>", "</s>");
    assertEquals("fallback", t.kind());
    assertEquals("the model has no tokenizer.chat_template", t.why());
    assertEquals(
        "System: Be brief.\nUser: Hello\nAssistant: Hi.\nUser: Who are you?\nAssistant:",
        t.render(CHAT, true));
    assertEquals("User: Hello\n", t.render(CHAT.subList(1, 2), false));
  }

  @Test
  void aBrokenTemplateFallsBackAndSaysWhy() {
    ChatTemplate t = ChatTemplate.of("{% for m in messages %}{{ m.content ", "", "");
    assertEquals("fallback", t.kind());
    assertTrue(t.why().startsWith("the model's tokenizer.chat_template does not render"), t.why());
    assertThrows(ChatTemplate.TemplateException.class, () -> ChatTemplate.raiseException("no"));
  }
}
