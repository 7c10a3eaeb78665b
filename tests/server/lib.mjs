// lib.mjs — what the server tests share: the environment server_test.sh sets, counted assertions
// (node:assert/strict), a case runner that prints a summary and sets the exit status, the
// official openai client, and small HTTP helpers (plain fetch, /metrics, SSE).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';

export function env(name) {
    const v = process.env[name];
    if (!v) throw new Error(`environment variable ${name} is not set (run through tests/server_test.sh)`);
    return v;
}

export const ROOT = env('TS_ROOT');
export const fixture = (...parts) => path.join(ROOT, 'tests', 'fixtures', ...parts);
export const oracles = () => JSON.parse(fs.readFileSync(env('TS_ORACLES'), 'utf8'));
export const dataUrl = (file, mime = 'image/png') => `data:${mime};base64,${fs.readFileSync(file).toString('base64')}`;
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Every assertion goes through `a`, which counts it.
let count = 0;
export const a = {};
for (const name of ['equal', 'notEqual', 'deepEqual', 'ok', 'match', 'doesNotMatch', 'rejects', 'fail']) {
    a[name] = (...args) => {
        count++;
        return assert[name](...args);
    };
}
export const assertions = () => count;

// Runs [name, async fn] cases in order; a failed assertion ends its case, not the file.
export async function runCases(file, cases) {
    let failed = 0;
    const t0 = Date.now();
    for (const [name, fn] of cases) {
        const before = count, t = Date.now();
        try {
            await fn();
            console.log(`  ok   ${name} (${count - before} assertions, ${Date.now() - t} ms)`);
        } catch (e) {
            failed++;
            console.log(`  FAIL ${name} (after ${count - before} assertions): ${(e && e.stack) || e}`);
        }
    }
    console.log(`${file}: ${cases.length - failed}/${cases.length} cases passed, ${count} assertions, ` +
                `${((Date.now() - t0) / 1000).toFixed(1)} s${failed ? ` — ${failed} FAILED` : ''}`);
    process.exitCode = failed ? 1 : 0;
}

export async function openai() {
    return (await import(pathToFileURL(env('TS_OPENAI')).href)).default;
}

// maxRetries 0: a 429 or 5xx must show, not be retried away.
export async function client(port, apiKey = 'unused') {
    const OpenAI = await openai();
    return new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey, maxRetries: 0, timeout: 600000 });
}

// A request with plain fetch: { status, headers, text, json (undefined when not JSON) }; with ms,
// aborted after that many milliseconds.
export async function http(port, method, route, body, headers = {}, ms = undefined) {
    const init = { method, headers: { ...headers } };
    if (ms !== undefined) init.signal = AbortSignal.timeout(ms);
    if (body !== undefined) {
        init.body = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
        if (!init.headers['Content-Type']) init.headers['Content-Type'] = 'application/json';
    }
    const r = await fetch(`http://127.0.0.1:${port}${route}`, init);
    const text = await r.text();
    let json;
    try {
        json = JSON.parse(text);
    } catch {
        json = undefined;
    }
    return { status: r.status, headers: r.headers, text, json };
}

// The samples of /metrics without labels: { name: value }.
export async function metrics(port) {
    const r = await http(port, 'GET', '/metrics');
    assert.equal(r.status, 200);
    const out = {};
    for (const line of r.text.split('\n')) {
        const m = /^([a-z_]+) (\S+)$/.exec(line);
        if (m) out[m[1]] = Number(m[2]);
    }
    return out;
}

// Polls /metrics until pred(samples) holds or `ms` pass; returns the last samples. The limit only
// guards against a hang (it returns as soon as pred holds), so it is generous: a loaded machine
// running the sanitizer build must not trip it.
export async function waitMetrics(port, pred, ms = 120000) {
    const until = Date.now() + ms;
    for (;;) {
        const m = await metrics(port);
        if (pred(m) || Date.now() > until) return m;
        await sleep(50);
    }
}

// A w x h RGB PNG of zeros: a few hundred KB that declare w*h pixels.
export function zeroPng(w, h) {
    const chunk = (type, data) => {
        const len = Buffer.alloc(4), crc = Buffer.alloc(4), td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
        len.writeUInt32BE(data.length);
        crc.writeUInt32BE(zlib.crc32(td));
        return Buffer.concat([len, td, crc]);
    };
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(w, 0);
    ihdr.writeUInt32BE(h, 4);
    ihdr[8] = 8, ihdr[9] = 2; /* 8-bit RGB */
    const idat = zlib.deflateSync(Buffer.alloc((w * 3 + 1) * h), { level: 1 });
    return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}
