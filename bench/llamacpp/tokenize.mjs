#!/usr/bin/env node
// tokenize.mjs — llama.cpp's tokenizer (llama_tokenize, add_special=false, parse_special=false).
import fs from "node:fs";
import readline from "node:readline";
import { parseArgs, loadLlama } from "./lib.mjs";

const usage = `usage: tokenize.mjs --model F (--text STRING | --jsonl FILE [--field NAME]) [--special] [--u16 OUT]

Prints llama.cpp's token ids, one line per input, space-separated: one line for --text, one per line of
the JSONL file for --jsonl (the string field --field, default "text"). No BOS/EOS is added (add_special
false); --special also parses special-token text such as <|endoftext|> (parse_special true).

  --model F      GGUF file (only its vocabulary is loaded)
  --text S       one text
  --jsonl FILE   one JSON object a line
  --field NAME   the field holding the text (default text)
  --special      parse special-token text
  --u16 OUT      also write all ids as little-endian uint16, each input followed by token 0 (val.u16's layout)
  -h, --help     this text
`;
const a = parseArgs(process.argv.slice(2), {
  model: { type: "string", required: true },
  text: { type: "string" },
  jsonl: { type: "string" },
  field: { type: "string", default: "text" },
  special: { type: "bool", default: false },
  u16: { type: "string" },
}, usage);
if ((a.text === undefined) === (a.jsonl === undefined)) {
  process.stderr.write(`tokenize.mjs: give exactly one of --text and --jsonl\n${usage}`);
  process.exit(2);
}
const llama = await loadLlama({ threads: 1 });
const model = await llama.loadModel({ modelPath: a.model, gpuLayers: 0, vocabOnly: true });
const all = [];
const emit = (text) => {
  const ids = model.tokenize(text, a.special);
  process.stdout.write(ids.join(" ") + "\n");
  if (a.u16) all.push(...ids, 0);
};
if (a.text !== undefined) emit(a.text);
else {
  const rl = readline.createInterface({ input: fs.createReadStream(a.jsonl), crlfDelay: Infinity });
  let n = 0;
  for await (const line of rl) {
    n++;
    if (!line.trim()) continue;
    const obj = JSON.parse(line);
    if (typeof obj[a.field] !== "string") throw new Error(`${a.jsonl}:${n}: no string field '${a.field}'`);
    emit(obj[a.field]);
  }
}
if (a.u16) {
  const buf = Buffer.alloc(2 * all.length);
  all.forEach((t, i) => {
    if (t > 0xffff) throw new Error(`token ${t} does not fit uint16`);
    buf.writeUInt16LE(t, 2 * i);
  });
  fs.writeFileSync(a.u16, buf);
}
await model.dispose();
await llama.dispose();
