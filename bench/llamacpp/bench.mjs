#!/usr/bin/env node
// bench.mjs — llama.cpp's prefill and decode speed on the CPU, as llama.cpp itself times them.
import fs from "node:fs";
import { parseArgs, loadLlama, contextOptions, readTokens, buildInfo, KV_TYPES } from "./lib.mjs";

const usage = `usage: bench.mjs --model F [--threads T] [--prompt-tokens P] [--n-predict N] [--repeat R] [options]

Each repetition, from an empty KV cache: prefill P prompt tokens (batches of --batch), then decode N tokens
greedily one at a time. Speeds are llama.cpp's own (llama_perf_context: "prompt eval" = the decode calls
with more than one token, "eval" = the one-token calls; time inside llama_decode only), and also wall time
around node-llama-cpp's calls (which adds the JS round trip and greedy sampling per token). One JSON
object on stdout: settings, the build, every repetition, and the medians.

  --model F          GGUF file
  --threads T        threads (default 2)
  --prompt-tokens P  prompt length (default 512)
  --n-predict N      tokens to decode (default 128)
  --repeat R         repetitions (default 3); a warm-up run of 16+8 tokens comes first
  --tokens FILE      take the prompt from this token file (.u16/.u32); default: synthetic ids (i*7919+13) mod n_vocab
  --kv TYPE          KV cache type (default f16): ${KV_TYPES.join("|")}
  --no-rot           LLAMA_ATTN_ROT_DISABLE=1
  --batch B          batch = ubatch size for the prefill (default min(P, 512))
  --out FILE         also write the JSON there
  -h, --help         this text
`;
const a = parseArgs(process.argv.slice(2), {
  model: { type: "string", required: true },
  threads: { type: "int", default: 2 },
  "prompt-tokens": { type: "int", default: 512 },
  "n-predict": { type: "int", default: 128 },
  repeat: { type: "int", default: 3 },
  tokens: { type: "string" },
  kv: { type: "string", default: "f16", choices: KV_TYPES },
  "no-rot": { type: "bool", default: false },
  batch: { type: "int" },
  out: { type: "string" },
}, usage);
if (a["no-rot"]) process.env.LLAMA_ATTN_ROT_DISABLE = "1";
else delete process.env.LLAMA_ATTN_ROT_DISABLE;
const P = a["prompt-tokens"];
const N = a["n-predict"];
if (P < 2 || N < 1 || a.repeat < 1) throw new Error("need --prompt-tokens >= 2, --n-predict >= 1, --repeat >= 1");

let perfLines = [];
const llama = await loadLlama({
  threads: a.threads,
  onLog: (level, message) => {
    if (message.includes("llama_perf_context_print")) perfLines.push(message);
  },
});
const model = await llama.loadModel({ modelPath: a.model, gpuLayers: 0 });
const nVocab = model.fileInfo.metadata?.tokenizer?.ggml?.tokens?.length;
const prompt = a.tokens
  ? Array.from(readTokens(a.tokens).subarray(0, P))
  : Array.from({ length: P }, (_, i) => (i * 7919 + 13) % nVocab);
if (prompt.length < P) throw new Error(`${a.tokens}: fewer than ${P} tokens`);
const batch = a.batch ?? Math.min(P, 512);
const ctxSize = Math.ceil((P + N + 1) / 256) * 256;
const context = await model.createContext({ ...contextOptions({ ctx: ctxSize, batch, threads: a.threads, kv: a.kv }), performanceTracking: true });
const seq = context.getSequence();
const greedy = { generateNext: { token: true, options: { temperature: 0 } } };

function parsePerf(lines) {
  const text = lines.join("\n");
  const pe = /prompt eval time =\s*([0-9.]+) ms \/\s*(\d+) tokens/.exec(text);
  const ev = /print:\s+eval time =\s*([0-9.]+) ms \/\s*(\d+) runs/.exec(text);
  return {
    prompt_ms: pe ? Number(pe[1]) : null,
    prompt_tokens: pe ? Number(pe[2]) : null,
    eval_ms: ev ? Number(ev[1]) : null,
    eval_runs: ev ? Number(ev[2]) : null,
  };
}

async function run(p, n) {
  await seq.clearHistory();
  perfLines = [];
  await context.printTimings(); // resets llama.cpp's counters
  perfLines = [];
  const t0 = performance.now();
  const out = await seq.controlledEvaluate(p.map((t, i) => (i === p.length - 1 ? [t, greedy] : t)));
  const t1 = performance.now();
  let tok = out[p.length - 1].next.token;
  for (let i = 1; i < n; i++) {
    const o = await seq.controlledEvaluate([[tok, greedy]]);
    tok = o[0].next.token;
  }
  // the last sampled token is not evaluated: n decode calls = the prompt's last logits + (n-1) one-token calls
  const t2 = performance.now();
  await context.printTimings();
  const perf = parsePerf(perfLines);
  return {
    ...perf,
    prefill_tok_s: perf.prompt_ms ? (1000 * perf.prompt_tokens) / perf.prompt_ms : null,
    decode_tok_s: perf.eval_ms ? (1000 * perf.eval_runs) / perf.eval_ms : null,
    wall_prefill_s: (t1 - t0) / 1000,
    wall_decode_s: (t2 - t1) / 1000,
    wall_prefill_tok_s: (1000 * p.length) / (t1 - t0),
    wall_decode_tok_s: n > 1 ? (1000 * (n - 1)) / (t2 - t1) : null,
  };
}

await run(prompt.slice(0, 16), 8); // warm-up
const reps = [];
for (let r = 0; r < a.repeat; r++) reps.push(await run(prompt, N));
const median = (xs) => {
  const v = xs.filter((x) => x != null).sort((x, y) => x - y);
  if (!v.length) return null;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};
const result = {
  model: a.model,
  threads: a.threads,
  prompt_tokens: P,
  n_predict: N,
  batch,
  kv: a.kv,
  rotation: a["no-rot"] ? "disabled" : "llama.cpp default",
  flash_attention: context.flashAttention,
  prompt_source: a.tokens ?? "synthetic",
  median: {
    prefill_tok_s: median(reps.map((x) => x.prefill_tok_s)),
    decode_tok_s: median(reps.map((x) => x.decode_tok_s)),
    wall_prefill_tok_s: median(reps.map((x) => x.wall_prefill_tok_s)),
    wall_decode_tok_s: median(reps.map((x) => x.wall_decode_tok_s)),
  },
  repetitions: reps,
  build: buildInfo(llama),
};
process.stdout.write(JSON.stringify(result, null, 2) + "\n");
if (a.out) fs.writeFileSync(a.out, JSON.stringify(result, null, 2) + "\n");
await context.dispose();
await model.dispose();
await llama.dispose();
