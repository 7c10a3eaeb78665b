// Secondary reference: @huggingface/jinja's Template(...).render, with the same template lookup,
// special tokens and variable layering as render_jinja2.py. Needs NODE_PATH-free resolution, so
// it imports the package from the path given by TS_ORACLES (the .oracles folder).
// Usage: node render_hfjinja.mjs -m DIR --jsonl FILE [--add-generation-prompt]
// Prints one JSON string per line, or null when rendering threw (message on stderr).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const oracles = process.env.TS_ORACLES || path.join(path.dirname(new URL(import.meta.url).pathname), "../../.oracles");
const { Template } = await import(pathToFileURL(path.join(oracles, "node_modules/@huggingface/jinja/dist/index.js")).href);

const SPECIAL = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"];
const argv = process.argv.slice(2);
let dir = null, jsonl = null, gen = false;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "-m" || argv[i] === "--model") dir = argv[++i];
  else if (argv[i] === "--jsonl") jsonl = argv[++i];
  else if (argv[i] === "--add-generation-prompt") gen = true;
}
let cfg = {};
let source = null;
const cfgPath = path.join(dir, "tokenizer_config.json");
if (fs.existsSync(cfgPath)) {
  cfg = JSON.parse(fs.readFileSync(cfgPath, "utf8"));
  let t = cfg.chat_template;
  if (Array.isArray(t)) t = t.find((e) => e.name === "default").template;
  if (typeof t === "string") source = t;
}
if (source === null && fs.existsSync(path.join(dir, "chat_template.jinja")))
  source = fs.readFileSync(path.join(dir, "chat_template.jinja"), "utf8");
if (source === null) source = JSON.parse(fs.readFileSync(path.join(dir, "chat_template.json"), "utf8")).chat_template;
const tokens = {};
for (const k of SPECIAL) {
  let v = cfg[k];
  if (v && typeof v === "object") v = v.content;
  if (typeof v === "string") tokens[k] = v;
}
let tmpl = null, compileError = null;
try {
  tmpl = new Template(source);
} catch (e) {
  compileError = e;
}
const out = [];
let n = 0;
for (const line of fs.readFileSync(jsonl, "utf8").split("\n")) {
  n++;
  if (!line.trim()) continue;
  const doc = JSON.parse(line);
  const ctx = { add_generation_prompt: false, tools: null, documents: null, ...tokens, ...(Array.isArray(doc) ? { messages: doc } : doc) };
  if (gen) ctx.add_generation_prompt = true;
  try {
    if (compileError) throw compileError;
    out.push(JSON.stringify(tmpl.render(ctx)));
  } catch (e) {
    process.stderr.write(`line ${n}: ${e.message}\n`);
    out.push("null");
  }
}
process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));
