// vocab_vectors.mjs — llama.cpp's own token ids for vocab_test.c (the reference behaviour of strata-ref's tokenizer).
// Run with node-llama-cpp 3.21.1 installed (npm i node-llama-cpp@3.21.1 in DIR):
//   NODE_PATH=DIR/node_modules node engine/native/test/vocab_vectors.mjs SHARED_DATA engine/native/test
// Writes two files into that folder:
//  - vocab_vectors.tsv: one line per case: vocab \t parse_special(0|1) \t escaped text \t ids (space-separated);
//    the texts are the fixed list below, then 150 random ones (a fixed seed) mixing the classes the
//    pre-tokenizers tell apart;
//  - vocab_val_digests.tsv: every document of models/val.jsonl through each vocabulary (parse_special off):
//    vocab \t document number (1-based) \t token count \t FNV-1a 64 of the ids as little-endian uint32, hex;
//  - vocab_specials.tsv: vocab \t BOS \t EOS \t EOT \t newline (-1: none) \t the end-of-generation ids.
// A vocab "X+qwenlike" is X rewritten as qwenlike() below says (vocab_test.c rewrites it the same way).
// "vocab" names a file under SHARED_DATA, or "gguf/ggml-vocab-gpt-neox.gguf+pre=X": that file with the key
// tokenizer.ggml.pre = X inserted as the first key (vocab_test.c derives the same file the same way).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const nlcPath = process.env.NLC_MODULE || "node-llama-cpp";
const { getLlama, LlamaLogLevel } = await import(require.resolve(nlcPath, { paths: (process.env.NODE_PATH || "").split(":") }));

const shared = process.argv[2] || "../shared/data";
const outDir = process.argv[3] || ".";

const texts = [
  "Hello world", " Hello world", "  Hello world", "Hello  world", "hello world ", "Hello\nworld", "\n", "\n\n", " \n \n",
  "", " ", "  ", "   ", "\t", "\t\t x", "a\r\nb", "a\n\n\nb", "line one\n  indented\n\ttabbed\n",
  "   leading spaces", "trailing spaces   ", "multiple    spaces    inside",
  "1", "12", "123", "1234", "12345", "1234567890", "3.14159", "x=1,234,567", " 42 apples", "v2.0.1-rc3",
  "I'm", "you're", "we've", "they'll", "he'd", "it's", "don't", "I'M YOU'RE WE'VE", "rock 'n' roll", "'s'", "''",
  "O'Reilly's", "the cat's 'toy'",
  "你好世界", "日本語のテキスト", "한국어 텍스트", "Привет, мир!", "Ünïcödé façade naïve", "ελληνικά", "עברית", "العربية",
  "🙂", "👍🏽 ok", "emoji 🎉🎉 party", "👨‍👩‍👧‍👦", "a😀b", "∑∫√∞ ≠ ≤", "€100 £50 ¥30", "©®™", "…—–", "\u00a0nbsp\u00a0",
  "\u2003em space", "\u3000ideographic", "x\u00b2 + y\u00b3", "\u0663\u0664 arabic digits", "combining e\u0301",
  "def foo(bar):\n    return bar * 2\n", "if (a && b) { c++; }", "<html><body>Hi</body></html>", "a/b\\c|d",
  "$HOME ~/.config", "!!!???", "...", "--flag=value", "http://example.com/path?q=1&r=2", "snake_case camelCase",
  "   \n\n   ", "a  \n  b", "end\n ", "Tab\tseparated\tvalues", "MiXeD CaSe WoRdS",
  "<s>hello</s>", "<unk>", "</s> after", "<|endoftext|>", "a<|endoftext|>b", "<|padding|>x", "text <|endoftext|> text",
  "The quick brown fox jumps over the lazy dog.", "Don't stop believing! It's 2024, isn't it?",
  "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nHi!<|im_end|>\n",
  "<|im_start|>system\nYou are helpful.<|im_end|>", " <|im_end|> ", "<|im_end|><|im_end|>", "<|im_end|",
  "<tool_call>{\"name\": \"f\"}</tool_call>", "<think>reasoning</think>answer", "<|fim_prefix|>def f():<|fim_suffix|>\n<|fim_middle|>",
  "<|repo_name|>x<|file_sep|>y", "<|box_unused|>", "<thinking>", "x<think>y</think>z",
  "e\u0301t\u00e9 na\u0308ive", " \u0301alone", "\u0301\u0302\u0303", "a\u0301,\u0301", "\u0915\u094d\u0937 \u0939\u093f\u0928\u094d\u0926\u0940",
  "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22", "x\u20dd", "1\u0301 2",
];

