#!/usr/bin/env node
// generate.mjs — llama.cpp's greedy (temperature 0) continuation, with the top-2 of every step.
import fs from "node:fs";
import { parseArgs, loadLlama, contextOptions, buildInfo, KV_TYPES } from "./lib.mjs";

const usage = `usage: generate.mjs --model F (--prompt TEXT | --prompt-tokens "ID ID ..." | --prompts-jsonl FILE) --n N [options]

Greedy decoding with llama.cpp (temperature 0: llama.cpp's greedy sampler, the first maximum wins),
exactly N new tokens (an end-of-generation token does not stop it unless --stop-at-eog). The prompt is
tokenized like tokenize.mjs (no BOS for add_bos=false models), evaluated in one batch; then one token per
step. At each step the two most likely tokens are printed with their log-probabilities (log-softmax of
llama.cpp's logits; their difference is the logit gap), so that near-ties show.

  --model F            GGUF file
  --prompt TEXT        prompt text
  --prompt-tokens IDS  prompt as token ids (space- or comma-separated) instead of text
  --prompts-jsonl FILE several prompts, one JSON object a line ({"name": ..., "text": ...}); one process,
                       a fresh KV cache each; prints one JSON line per prompt (implies --json)
  --n N                tokens to generate
  --kv TYPE            KV cache type (default f16): ${KV_TYPES.join("|")}
  --no-rot             LLAMA_ATTN_ROT_DISABLE=1
  --threads T          threads (default 2)
  --ctx N              context size (default: prompt + N rounded up to 256)
  --stop-at-eog        stop after an end-of-generation token
  --json               print one JSON object instead of the text report
  --out FILE           also write the JSON object (with --prompts-jsonl: the JSON lines) to FILE
  --verbose            llama.cpp's info logs on stderr
  -h, --help           this text

Text report (stdout): "prompt_tokens: ..." then one line per step
  "step <i> token <id> logprob <lp> | 2nd <id2> logprob <lp2> | gap <lp-lp2> | <piece as JSON string>"
then "tokens: ..." and "text: <JSON string>".
`;
const a = parseArgs(process.argv.slice(2), {
  model: { type: "string", required: true },
  prompt: { type: "string" },
  "prompt-tokens": { type: "string" },
  "prompts-jsonl": { type: "string" },
  n: { type: "int", required: true },
  kv: { type: "string", default: "f16", choices: KV_TYPES },
  "no-rot": { type: "bool", default: false },
  threads: { type: "int", default: 2 },
  ctx: { type: "int" },
  "stop-at-eog": { type: "bool", default: false },
  json: { type: "bool", default: false },
  out: { type: "string" },
  verbose: { type: "bool", default: false },
}, usage);
const given = [a.prompt, a["prompt-tokens"], a["prompts-jsonl"]].filter((x) => x !== undefined).length;
if (given !== 1) {
  process.stderr.write(`generate.mjs: give exactly one of --prompt, --prompt-tokens and --prompts-jsonl\n${usage}`);
  process.exit(2);
}
if (a["no-rot"]) process.env.LLAMA_ATTN_ROT_DISABLE = "1";
else delete process.env.LLAMA_ATTN_ROT_DISABLE;

