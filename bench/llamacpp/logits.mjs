#!/usr/bin/env node
// logits.mjs — llama.cpp's teacher-forced next-token distributions, laid out exactly like llama-perplexity.
// See --help and README.md ("File formats").
import fs from "node:fs";
import { parseArgs, loadLlama, contextOptions, readTokens, buildInfo, KV_TYPES } from "./lib.mjs";

const usage = `usage: logits.mjs --model F --tokens FILE(.u16|.u32) --ctx N --chunks K [options] (--out FILE | --out-f32 FILE)

Teacher-forced evaluation exactly like llama-perplexity: chunk i is tokens[i*ctx, (i+1)*ctx), evaluated
from an empty KV cache; the next-token distribution is kept at positions first .. ctx-2 of each chunk
(first = ctx/2 unless --first), so (ctx-1-first) scored positions per chunk. No BOS is inserted (the
models here have add_bos=false; a model with add_bos=true would get llama-perplexity's BOS substitution).

  --model F        GGUF file
  --tokens FILE    token ids, little-endian uint16 (.u16) or uint32 (.u32)
  --ctx N          chunk length (= llama.cpp context size)
  --chunks K       number of chunks (tokens must hold K*N)
  --first N        first scored position (default ctx/2)
  --kv TYPE        KV cache type for K and V: ${KV_TYPES.join("|")} (default f16)
  --no-rot         disable llama.cpp's Hadamard rotation of quantized KV (sets LLAMA_ATTN_ROT_DISABLE=1)
  --threads T      threads (default 2)
  --batch B        llama.cpp batch = ubatch size (default 512, llama-perplexity's default n_ubatch)
  --out FILE       llama-perplexity --kl-divergence-base format ("_logits_", uint16 log-probs)
  --out-f32 FILE   float32 log-prob file ("_lpf32__", see README.md)
  --out-top FILE   also a small text table, one line per scored position (README.md, "File formats")
  --json FILE      also write a summary (PPL, timings, build) as JSON
  --verbose        llama.cpp's info logs on stderr
  -h, --help       this text

Prints one JSON summary line on stdout (n_scored, ppl, seconds, settings).
`;

const a = parseArgs(process.argv.slice(2), {
  model: { type: "string", required: true },
  tokens: { type: "string", required: true },
  ctx: { type: "int", required: true },
  chunks: { type: "int", required: true },
  first: { type: "int" },
  kv: { type: "string", default: "f16", choices: KV_TYPES },
  "no-rot": { type: "bool", default: false },
  threads: { type: "int", default: 2 },
  batch: { type: "int", default: 512 },
  out: { type: "string" },
  "out-f32": { type: "string" },
  "out-top": { type: "string" },
  json: { type: "string" },
  verbose: { type: "bool", default: false },
}, usage);

if (!a.out && !a["out-f32"] && !a["out-top"]) {
  process.stderr.write(`logits.mjs: give --out, --out-f32 and/or --out-top\n${usage}`);
  process.exit(2);
}
// Must be in the environment before the KV cache is created (llama.cpp reads it with getenv then).
if (a["no-rot"]) process.env.LLAMA_ATTN_ROT_DISABLE = "1";
else delete process.env.LLAMA_ATTN_ROT_DISABLE;

const nCtx = a.ctx;
const nChunk = a.chunks;
const first = a.first ?? Math.floor(nCtx / 2);
if (first < 0 || first > nCtx - 2) throw new Error(`--first must be in 0..ctx-2`);
const nScored = nCtx - 1 - first;
const allTokens = readTokens(a.tokens);
if (allTokens.length < nCtx * nChunk) throw new Error(`${a.tokens}: ${allTokens.length} tokens < ctx*chunks = ${nCtx * nChunk}`);
const tokens = allTokens.subarray(0, nCtx * nChunk);

