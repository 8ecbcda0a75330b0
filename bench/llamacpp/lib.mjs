// lib.mjs — what the bench/llamacpp scripts share: a small argument parser, loading llama.cpp through
// node-llama-cpp's CPU build (never a GPU, never a download or a source build), reading token files.
import fs from "node:fs";
import path from "node:path";

/** The KV cache types the scripts accept (llama.cpp's ggml type names). */
export const KV_TYPES = ["f16", "f32", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "iq4_nl"];

/**
 * Parses argv against a spec {name: {type: "string"|"int"|"bool", default?, required?}}.
 * "--name value" and "--name=value"; "--help"/"-h" prints usage and exits 0; errors exit 2.
 */
export function parseArgs(argv, spec, usage) {
  const out = {};
  for (const [k, v] of Object.entries(spec)) if (v.default !== undefined) out[k] = v.default;
  const die = (msg) => {
    process.stderr.write(`${path.basename(process.argv[1])}: ${msg}\n${usage}`);
    process.exit(2);
  };
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i];
    if (a === "--help" || a === "-h") {
      process.stdout.write(usage);
      process.exit(0);
    }
    if (!a.startsWith("--")) die(`unexpected argument '${a}'`);
    let val;
    const eq = a.indexOf("=");
    if (eq > 0) {
      val = a.slice(eq + 1);
      a = a.slice(0, eq);
    }
    const name = a.slice(2);
    const s = spec[name];
    if (!s) die(`unknown option '${a}'`);
    if (s.type === "bool") {
      if (val !== undefined) die(`option '${a}' takes no value`);
      out[name] = true;
      continue;
    }
    if (val === undefined) {
      if (i + 1 >= argv.length) die(`option '${a}' needs a value`);
      val = argv[++i];
    }
    if (s.type === "int") {
      if (!/^-?[0-9]+$/.test(val)) die(`option '${a}' needs an integer, got '${val}'`);
      val = Number.parseInt(val, 10);
    }
    if (s.choices && !s.choices.includes(val)) die(`option '${a}': '${val}' is not one of ${s.choices.join(", ")}`);
    if (s.multi) (out[name] ??= []).push(val);
    else out[name] = val;
  }
  for (const [k, v] of Object.entries(spec)) if (v.required && out[k] === undefined) die(`missing --${k}`);
  return out;
}

/**
 * Loads llama.cpp: the prebuilt CPU binary shipped in @node-llama-cpp/<platform> (gpu: false), no build
 * from source and no download, ever. Logs go to stderr (warnings and errors only unless verbose).
 */
export async function loadLlama({ threads, verbose = false, onLog = null }) {
  const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");
  // onLog(level, message) sees every message at info level and above; only warnings and errors (or all,
  // with verbose) go on to stderr
  const show = (level) => verbose || level === "warn" || level === "error" || level === "fatal";
  const llama = await getLlama({
    gpu: false,
    build: "never",
    usePrebuiltBinaries: true,
    skipDownload: true,
    progressLogs: false,
    maxThreads: threads,
    logLevel: verbose || onLog ? LlamaLogLevel.info : LlamaLogLevel.warn,
    logger: (level, message) => {
      if (onLog) onLog(level, message);
      // logits.mjs's contextSize ctx+1 rounds up past the training context; harmless (no context shift,
      // no RoPE scaling involved), so not shown
      if (/n_ctx_seq \(\d+\) > n_ctx_train/.test(message) && !verbose) return;
      if (show(level)) process.stderr.write(`[llama.cpp ${level}] ${message.endsWith("\n") ? message : message + "\n"}`);
    },
  });
  if (llama.gpu !== false) throw new Error(`expected the CPU build, got gpu=${llama.gpu}`);
  return llama;
}

/** Context options: flash attention on, fixed threads, KV type for both K and V. */
export function contextOptions({ ctx, batch, threads, kv, sequences = 1 }) {
  return {
    contextSize: ctx,
    batchSize: batch,
    sequences,
    flashAttention: true,
    threads: { ideal: threads, min: threads },
    experimentalKvCacheKeyType: kv.toUpperCase(),
    experimentalKvCacheValueType: kv.toUpperCase(),
    ignoreMemorySafetyChecks: true,
    failedCreationRemedy: false,
  };
}

/** Reads a token file: .u16 (little-endian uint16) or .u32 (little-endian uint32); returns Uint32Array. */
export function readTokens(file) {
  const buf = fs.readFileSync(file);
  if (file.endsWith(".u16")) {
    if (buf.length % 2) throw new Error(`${file}: odd size for a .u16 file`);
    const out = new Uint32Array(buf.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = buf.readUInt16LE(2 * i);
    return out;
  }
  if (file.endsWith(".u32")) {
    if (buf.length % 4) throw new Error(`${file}: size not a multiple of 4 for a .u32 file`);
    const out = new Uint32Array(buf.length / 4);
    for (let i = 0; i < out.length; i++) out[i] = buf.readUInt32LE(4 * i);
    return out;
  }
  throw new Error(`${file}: token file must end in .u16 or .u32`);
}

/** A description of the llama.cpp build in use, for results files. */
export function buildInfo(llama) {
  return {
    nodeLlamaCpp: "3.21.1",
    llamaCppRelease: llama.llamaCppRelease,
    buildType: llama.buildType,
    gpu: llama.gpu,
    systemInfo: llama.systemInfo.trim(),
    cpuMathCores: llama.cpuMathCores,
    env: { LLAMA_ATTN_ROT_DISABLE: process.env.LLAMA_ATTN_ROT_DISABLE ?? null },
  };
}