// Random texts: pieces drawn from pools of the classes that matter (xorshift32, seed fixed).
let seed = 0x2545f491;
function rnd(n) {
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed % n;
}
const pools = [
  ["a", "b", "Z", "the", "Hello", "WORLD", "x", "Qu", "ing"],
  ["0", "1", "42", "123", "9999", "2024", "3.5", "07"],
  [" ", " ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", "\r", " \n", "\u000b", "\f"],
  ["'", "'s", "'S", "'t", "'re", "'VE", "'m", "'ll", "'D", "'x", "n't"],
  [".", ",", "!", "?", "-", "--", "(", ")", "[", "]", "{", "}", ":", ";", "\"", "/", "\\", "|", "_", "#", "@", "&", "*",
   "+", "=", "<", ">", "^", "~", "`", "$", "%"],
  ["é", "ß", "Жук", "ñ", "Ωmega", "中文", "日本", "한", "ا", "ğ", "ǅ", "İ", "ﬁ"],
  ["٣", "²", "½", "Ⅻ", "𝟘", "٤٥"],
  ["\u00a0", "\u2003", "\u3000", "\u0085", "\u2028", "\u200b", "\u200d", "\ufeff"],
  ["🙂", "👍🏽", "🎉", "👨‍👩‍👧", "€", "©", "∑", "→", "♥", "\u0301", "\u0308", "\ue000"],
  ["<s>", "</s>", "<unk>", "<|endoftext|>", "<|padding|>", "<|endoftext", "|>"],
];
for (let i = 0; i < 150; i++) {
  let t = "";
  const parts = 1 + rnd(24);
  for (let k = 0; k < parts; k++) {
    const pool = pools[rnd(pools.length)];
    t += pool[rnd(pool.length)];
  }
  texts.push(t);
}

const cases = [
  ["gguf/ggml-vocab-llama.gguf", null],
  ["gguf/ggml-vocab-gpt-neox.gguf", null],
  ["models/tiny-qwen3-q8_0.gguf", null],
  ["gguf/ggml-vocab-gpt-neox.gguf", "gpt-2"],
  ["gguf/ggml-vocab-gpt-neox.gguf", "llama-bpe"],
  ["gguf/ggml-vocab-gpt-neox.gguf", "qwen2"],
  ["gguf/ggml-vocab-gpt-neox.gguf", "qwen35"],
  ["models/tiny-qwen3-q8_0.gguf", "qwenlike"],
];

// "qwenlike": the tiny model's tokenizer as a Qwen-family GGUF has it: pre "qwen2" and, in place of its last
// 14 tokens, Qwen's control (3) and user-defined (4) tokens. All keys kept in order, no tensors.
const QWENLIKE = [
  ["<|im_start|>", 3], ["<|im_end|>", 3], ["<|fim_prefix|>", 3], ["<|fim_middle|>", 3], ["<|fim_suffix|>", 3],
  ["<|fim_pad|>", 3], ["<|repo_name|>", 3], ["<|file_sep|>", 3], ["<|box_unused|>", 3], ["<|vision_pad|>", 3],
  ["<tool_call>", 4], ["</tool_call>", 4], ["<think>", 4], ["</think>", 4],
];
const SCALAR = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
function qwenlike(src, dst) {
  const b = fs.readFileSync(src);
  let o = 0;
  const u32 = () => { const v = b.readUInt32LE(o); o += 4; return v; };
  const u64 = () => { const v = Number(b.readBigUInt64LE(o)); o += 8; return v; };
  const str = () => { const n = u64(); const s = b.subarray(o, o + n); o += n; return s; };
  const parts = [];
  const w64 = (v) => { const x = Buffer.alloc(8); x.writeBigUInt64LE(BigInt(v)); parts.push(x); };
  const w32 = (v) => { const x = Buffer.alloc(4); x.writeUInt32LE(v >>> 0); parts.push(x); };
  const wstr = (s) => { w64(s.length); parts.push(Buffer.from(s)); };
  o = 4;
  const version = u32();
  u64(); // tensors: dropped
  const nkv = u64();
  parts.push(Buffer.from("GGUF")); w32(version); w64(0); w64(nkv);
  for (let k = 0; k < nkv; k++) {
    const key = str().toString();
    const t = u32();
    wstr(key); w32(t);
    if (t === 8) {
      const s = str();
      wstr(key === "tokenizer.ggml.pre" ? Buffer.from("qwen2") : s);
    } else if (t === 9) {
      const at = u32(), n = u64();
      w32(at); w64(n);
      for (let i = 0; i < n; i++) {
        const j = i - (n - QWENLIKE.length);
        if (at === 8) {
          const s = str();
          wstr(key === "tokenizer.ggml.tokens" && j >= 0 ? Buffer.from(QWENLIKE[j][0]) : s);
        } else {
          const e = b.subarray(o, o + SCALAR[at]); o += SCALAR[at];
          if (key === "tokenizer.ggml.token_type" && j >= 0) w32(QWENLIKE[j][1]); else parts.push(Buffer.from(e));
        }
      }
    } else {
      parts.push(Buffer.from(b.subarray(o, o + SCALAR[t]))); o += SCALAR[t];
    }
  }
  let out = Buffer.concat(parts);
  out = Buffer.concat([out, Buffer.alloc((32 - (out.length % 32)) % 32)]);
  fs.writeFileSync(dst, out);
}

