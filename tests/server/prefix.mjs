// prefix.mjs — the prefix cache through the server (TS_PORT: the default cache; TS_NOCACHE_PORT: the
// same model with --prefix-cache-mb 0, the reference every text is checked against; TS_TINY_PORT: a
// 1 MiB cache, for eviction; TS_ORACLE_PREFIX vl or q3; TS_FIRST_IMAGE_ROW: the prompt row of the
// first image token of a one-image chat).
//
// Every count of cached tokens is the exact one the cache's rule gives (prefix_cache.h): blocks of
// 16 tokens; the restored rows end where the rest of the prompt is prefilled in calls of ≥ 16 rows
// (or of the same sizes) as a prefill of the whole prompt would take them, with 256-token chunks.
import { a, client, dataUrl, env, fixture, metrics, oracles, runCases } from './lib.mjs';

const BLOCK = 16, CHUNK = 256;
const PORT = env('TS_PORT'), NOCACHE = env('TS_NOCACHE_PORT'), TINY = env('TS_TINY_PORT');
const ORACLE = process.env.TS_ORACLE_PREFIX || 'vl';
const FIRST_IMAGE_ROW = Number(env('TS_FIRST_IMAGE_ROW'));
const O = oracles();
const c = await client(PORT), plain = await client(NOCACHE), tiny = await client(TINY);
const img = (...file) => ({ type: 'image_url', image_url: { url: dataUrl(fixture(...file)) } });
const CHELSEA = img('qwen2_vl', 'chelsea.png'), COFFEE = img('qwen2_vl-two-images', 'coffee.png');
const text = (t) => ({ type: 'text', text: t });

// The call a prefill of rows [start, n) puts each row in: [first row, rows].
function calls(n, start) {
    const out = new Array(n).fill(null);
    for (let at = start; at < n; at += CHUNK) for (let i = at; i < Math.min(n, at + CHUNK); i++) out[i] = [at, Math.min(CHUNK, n - at)];
    return out;
}
// The rows a request of n prompt tokens restores when its first `cached` tokens are in cached blocks.
function expectCached(n, cached) {
    const whole = calls(n, 0);
    let p = Math.min(Math.floor(cached / BLOCK), Math.floor((n - 1) / BLOCK)) * BLOCK;
    for (; p > 0; p -= BLOCK) {
        const from = calls(n, p);
        const same = (x, y) => x[0] === y[0] && x[1] === y[1];
        const ok = whole.every((w, i) => (i < p ? w[1] >= BLOCK : same(from[i], w) || (from[i][1] >= BLOCK && w[1] >= BLOCK)));
        if (ok) break;
    }
    return p;
}
const stored = (n) => Math.floor(n / BLOCK) * BLOCK; // the full blocks a finished request leaves

async function chat(cl, messages, max = 8) {
    const r = await cl.chat.completions.create({ model: 'model', temperature: 0, ignore_eos: true, max_tokens: max, messages });
    return { text: r.choices[0].message.content, usage: r.usage, cached: r.usage.prompt_tokens_details.cached_tokens };
}
async function complete(cl, prompt, max = 8) {
    const r = await cl.completions.create({ model: 'model', temperature: 0, ignore_eos: true, max_tokens: max, prompt });
    return { text: r.choices[0].text, usage: r.usage, cached: r.usage.prompt_tokens_details.cached_tokens };
}
const user = (content) => [{ role: 'user', content }];
// A long text prompt of its own (word salad: hundreds of tokens).
const WORDS = 'river stone cloud amber forest lantern velvet harbor meadow copper whisper orbit canyon maple ember'.split(' ');
function longText(seed, words) {
    let x = seed * 7919 + 1;
    return Array.from({ length: words }, () => WORDS[(x = (x * 48271) % 2147483647) % WORDS.length]).join(' ');
}