const t0 = performance.now();
const llama = await loadLlama({ threads: a.threads, verbose: a.verbose });
const model = await llama.loadModel({ modelPath: a.model, gpuLayers: 0, useMmap: true });
const nVocab = model.fileInfo.metadata?.tokenizer?.ggml?.tokens?.length; // llama_vocab_n_tokens
if (!Number.isInteger(nVocab) || nVocab <= 0) throw new Error("could not read the vocabulary size");
if (model.tokens.shouldPrependBosToken) {
  process.stderr.write("logits.mjs: this model has add_bos=true; llama-perplexity replaces each chunk's first token with BOS — doing the same\n");
}
const bos = model.tokens.bos;
// contextSize ctx+1: node-llama-cpp keeps at most contextSize-1 tokens in a sequence (one more and it shifts
// the context), and the chunk must go in whole, see below. llama.cpp rounds the KV cache up to 256 cells;
// its size does not change any result (checked against the C API with n_ctx 1024 and 2048).
const context = await model.createContext(contextOptions({ ctx: nCtx + 1, batch: a.batch, threads: a.threads, kv: a.kv }));
if (context.flashAttention !== true) throw new Error(`flash attention not on (${context.flashAttention})`);
const seq = context.getSequence();
const tLoad = performance.now();

// --- llama.cpp's float arithmetic, emulated where it decides a stored bit ---------------------------
const f = Math.fround;
const MAGIC = f(12582912);
const nearestInt = (x) => f(f(x) + MAGIC) - MAGIC; // perplexity.cpp nearest_int: round half to even
const nv = 2 * Math.floor((nVocab + 1) / 2) + 4; // uint16 slots per scored token

// perplexity.cpp log_softmax(n_vocab, logits, log_prob, tok), writing one record of nv uint16 into rec.
function quantizeRecord(lp, rec) {
  let maxL = lp[0];
  let minL = lp[0];
  for (let i = 1; i < nVocab; i++) {
    if (lp[i] > maxL) maxL = lp[i];
    if (lp[i] < minL) minL = lp[i];
  }
  minL = Math.max(minL, f(maxL - 16));
  let sum = 0;
  for (let i = 0; i < nVocab; i++) sum += f(Math.exp(f(lp[i] - maxL)));
  const lse = f(Math.log(sum));
  const minLogProb = f(f(minL - maxL) - lse);
  const scale = f(f(maxL - minL) / 65535);
  const dv = new DataView(rec.buffer, rec.byteOffset, rec.byteLength);
  dv.setFloat32(0, scale, true);
  dv.setFloat32(4, minLogProb, true);
  const q = rec.subarray(4);
  q.fill(0);
  if (scale) {
    const inv = f(1 / scale);
    for (let i = 0; i < nVocab; i++) q[i] = lp[i] > minL ? nearestInt(f(inv * f(lp[i] - minL))) : 0;
  }
}

// --- outputs -------------------------------------------------------------------------------------------
function header(magic, ints) {
  const h = Buffer.alloc(8 + 4 * ints.length);
  h.write(magic, 0, "latin1");
  ints.forEach((v, i) => h.writeInt32LE(v, 8 + 4 * i));
  return h;
}
const tokBuf = Buffer.from(new Int32Array(tokens).buffer);
let fdQ = null;
let fdF = null;
if (a.out) {
  fdQ = fs.openSync(a.out, "w");
  fs.writeSync(fdQ, header("_logits_", [nCtx, nVocab, nChunk]));
  fs.writeSync(fdQ, tokBuf);
}
if (a["out-f32"]) {
  fdF = fs.openSync(a["out-f32"], "w");
  fs.writeSync(fdF, header("_lpf32__", [1, nCtx, nVocab, nChunk, first]));
  fs.writeSync(fdF, tokBuf);
}

