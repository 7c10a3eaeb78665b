// api.mjs — the OpenAI API surface through the official openai client (6.x), on qwen2_vl (TS_PORT)
// and on the text-only qwen2 behind an API key (TS_TXT_PORT). Texts and token counts are those
// of `tessera run --json` for the same prompt (TS_ORACLES), the image's also the fixture's
// transformers reference.
import fs from 'node:fs';
import { a, client, dataUrl, env, fixture, http, oracles, openai, runCases } from './lib.mjs';

const PORT = env('TS_PORT'), TXT_PORT = env('TS_TXT_PORT'), KEY = env('TS_API_KEY');
const O = oracles();
const c = await client(PORT);
const OpenAI = await openai();
const ref = JSON.parse(fs.readFileSync(fixture('qwen2_vl', 'reference.json'), 'utf8'));
const ref2 = JSON.parse(fs.readFileSync(fixture('qwen2_vl-two-images', 'reference.json'), 'utf8'));
const CHELSEA = dataUrl(fixture('qwen2_vl', 'chelsea.png'));
const COFFEE = dataUrl(fixture('qwen2_vl-two-images', 'coffee.png'));
const greedy = { model: 'model', temperature: 0, ignore_eos: true };
const user = (content) => [{ role: 'user', content }];
const HAIKU = user('Write a haiku about the sea.');

function usage(u, prompt, completion) {
    a.equal(u.prompt_tokens, prompt, 'usage.prompt_tokens');
    a.equal(u.completion_tokens, completion, 'usage.completion_tokens');
    a.equal(u.total_tokens, prompt + completion, 'usage.total_tokens');
}

// Collects a chat stream: the chunks, the joined deltas, finish reasons, the usage chunk.
async function collect(stream) {
    const chunks = [];
    for await (const ch of stream) chunks.push(ch);
    const withChoice = chunks.filter((ch) => ch.choices.length);
    return {
        chunks,
        text: withChoice.map((ch) => ch.choices[0].delta?.content ?? ch.choices[0].text ?? '').join(''),
        finishes: withChoice.map((ch) => ch.choices[0].finish_reason).filter((f) => f !== null),
        usage: chunks.filter((ch) => ch.usage).map((ch) => ch.usage),
    };
}

async function expectError(promise, Cls, status, pattern) {
    let err;
    try {
        await promise;
    } catch (e) {
        err = e;
    }
    a.ok(err instanceof Cls, `expected ${Cls.name}, got ${err?.constructor?.name}: ${err?.message}`);
    a.equal(err.status, status);
    a.match(err.message, pattern);
    return err;
}