await runCases('prefix.mjs', [
    ['5-turn chat with an image in turn 1: prefill drops to the new turn', async () => {
        const turns = ['Look at this picture.', 'What colour is it?', 'Tell me more about it.', 'And the background?', 'Summarise all of it.'];
        const messages = [], noCache = [];
        let previous = 0, prefilled = 0, prompts = 0;
        for (let k = 0; k < turns.length; k++) {
            const content = k === 0 ? [CHELSEA, text(turns[k])] : turns[k];
            messages.push({ role: 'user', content });
            noCache.push({ role: 'user', content });
            const r = await chat(c, messages), ref = await chat(plain, noCache);
            const n = r.usage.prompt_tokens, want = k === 0 ? 0 : expectCached(n, stored(previous));
            a.equal(r.text, ref.text, `turn ${k + 1}: = no cache`);
            a.equal(r.cached, want, `turn ${k + 1}: restored`);
            console.log(`    turn ${k + 1}: ${n} prompt tokens, ${r.cached} restored, ${n - r.cached} prefilled` +
                        (k ? ` (the new turn and the last reply: ${n - previous})` : ''));
            if (k) a.ok(n - r.cached < n - previous + 2 * BLOCK, `turn ${k + 1}: prefill within two blocks of the new tokens`);
            prefilled += n - r.cached, prompts += n, previous = n;
            messages.push({ role: 'assistant', content: r.text });
            noCache.push({ role: 'assistant', content: ref.text });
        }
        console.log(`    5 turns: ${prefilled} of ${prompts} prompt tokens prefilled`);
        const m = await metrics(PORT);
        a.ok(m.tessera_prefix_cache_hits_total >= 4 && m.tessera_prefix_cache_cached_tokens_total > 0);
        a.ok(m.tessera_prefix_cache_hit_ratio > 0 && m.tessera_prefix_cache_hit_ratio < 1);
        a.ok(m.tessera_prefix_cache_bytes > 0 && m.tessera_prefix_cache_bytes <= m.tessera_prefix_cache_budget_bytes);
        a.equal(m.tessera_prefix_cache_budget_bytes, 1024 * 1024 * 1024);
    }],

    ['the same request twice: the same text, the second restores the exact count', async () => {
        // Both image prompts start like the chat's first turn up to chelsea's last row: their first
        // runs already restore some of it.
        const requests = [
            ['image', () => user([CHELSEA, text('Describe this image.')]), O[`${ORACLE}_image`], false],
            ['two images', () => user([CHELSEA, COFFEE, text('Compare these two images.')]), O[`${ORACLE}_two`], false],
            ['long text', () => user(longText(1, 120)), null, true],
        ];
        for (const [name, messages, oracle, fresh] of requests) {
            const ref = await chat(plain, messages(), 16);
            const first = await chat(c, messages(), 16), second = await chat(c, messages(), 16);
            const n = first.usage.prompt_tokens;
            a.equal(first.text, ref.text, `${name}: cached server = no cache`);
            a.equal(second.text, ref.text, `${name}: second run = no cache`);
            if (oracle) a.equal(ref.text, oracle.text, `${name}: = tessera run`);
            if (fresh) a.equal(first.cached, 0, `${name}: the first run misses`);
            a.equal(second.cached, expectCached(n, stored(n)), `${name}: ${n} prompt tokens`);
            a.ok(second.cached > 0, `${name}: the second run hits`);
            console.log(`    ${name}: ${n} prompt tokens, the first run restores ${first.cached}, the second ${second.cached}`);
        }
    }],

    ['media keying: same text, another image: no hit past the image; the same image: a hit', async () => {
        const first = await chat(c, user([CHELSEA, text('What is this?')]));
        const other = await chat(c, user([COFFEE, text('What is this?')]));
        const ref = await chat(plain, user([COFFEE, text('What is this?')]));
        a.equal(other.text, ref.text);
        a.equal(other.cached, Math.floor(FIRST_IMAGE_ROW / BLOCK) * BLOCK, 'only the blocks before the image row');
        const again = await chat(c, user([CHELSEA, text('What is this?')]));
        a.equal(again.text, first.text);
        a.equal(again.cached, expectCached(first.usage.prompt_tokens, stored(first.usage.prompt_tokens)));
        console.log(`    first image row ${FIRST_IMAGE_ROW}: another image restores ${other.cached}, the same ${again.cached}`);
    }],

    ['mixed batch: cached and uncached requests together give their solo texts', async () => {
        const reqs = [user([CHELSEA, text('Describe this image.')]), user(longText(1, 120)), user(longText(2, 90)),
                      user([COFFEE, text('Describe every detail.')])];
        const solo = [];
        for (const m of reqs) solo.push(await chat(plain, m, 12));
        const together = await Promise.all(reqs.map((m) => chat(c, m, 12)));
        together.forEach((r, i) => a.equal(r.text, solo[i].text, `request ${i}`));
        a.ok(together[0].cached > 0 && together[1].cached > 0, 'the repeated prompts hit');
        a.equal(together[2].cached, Math.floor(FIRST_IMAGE_ROW / BLOCK) * BLOCK,
                'a new prompt restores only what the chat template puts before the user text');
    }],

    ['eviction under a 1 MiB budget: evicted, still exact', async () => {
        // ~300 tokens (~19 blocks) each: 8 of them are over the 42 (Qwen3-VL) or 85 (Qwen2-VL) blocks
        // 1 MiB holds.
        const prompts = Array.from({ length: 8 }, (_, i) => longText(10 + i, 100));
        const firsts = [];
        for (const p of prompts) firsts.push(await complete(tiny, p));
        const m = await metrics(TINY);
        a.equal(m.tessera_prefix_cache_budget_bytes, 1024 * 1024);
        a.ok(m.tessera_prefix_cache_evictions_total > 0, `evictions: ${m.tessera_prefix_cache_evictions_total}`);
        a.ok(m.tessera_prefix_cache_bytes <= 1024 * 1024);
        // The newest prompt hits; the oldest was evicted (least recently used): a miss, the same text.
        const newest = await complete(tiny, prompts[7]), oldest = await complete(tiny, prompts[0]);
        a.equal(oldest.text, firsts[0].text);
        a.equal(oldest.cached, 0, 'the oldest prompt was evicted');
        a.equal(newest.text, firsts[7].text);
        a.equal(newest.cached, expectCached(newest.usage.prompt_tokens, stored(newest.usage.prompt_tokens)));
        const ref = await complete(plain, prompts[0]);
        a.equal(oldest.text, ref.text, 'the 1 MiB server = no cache');
        console.log(`    ${firsts[0].usage.prompt_tokens} tokens a prompt, ${m.tessera_prefix_cache_evictions_total} blocks evicted, ` +
                    `${m.tessera_prefix_cache_blocks} kept; the newest restores ${newest.cached}`);
    }],
]);