const topLines = a["out-top"] ? ["# chunk\tpos\tnext\tnext_logprob\ttop1\ttop1_logprob\ttop2\ttop2_logprob"] : null;
function top2(lp) {
  let i1 = 0;
  for (let i = 1; i < nVocab; i++) if (lp[i] > lp[i1]) i1 = i;
  let i2 = i1 === 0 ? 1 : 0;
  for (let i = 0; i < nVocab; i++) if (i !== i1 && lp[i] > lp[i2]) i2 = i;
  return [i1, i2];
}
let nll = 0;
let count = 0;
const chunkSeconds = [];
const lpChunk = Array.from({ length: nScored }, () => new Float32Array(nVocab));
const recChunk = new Uint16Array(nScored * nv);
for (let c = 0; c < nChunk; c++) {
  const chunk = Array.from(tokens.subarray(c * nCtx, (c + 1) * nCtx));
  if (model.tokens.shouldPrependBosToken && bos != null) chunk[0] = bos;
  await seq.clearHistory();
  if (seq.nextTokenIndex !== 0) throw new Error("the sequence did not clear");
  const tc = performance.now();
  // The whole chunk, outputs at first..ctx-1, exactly llama-perplexity's batch (batch.logits = pos >= first;
  // position ctx-1 is computed and not scored). Shapes matter: with repacked quantized weights (Q4_K → q4_K_8x8
  // here) llama.cpp's matmuls take another kernel for the rows left over from a tile, so a last ubatch of 511
  // rows instead of 512 changes the last positions' rounding (and with MoE routing, sometimes an expert);
  // native/check.sh found exactly that.
  const input = chunk.map((t, p) => (p >= first
    ? [t, { generateNext: { probabilities: true, options: { temperature: 0 } } }]
    : t));
  const filled = new Uint8Array(nScored);
  await seq.controlledEvaluate(input, {
    onTokenResult(index, result) {
      const k = index - first;
      const probs = result.next.probabilities;
      if (k < 0 || k >= nScored || !probs) return;
      const lp = lpChunk[k];
      // node-llama-cpp's softmax sums in float (sum off by up to ~3e-5 for 8192 tokens): renormalize in
      // double so that the stored values are log-softmax(logits) to float precision
      let sum = 0;
      for (const p of probs.values()) sum += p;
      const lsum = Math.log(sum);
      lp.fill(-Infinity);
      for (const [id, p] of probs) lp[id] = Math.log(p) - lsum;
      filled[k] = 1;
      delete result.next.probabilities; // keep memory flat: controlledEvaluate also returns these objects
    },
  });
  chunkSeconds.push((performance.now() - tc) / 1000);
  // no context shift may have happened: the sequence must hold exactly the fed tokens, in order
  const held = seq.contextTokens;
  if (held.length !== nCtx || held[0] !== chunk[0] || held[nCtx - 1] !== chunk[nCtx - 1]) {
    throw new Error(`chunk ${c}: node-llama-cpp shifted the context (holds ${held.length} tokens)`);
  }
  for (let k = 0; k < nScored; k++) {
    if (!filled[k]) throw new Error(`chunk ${c}: no distribution for position ${first + k}`);
    const lp = lpChunk[k];
    nll -= lp[chunk[first + k + 1]];
    count++;
    if (fdQ !== null) quantizeRecord(lp, recChunk.subarray(k * nv, (k + 1) * nv));
    if (fdF !== null) fs.writeSync(fdF, new Uint8Array(lp.buffer, lp.byteOffset, lp.byteLength));
    if (topLines) {
      const next = chunk[first + k + 1];
      const [i1, i2] = top2(lp);
      topLines.push([c, first + k, next, lp[next].toFixed(6), i1, lp[i1].toFixed(6), i2, lp[i2].toFixed(6)].join("\t"));
    }
  }
  if (fdQ !== null) fs.writeSync(fdQ, new Uint8Array(recChunk.buffer));
  process.stderr.write(`[${c + 1}/${nChunk}] ppl=${Math.exp(nll / count).toFixed(4)} chunk_s=${chunkSeconds[c].toFixed(2)}\n`);
}
if (fdQ !== null) fs.closeSync(fdQ);
if (fdF !== null) fs.closeSync(fdF);
if (topLines) fs.writeFileSync(a["out-top"], topLines.join("\n") + "\n");

const summary = {
  model: a.model,
  tokens: a.tokens,
  ctx: nCtx,
  chunks: nChunk,
  first,
  n_vocab: nVocab,
  n_scored: count,
  kv: a.kv,
  rotation: a["no-rot"] ? "disabled" : "llama.cpp default",
  threads: a.threads,
  batch: a.batch,
  flash_attention: context.flashAttention,
  ppl: Math.exp(nll / count),
  seconds_load: (tLoad - t0) / 1000,
  seconds_eval: chunkSeconds.reduce((x, y) => x + y, 0),
  seconds_total: (performance.now() - t0) / 1000,
  cpu_seconds: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
  out: a.out ?? null,
  out_f32: a["out-f32"] ?? null,
  out_top: a["out-top"] ?? null,
  build: buildInfo(llama),
};
process.stdout.write(JSON.stringify(summary) + "\n");
if (a.json) fs.writeFileSync(a.json, JSON.stringify(summary, null, 2) + "\n");
await context.dispose();
await model.dispose();
await llama.dispose();
