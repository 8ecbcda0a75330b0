// vocab_vectors.mjs — llama.cpp's own token ids for vocab_test.c (the reference behaviour of strata-ref's tokenizer).
// Run with node-llama-cpp 3.21.1 installed (npm i node-llama-cpp@3.21.1 in DIR):
//   NODE_PATH=DIR/node_modules node engine/native/test/vocab_vectors.mjs SHARED_DATA > engine/native/test/vocab_vectors.tsv
// Output: one line per case: vocab \t parse_special(0|1) \t escaped text \t ids (space-separated).
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

const llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.error });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vocab-vectors-"));
const out = [];
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
  await model.dispose();
}
fs.rmSync(tmp, { recursive: true, force: true });
process.stdout.write(out.join("\n") + "\n");
