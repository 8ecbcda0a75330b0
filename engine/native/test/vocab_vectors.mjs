// vocab_vectors.mjs — llama.cpp's own token ids for vocab_test.c (the reference behaviour of strata-ref's tokenizer).
// Run with node-llama-cpp 3.21.1 installed (npm i node-llama-cpp@3.21.1 in DIR):
//   NODE_PATH=DIR/node_modules node engine/native/test/vocab_vectors.mjs SHARED_DATA engine/native/test
// Writes two files into that folder:
//  - vocab_vectors.tsv: one line per case: vocab \t parse_special(0|1) \t escaped text \t ids (space-separated);
//    the texts are the fixed list below, then 150 random ones (a fixed seed) mixing the classes the
//    pre-tokenizers tell apart;
//  - vocab_val_digests.tsv: every document of models/val.jsonl through each vocabulary (parse_special off):
//    vocab \t document number (1-based) \t token count \t FNV-1a 64 of the ids as little-endian uint32, hex.
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
];

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
const out = [], digests = [];
for (const [file, pre] of cases) {
  let modelPath = path.join(shared, file);
  let name = file;
  if (pre) {
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
  docs.forEach((d, i) => {
    const ids = Array.from(model.tokenize(d, false));
    digests.push(`${name}\t${i + 1}\t${ids.length}\t${fnv64(ids)}`);
  });
  await model.dispose();
}
fs.rmSync(tmp, { recursive: true, force: true });
fs.writeFileSync(path.join(outDir, "vocab_vectors.tsv"), out.join("\n") + "\n");
fs.writeFileSync(path.join(outDir, "vocab_val_digests.tsv"), digests.join("\n") + "\n");
