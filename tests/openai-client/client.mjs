// tests/openai-client/client.mjs — the official openai client against strata-launch --serve.
//   node client.mjs BASE_URL MODEL PROMPT MAX_TOKENS
// Prints one JSON line: the completion's text, the chat completion's, the streamed chat's (its deltas
// joined), the models list and the chunk count; any error is thrown (exit 1).
import OpenAI from "openai";

const [baseURL, model, prompt, maxTokens] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey: process.env.STRATA_TEST_KEY || "none", maxRetries: 0 });
const n = Number(maxTokens);

const models = await client.models.list();
const completion = await client.completions.create({ model, prompt, max_tokens: n, temperature: 0 });
const chat = await client.chat.completions.create({
  model,
  messages: [{ role: "user", content: prompt }],
  max_tokens: n,
  temperature: 0,
});
const stream = await client.chat.completions.create({
  model,
  messages: [{ role: "user", content: prompt }],
  max_tokens: n,
  temperature: 0,
  stream: true,
});
let streamed = "";
let chunks = 0;
let finish = null;
for await (const chunk of stream) {
  chunks++;
  const c = chunk.choices[0];
  if (c?.delta?.content) streamed += c.delta.content;
  if (c?.finish_reason) finish = c.finish_reason;
}
console.log(
  JSON.stringify({
    models: models.data.map((m) => ({ id: m.id, chat_template: m.chat_template })),
    completion: completion.choices[0].text,
    completion_usage: completion.usage,
    chat: chat.choices[0].message.content,
    chat_finish: chat.choices[0].finish_reason,
    streamed,
    stream_finish: finish,
    chunks,
  }),
);