const llama = await loadLlama({ threads: a.threads, verbose: a.verbose });
const model = await llama.loadModel({ modelPath: a.model, gpuLayers: 0 });
const jobs = [];
if (a["prompts-jsonl"] !== undefined) {
  for (const line of fs.readFileSync(a["prompts-jsonl"], "utf8").split("\n")) {
    if (!line.trim()) continue;
    const o = JSON.parse(line);
    jobs.push({ name: o.name ?? null, prompt: o.text });
  }
} else if (a.prompt !== undefined) jobs.push({ name: null, prompt: a.prompt });
else jobs.push({ name: null, prompt: null, ids: a["prompt-tokens"].split(/[\s,]+/).filter(Boolean).map((x) => Number.parseInt(x, 10)) });
const tokenizeJob = (j) => {
  if (j.ids) return j.ids;
  const ids = model.tokenize(j.prompt, false);
  return model.tokens.shouldPrependBosToken && model.tokens.bos != null ? [model.tokens.bos, ...ids] : ids;
};
const maxPrompt = Math.max(...jobs.map((j) => tokenizeJob(j).length));
const ctxSize = a.ctx ?? Math.ceil((maxPrompt + a.n + 1) / 256) * 256;
const context = await model.createContext(contextOptions({ ctx: ctxSize, batch: Math.max(maxPrompt, 1), threads: a.threads, kv: a.kv }));
const seq = context.getSequence();
const want = { generateNext: { token: true, probabilities: true, options: { temperature: 0 } } };

async function generate(job) {
  const promptTokens = tokenizeJob(job);
  if (promptTokens.length === 0) throw new Error("empty prompt");
  await seq.clearHistory();
  const steps = [];
  const generated = [];
  let input = promptTokens.map((t, i) => (i === promptTokens.length - 1 ? [t, want] : t));
  const t0 = performance.now();
  for (let i = 0; i < a.n; i++) {
    const out = await seq.controlledEvaluate(input);
    const next = out[input.length - 1]?.next;
    if (next?.token == null || !next.probabilities) throw new Error(`step ${i}: no token`);
    let sum = 0;
    for (const p of next.probabilities.values()) sum += p;
    const it = next.probabilities.entries(); // sorted, most likely first
    const [id1, p1] = it.next().value;
    const [id2, p2] = it.next().value;
    const lp1 = Math.log(p1 / sum);
    const lp2 = Math.log(p2 / sum);
    if (id1 !== next.token && p1 !== next.probabilities.get(next.token)) throw new Error(`step ${i}: greedy token ${next.token} is not the top one ${id1}`);
    const token = next.token;
    steps.push({ step: i, token, logprob: lp1, second: id2, second_logprob: lp2, gap: lp1 - lp2, piece: model.detokenize([token], true) });
    generated.push(token);
    if (a["stop-at-eog"] && model.isEogToken(token)) break;
    input = [[token, want]];
  }
  return {
    name: job.name,
    model: a.model,
    prompt: job.prompt,
    prompt_tokens: promptTokens,
    n: a.n,
    kv: a.kv,
    rotation: a["no-rot"] ? "disabled" : "llama.cpp default",
    threads: a.threads,
    ctx: ctxSize,
    tokens: generated,
    text: model.detokenize(generated, true),
    min_gap: Math.min(...steps.map((s) => s.gap)),
    steps,
    seconds: (performance.now() - t0) / 1000,
  };
}

const results = [];
for (const job of jobs) results.push(await generate(job));
const build = buildInfo(llama);
if (a["prompts-jsonl"] !== undefined || a.json) {
  for (const r of results) process.stdout.write(JSON.stringify(a["prompts-jsonl"] !== undefined ? r : { ...r, build }) + "\n");
} else {
  const r = results[0];
  const lines = [`prompt_tokens: ${r.prompt_tokens.join(" ")}`];
  for (const s of r.steps) {
    lines.push(`step ${s.step} token ${s.token} logprob ${s.logprob.toFixed(6)} | 2nd ${s.second} logprob ${s.second_logprob.toFixed(6)} | gap ${s.gap.toFixed(6)} | ${JSON.stringify(s.piece)}`);
  }
  lines.push(`tokens: ${r.tokens.join(" ")}`, `text: ${JSON.stringify(r.text)}`);
  process.stdout.write(lines.join("\n") + "\n");
}
if (a.out) {
  fs.writeFileSync(a.out, a["prompts-jsonl"] !== undefined
    ? results.map((r) => JSON.stringify(r)).join("\n") + "\n"
    : JSON.stringify({ ...results[0], build }, null, 2) + "\n");
}
await context.dispose();
await model.dispose();
await llama.dispose();