// The vocab file with tokenizer.ggml.pre inserted as the first key, padded to 32 bytes.
function derive(src, pre, dst) {
  const b = fs.readFileSync(src);
  const nkv = b.readBigUInt64LE(16);
  const key = Buffer.from("tokenizer.ggml.pre"), val = Buffer.from(pre);
  const kv = Buffer.alloc(8 + key.length + 4 + 8 + val.length);
  let o = 0;
  o = kv.writeBigUInt64LE(BigInt(key.length), o); o += key.copy(kv, o);
  o = kv.writeUInt32LE(8, o);
  o = kv.writeBigUInt64LE(BigInt(val.length), o); val.copy(kv, o);
  const head = Buffer.from(b.subarray(0, 24));
  head.writeBigUInt64LE(nkv + 1n, 16);
  let out = Buffer.concat([head, kv, b.subarray(24)]);
  const pad = (32 - (out.length % 32)) % 32;
  out = Buffer.concat([out, Buffer.alloc(pad)]);
  fs.writeFileSync(dst, out);
}

function esc(s) {
  let r = "";
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (ch === "\\") r += "\\\\";
    else if (ch === "\t") r += "\\t";
    else if (ch === "\n") r += "\\n";
    else if (ch === "\r") r += "\\r";
    else if (c < 0x20 || c === 0x7f) r += "\\x" + c.toString(16).padStart(2, "0");
    else r += ch;
  }
  return r;
}

function fnv64(ids) {
  let h = 0xcbf29ce484222325n;
  const p = 0x100000001b3n, mask = (1n << 64n) - 1n;
  for (const id of ids) {
    for (let b = 0; b < 4; b++) {
      h ^= BigInt((id >>> (8 * b)) & 0xff);
      h = (h * p) & mask;
    }
  }
  return h.toString(16).padStart(16, "0");
}
const docs = fs.readFileSync(path.join(shared, "models/val.jsonl"), "utf8").split("\n").filter((l) => l.trim())
  .map((l) => JSON.parse(l).text);

const llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.error });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vocab-vectors-"));
const out = [], digests = [], specials = [];
for (const [file, pre] of cases) {
  let modelPath = path.join(shared, file);
  let name = file;
  if (pre === "qwenlike") {
    name = `${file}+qwenlike`;
    const dst = path.join(tmp, "derived-qwenlike.gguf");
    qwenlike(modelPath, dst);
    modelPath = dst;
  } else if (pre) {
    name = `${file}+pre=${pre}`;
    const dst = path.join(tmp, `derived-${pre}.gguf`);
    derive(modelPath, pre, dst);
    modelPath = dst;
  }
  const model = await llama.loadModel({ modelPath, vocabOnly: true });
  for (const special of [false, true]) {
    for (const t of texts) {
      // node-llama-cpp returns [] for "" without calling llama.cpp; llama.cpp also gives [] (add_special is off).
      const ids = model.tokenize(t, special);
      out.push(`${name}\t${special ? 1 : 0}\t${esc(t)}\t${Array.from(ids).join(" ")}`);
    }
  }
  // llama.cpp's special ids and its end-of-generation set (llama_vocab_is_eog over every id)
  const n = model.fileInfo.metadata.tokenizer.ggml.tokens.length;
  const eog = [];
  for (let i = 0; i < n; i++) if (model._model.isEogToken(i)) eog.push(i);
  const id = (t) => (t == null ? -1 : t);
  specials.push(`${name}\t${id(model.tokens.bos)}\t${id(model.tokens.eos)}\t${id(model.tokens.eot)}\t${id(model.tokens.nl)}\t${eog.join(" ")}`);
  docs.forEach((d, i) => {
    const ids = Array.from(model.tokenize(d, false));
    digests.push(`${name}\t${i + 1}\t${ids.length}\t${fnv64(ids)}`);
  });
  await model.dispose();
}
fs.rmSync(tmp, { recursive: true, force: true });
fs.writeFileSync(path.join(outDir, "vocab_vectors.tsv"), out.join("\n") + "\n");
fs.writeFileSync(path.join(outDir, "vocab_val_digests.tsv"), digests.join("\n") + "\n");
fs.writeFileSync(path.join(outDir, "vocab_specials.tsv"), specials.join("\n") + "\n");
