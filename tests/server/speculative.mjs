// speculative.mjs — speculative decoding in the server (qwen2_vl, --slots 4 --draft 4, TS_PORT).
//
// Drafts only pay (and only get checked) when the output repeats spans of the context: the tiny
// fixture model does not, so every request here biases three token ids (+20, their order left to
// the model), which makes the greedy output a model-chosen sequence over those three ids: n-gram
// drafts are then often right and sometimes wrong. Each request (text, completions, an image
// with M-RoPE) runs alone with "speculative_decoding": false, then alone speculating: same text
// and token count, and /metrics shows verify steps with accepted and rejected drafts (none for
// the opted-out runs). Then mixed: a speculating request next to an opted-out one (one verify step
// carries both slots), two speculating together, and four at once (more than two decoding: the
// plain batched step): every text as alone.
import { a, client, dataUrl, env, fixture, metrics, runCases } from './lib.mjs';

const PORT = env('TS_PORT');
const c = await client(PORT);
const BIAS = { 100: 20, 200: 20, 300: 20 };
const CHELSEA = { type: 'image_url', image_url: { url: dataUrl(fixture('qwen2_vl', 'chelsea.png')) } };

const REQUESTS = [
    { name: 'chat', max: 40, messages: [{ role: 'user', content: 'Repeat after me: one two three.' }] },
    { name: 'completions', max: 48, prompt: 'The history of the river begins' },
    { name: 'image', max: 32, messages: [{ role: 'user', content: [CHELSEA, { type: 'text', text: 'Describe this image.' }] }] },
    { name: 'chat, longer', max: 64, messages: [{ role: 'user', content: 'Tell me a long story.' }] },
];

async function run(r, speculative) {
    const body = { model: 'model', temperature: 0, ignore_eos: true, max_tokens: r.max, logit_bias: BIAS };
    if (!speculative) body.speculative_decoding = false;
    if (r.prompt) {
        const out = await c.completions.create({ ...body, prompt: r.prompt });
        return { text: out.choices[0].text, tokens: out.usage.completion_tokens };
    }
    const out = await c.chat.completions.create({ ...body, messages: r.messages });
    return { text: out.choices[0].message.content, tokens: out.usage.completion_tokens };
}

const spec = (m) => [m.tessera_speculative_steps_total, m.tessera_speculative_drafted_tokens_total,
                     m.tessera_speculative_accepted_tokens_total];
const plain = {};

await runCases('speculative.mjs', [
    ['alone: the same tokens with and without speculation', async () => {
        for (const r of REQUESTS) {
            const m0 = spec(await metrics(PORT));
            plain[r.name] = await run(r, false);
            const m1 = spec(await metrics(PORT));
            a.deepEqual(m1, m0, `${r.name}: an opted-out request ran no verify step`);
            a.equal(plain[r.name].tokens, r.max);
            const got = await run(r, true);
            const m2 = spec(await metrics(PORT));
            a.deepEqual(got, plain[r.name], `${r.name}: speculative tokens`);
            const [steps, drafted, accepted] = [m2[0] - m1[0], m2[1] - m1[1], m2[2] - m1[2]];
            console.log(`    ${r.name}: ${r.max} tokens, ${steps} verify steps, ${accepted} of ${drafted} drafts accepted`);
            a.ok(steps > 0, `${r.name}: verify steps ran`);
            a.ok(accepted > 0, `${r.name}: drafts were accepted`);
        }
        const [, drafted, accepted] = spec(await metrics(PORT));
        a.ok(accepted < drafted, 'some drafts were rejected');
    }],
    ['mixed: speculating next to plain, two speculating, four at once', async () => {
        const [x, y] = [REQUESTS[0], REQUESTS[1]];
        const pair = await Promise.all([run(x, true), run(y, false)]);
        a.deepEqual(pair, [plain[x.name], plain[y.name]], 'speculating + opted out');
        const both = await Promise.all([run(REQUESTS[2], true), run(REQUESTS[3], true)]);
        a.deepEqual(both, [plain[REQUESTS[2].name], plain[REQUESTS[3].name]], 'two speculating');
        const all = await Promise.all(REQUESTS.map((r, i) => run(r, i % 2 === 0)));
        a.deepEqual(all, REQUESTS.map((r) => plain[r.name]), 'four at once');
    }],
]);