await runCases('api.mjs', [
    ['the oracles agree with the fixtures', () => {
        a.deepEqual(O.vl_image.generated_ids, ref.generated_ids, 'run --image vs transformers');
        a.equal(O.vl_image.prompt_tokens, ref.input_ids.length);
        a.deepEqual(O.vl_two.generated_ids, ref2.generated_ids, 'run with two images vs transformers');
        a.equal(O.vl_two.prompt_tokens, ref2.input_ids.length);
    }],

    ['chat, not streamed', async () => {
        const r = await c.chat.completions.create({ ...greedy, messages: HAIKU, max_tokens: 16 });
        a.equal(r.object, 'chat.completion');
        a.match(r.id, /^chatcmpl-/);
        a.equal(r.model, 'model');
        a.equal(r.choices.length, 1);
        a.equal(r.choices[0].index, 0);
        a.equal(r.choices[0].message.role, 'assistant');
        a.equal(r.choices[0].message.content, O.vl_chat.text);
        a.equal(r.choices[0].finish_reason, 'length');
        a.equal(r.choices[0].logprobs, null);
        usage(r.usage, O.vl_chat.prompt_tokens, 16);
        // max_completion_tokens wins over the deprecated max_tokens.
        const s = await c.chat.completions.create({ ...greedy, messages: HAIKU, max_tokens: 16, max_completion_tokens: 5 });
        usage(s.usage, O.vl_chat.prompt_tokens, 5);
        a.ok(O.vl_chat.text.startsWith(s.choices[0].message.content.replace(/\uFFFD+$/, '')), '5 tokens are a prefix of 16');
    }],

    ['chat, streamed with usage', async () => {
        const st = await collect(await c.chat.completions.create({
            ...greedy, messages: HAIKU, max_tokens: 16, stream: true, stream_options: { include_usage: true } }));
        a.equal(st.text, O.vl_chat.text, 'joined deltas = the non-streamed content');
        a.equal(st.chunks[0].choices[0].delta.role, 'assistant');
        a.deepEqual(st.finishes, ['length']);
        a.equal(st.usage.length, 1, 'one usage chunk');
        const last = st.chunks[st.chunks.length - 1];
        a.deepEqual(last.choices, [], 'the usage chunk is last and has no choices');
        usage(last.usage, O.vl_chat.prompt_tokens, 16);
        a.ok(st.chunks.every((ch) => ch.object === 'chat.completion.chunk' && ch.id === st.chunks[0].id));
        a.ok(st.chunks.slice(0, -1).every((ch) => ch.usage === null), 'usage: null on every other chunk');
        // Without include_usage: no usage anywhere.
        const plain = await collect(await c.chat.completions.create({ ...greedy, messages: HAIKU, max_tokens: 16, stream: true }));
        a.equal(plain.text, O.vl_chat.text);
        a.ok(plain.chunks.every((ch) => !('usage' in ch)), 'no usage key without include_usage');
    }],

    ['an image by data: URL', async () => {
        const messages = user([{ type: 'image_url', image_url: { url: CHELSEA } }, { type: 'text', text: 'Describe this image.' }]);
        const r = await c.chat.completions.create({ ...greedy, messages, max_tokens: 16 });
        a.equal(r.choices[0].message.content, O.vl_image.text, 'the text of run --image (= the reference ids)');
        a.equal(r.choices[0].finish_reason, 'length');
        usage(r.usage, ref.input_ids.length, 16);
        // Streamed, the same text.
        const st = await collect(await c.chat.completions.create({
            ...greedy, messages, max_tokens: 16, stream: true, stream_options: { include_usage: true } }));
        a.equal(st.text, O.vl_image.text);
        usage(st.usage[0], O.vl_image.prompt_tokens, 16);
    }],

    ['two images', async () => {
        const messages = user([{ type: 'image_url', image_url: { url: CHELSEA } }, { type: 'image_url', image_url: { url: COFFEE } },
                               { type: 'text', text: 'Compare these two images.' }]);
        const r = await c.chat.completions.create({ ...greedy, messages, max_tokens: 16 });
        a.equal(r.choices[0].message.content, O.vl_two.text);
        usage(r.usage, ref2.input_ids.length, 16);
    }],

    ['completions', async () => {
        const prompt = 'Once upon a time, in a small village';
        const r = await c.completions.create({ ...greedy, prompt, max_tokens: 12 });
        a.equal(r.object, 'text_completion');
        a.match(r.id, /^cmpl-/);
        a.equal(r.choices[0].text, O.vl_raw.text);
        a.equal(r.choices[0].finish_reason, 'length');
        usage(r.usage, O.vl_raw.prompt_tokens, 12);
        const st = await collect(await c.completions.create({ ...greedy, prompt, max_tokens: 12, stream: true,
                                                              stream_options: { include_usage: true } }));
        a.equal(st.text, O.vl_raw.text);
        a.deepEqual(st.finishes, ['length']);
        usage(st.usage[0], O.vl_raw.prompt_tokens, 12);
    }],

    ['stop strings', async () => {
        // A stop string from the middle of the known output: the text ends right before it.
        const text = O.vl_raw.text, stop = text.slice(6, 9), cut = text.indexOf(stop);
        a.ok(cut > 0 && !stop.includes('\uFFFD'), `usable stop string ${JSON.stringify(stop)}`);
        const r = await c.completions.create({ ...greedy, prompt: 'Once upon a time, in a small village', max_tokens: 12, stop: [stop] });
        a.equal(r.choices[0].text, text.slice(0, cut));
        a.equal(r.choices[0].finish_reason, 'stop');
        a.ok(r.usage.completion_tokens < 12, `stopped early (${r.usage.completion_tokens} tokens)`);
    }],

    ['logprobs and top_logprobs (chat)', async () => {
        const r = await c.chat.completions.create({ model: 'model', temperature: 0, messages: HAIKU, max_tokens: 8,
                                                    logprobs: true, top_logprobs: 5 });
        const content = r.choices[0].logprobs.content;
        a.equal(content.length, r.usage.completion_tokens, 'one entry per generated token');
        a.ok(content.length >= 1);
        for (const e of content) {
            a.equal(e.top_logprobs.length, 5);
            a.ok(e.logprob <= 0, `logprob ${e.logprob} <= 0`);
            const lps = e.top_logprobs.map((t) => t.logprob);
            a.deepEqual(lps, [...lps].sort((x, y) => y - x), 'top_logprobs sorted, most likely first');
            // Greedy: the chosen token is the top-1.
            a.equal(e.top_logprobs[0].token, e.token);
            a.equal(e.top_logprobs[0].logprob, e.logprob);
            a.deepEqual(e.top_logprobs[0].bytes, e.bytes);
            a.ok(lps.reduce((s, x) => s + Math.exp(x), 0) <= 1 + 1e-5, 'probabilities sum to at most 1');
            a.ok(e.top_logprobs.every((t) => Array.isArray(t.bytes) && t.bytes.every((b) => b >= 0 && b < 256)));
        }
        // The tokens' bytes make up the text.
        a.equal(Buffer.from(content.flatMap((e) => e.bytes)).toString('utf8'), r.choices[0].message.content);
        // Streamed, the same logprobs.
        const st = await collect(await c.chat.completions.create({ model: 'model', temperature: 0, messages: HAIKU, max_tokens: 8,
                                                                   logprobs: true, top_logprobs: 5, stream: true }));
        const streamed = st.chunks.flatMap((ch) => ch.choices[0]?.logprobs?.content ?? []);
        a.deepEqual(streamed, content);
    }],

    ['logprobs (completions)', async () => {
        const r = await c.completions.create({ model: 'model', temperature: 0, prompt: 'Once upon a time, in a small village',
                                               max_tokens: 6, logprobs: 3 });
        const lp = r.choices[0].logprobs;
        const n = r.usage.completion_tokens;
        a.equal(lp.tokens.length, n);
        a.equal(lp.token_logprobs.length, n);
        a.equal(lp.top_logprobs.length, n);
        a.equal(lp.text_offset.length, n);
        a.equal(lp.text_offset[0], 0);
        for (let i = 0; i < n; i++) {
            const top = Object.values(lp.top_logprobs[i]);
            a.ok(top.length >= 1 && top.length <= 3);
            a.ok(lp.token_logprobs[i] <= 0);
            a.equal(Math.max(...top), lp.token_logprobs[i], 'greedy: the chosen token is the most likely');
            if (i) a.ok(lp.text_offset[i] >= lp.text_offset[i - 1]);
        }
    }],

    ['seeded sampling repeats', async () => {
        const req = { model: 'model', messages: HAIKU, max_tokens: 12, temperature: 1, seed: 1234, ignore_eos: true };
        const x = await c.chat.completions.create(req), y = await c.chat.completions.create(req);
        a.equal(x.choices[0].message.content, y.choices[0].message.content);
        a.equal(x.usage.completion_tokens, 12);
    }],

    ['models', async () => {
        const list = await c.models.list();
        a.equal(list.data.length, 1);
        const m = list.data[0];
        a.equal(m.id, 'model', 'the folder name');
        a.equal(m.object, 'model');
        a.equal(m.owned_by, 'tessera');
        a.deepEqual(m.input_modalities, ['text', 'image']);
        a.deepEqual(m.output_modalities, ['text']);
        a.equal(m.max_model_len, 4096, 'min(max_position_embeddings 32768, 4096)');
        const t = await client(TXT_PORT, KEY);
        const tm = (await t.models.list()).data;
        a.equal(tm.length, 1);
        a.deepEqual(tm[0].input_modalities, ['text'], 'the text-only model takes text only');
        // Neither model takes audio (Phi-4-multimodal does: audio.mjs): neither lists it.
        a.ok(!m.input_modalities.includes('audio') && !tm[0].input_modalities.includes('audio'), 'no audio listed');
    }],

    ['the text-only model', async () => {
        const t = await client(TXT_PORT, KEY);
        const r = await t.chat.completions.create({ ...greedy, messages: user('Hello there'), max_tokens: 16 });
        a.equal(r.choices[0].message.content, O.txt_chat.text);
        usage(r.usage, O.txt_chat.prompt_tokens, 16);
        await expectError(t.chat.completions.create({
            ...greedy, max_tokens: 4, messages: user([{ type: 'image_url', image_url: { url: CHELSEA } }, { type: 'text', text: 'hi' }]) }),
            OpenAI.BadRequestError, 400, /does not accept images/);
        // A well-formed clip through the official client's input_audio part: validated, then refused.
        const wav = fs.readFileSync(fixture('media', 'audio', 'speech_8k_s16.wav')).toString('base64');
        const e = await expectError(t.chat.completions.create({
            ...greedy, max_tokens: 4, messages: user([{ type: 'input_audio', input_audio: { data: wav, format: 'wav' } }, { type: 'text', text: 'hi' }]) }),
            OpenAI.BadRequestError, 400, /messages\[0\]\.content\[0\]: this model does not accept audio input \(input modalities: text\)$/);
        a.equal(e.param, 'messages[0].content[0]');
        const after = await t.chat.completions.create({ ...greedy, messages: user('Hello there'), max_tokens: 16 });
        a.equal(after.choices[0].message.content, O.txt_chat.text, 'the same text after the refusal');
    }],

    ['the API key', async () => {
        const wrong = await client(TXT_PORT, 'not-the-key');
        const err = await expectError(wrong.models.list(), OpenAI.AuthenticationError, 401, /API key/);
        a.equal(err.type, 'authentication_error');
        await expectError(wrong.chat.completions.create({ ...greedy, messages: user('hi'), max_tokens: 2 }),
                          OpenAI.AuthenticationError, 401, /API key/);
        // The client with its Authorization header removed: no key at all.
        const keyless = new OpenAI({ baseURL: `http://127.0.0.1:${TXT_PORT}/v1`, apiKey: 'unused', maxRetries: 0,
                                     defaultHeaders: { Authorization: null } });
        await expectError(keyless.chat.completions.create({ ...greedy, messages: user('hi'), max_tokens: 2 }),
                          OpenAI.AuthenticationError, 401, /a valid API key is required/);
        const none = await http(TXT_PORT, 'POST', '/v1/chat/completions', { messages: user('hi'), max_tokens: 2 });
        a.equal(none.status, 401, 'no Authorization header');
        a.equal(none.json.error.type, 'authentication_error');
        const basic = await http(TXT_PORT, 'GET', '/v1/models', undefined, { Authorization: `Basic ${KEY}` });
        a.equal(basic.status, 401, 'the key, but not as a Bearer token');
        a.equal((await http(TXT_PORT, 'GET', '/health')).status, 200, '/health needs no key');
        a.equal((await http(TXT_PORT, 'GET', '/metrics')).status, 200, '/metrics needs no key');
        const ok = await http(TXT_PORT, 'GET', '/v1/models', undefined, { Authorization: `Bearer ${KEY}` });
        a.equal(ok.status, 200);
    }],

    ['errors through the client', async () => {
        let e = await expectError(c.chat.completions.create({ ...greedy, messages: HAIKU, n: 2 }), OpenAI.BadRequestError, 400, /\bn\b/);
        a.equal(e.param, 'n');
        a.equal(e.type, 'invalid_request_error');
        e = await expectError(c.chat.completions.create({
            ...greedy, messages: user([{ type: 'image_url', image_url: { url: 'http://example.com/cat.png' } }, { type: 'text', text: 'hi' }]) }),
            OpenAI.BadRequestError, 400, /remote/);
        a.equal(e.param, 'messages[0].content[0].image_url.url');
        e = await expectError(c.chat.completions.create({ ...greedy, messages: HAIKU, temperature: 3 }), OpenAI.BadRequestError, 400, /temperature/);
        a.equal(e.param, 'temperature');
        await expectError(c.chat.completions.create({ ...greedy, messages: HAIKU, tools: [{ type: 'function', function: { name: 'f' } }] }),
                          OpenAI.BadRequestError, 400, /tool calling/);
        await expectError(c.completions.create({ ...greedy, prompt: 'hi', echo: true }), OpenAI.BadRequestError, 400, /echo/);
        // The model name is not checked: this server serves one model whatever the request names.
        const r = await c.chat.completions.create({ ...greedy, model: 'no-such-model', messages: HAIKU, max_tokens: 16 });
        a.equal(r.model, 'model');
        a.equal(r.choices[0].message.content, O.vl_chat.text);
    }],
]);
