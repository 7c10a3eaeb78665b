// isolation.mjs — requests sharing the batch do not see each other (qwen2_vl, --slots 4, TS_PORT;
// server_test.sh also runs it on qwen3_vl and gemma3, TS_ORACLE_PREFIX q3 / g3).
//
// 8 greedy requests (text, one image, two images; chat and completions; streamed and not) run
// alone, one after another; then all together, twice, in two orders: every text and usage must
// be the one of its solo run. Then 4 long streams fill the 4 slots; one is cancelled after its
// 3rd chunk, and a new request must run in the slot it frees (it finishes while the other 3 are
// still generating) with its solo text. Then 4 long prompts (text, an image, a completion) alone,
// then together: the same texts, and /metrics must show steps that prefilled two or more of them
// together, and 3 short requests sent with a much longer prompt all end before its first token
// (with TS_SHARED_PREFILL set: engine servers whose chunks are short enough that every prompt
// takes several steps). Finally /metrics shows no busy slot and an empty queue.
import { a, client, dataUrl, env, fixture, metrics, oracles, openai, runCases, waitMetrics } from './lib.mjs';

const PORT = env('TS_PORT');
// Which model's `tessera run` answers the solo runs are checked against (qwen2_vl: vl_…).
const ORACLE = process.env.TS_ORACLE_PREFIX || 'vl';
const O = oracles();
const c = await client(PORT);
const OpenAI = await openai();
const img = (file, mime) => ({ type: 'image_url', image_url: { url: dataUrl(fixture(...file), mime) } });
const text = (t) => ({ type: 'text', text: t });
const CHELSEA = img(['qwen2_vl', 'chelsea.png']);
const COFFEE = img(['qwen2_vl-two-images', 'coffee.png']);
const TINY_PNG = img(['media', 'tiny.png']);
const TINY_JPG = img(['media', 'tiny.jpg'], 'image/jpeg');
const PROGRESSIVE = img(['media', 'progressive.jpg'], 'image/jpeg');
const WEBP = img(['media', 'tiny_lossy.webp'], 'image/webp');

const REQUESTS = [
    { name: 'text', max: 16, stream: false, messages: [{ role: 'user', content: 'Hello there' }] },
    { name: 'text, streamed', max: 20, stream: true, messages: [{ role: 'user', content: 'Write a poem about the sea.' }] },
    { name: 'chelsea', max: 16, stream: false, messages: [{ role: 'user', content: [CHELSEA, text('Describe this image.')] }] },
    { name: 'coffee, streamed', max: 24, stream: true, messages: [{ role: 'user', content: [COFFEE, text('What is in this picture?')] }] },
    { name: 'chelsea + coffee', max: 16, stream: false,
      messages: [{ role: 'user', content: [CHELSEA, COFFEE, text('Compare these two images.')] }] },
    { name: 'png + progressive jpeg, streamed', max: 20, stream: true,
      messages: [{ role: 'user', content: [TINY_PNG, text('Which one is brighter?'), PROGRESSIVE] }] },
    { name: 'system + jpeg + webp, streamed', max: 18, stream: true,
      messages: [{ role: 'system', content: 'You answer in one word.' },
                 { role: 'user', content: [TINY_JPG, WEBP, text('Describe.')] }] },
    { name: 'completions, streamed', max: 24, stream: true, prompt: 'The history of the river begins' },
];

// Long prompts (a few hundred tokens each), several chunks apiece under short --prefill-chunk.
const story = (topic, n) => Array.from({ length: n }, (_, i) =>
    `Part ${i + 1} of the tale of the ${topic} tells of ${['storms', 'harvests', 'travellers', 'songs'][i % 4]}`).join('. ');
const LONG = [
    { name: 'long text', max: 8, stream: false, messages: [{ role: 'user', content: story('lighthouse', 24) }] },
    { name: 'long text, streamed', max: 10, stream: true, messages: [{ role: 'user', content: story('mill', 30) }] },
    { name: 'chelsea + long text', max: 8, stream: false,
      messages: [{ role: 'user', content: [CHELSEA, text(story('cat', 20))] }] },
    { name: 'long completion, streamed', max: 8, stream: true, prompt: story('bridge', 26) },
];

// One request to the end: { text, finish, usage }.
async function run(r) {
    const body = { model: 'model', temperature: 0, ignore_eos: true, max_tokens: r.max, stream: r.stream };
    if (r.stream) body.stream_options = { include_usage: true };
    const api = r.prompt ? c.completions : c.chat.completions;
    const res = await api.create(r.prompt ? { ...body, prompt: r.prompt } : { ...body, messages: r.messages });
    if (!r.stream) {
        const ch = res.choices[0];
        return { text: r.prompt ? ch.text : ch.message.content, finish: ch.finish_reason, usage: res.usage };
    }
    let out = '', finish = null, usage = null;
    for await (const ch of res) {
        if (ch.usage) usage = ch.usage;
        const choice = ch.choices[0];
        if (!choice) continue;
        out += (r.prompt ? choice.text : choice.delta.content) ?? '';
        if (choice.finish_reason) finish = choice.finish_reason;
    }
    return { text: out, finish, usage };
}

// A long stream watched from outside: chunks so far, text, whether it finished, how it ended.
function watch(content, max) {
    const ac = new AbortController();
    const st = { chunks: 0, text: '', finished: false, error: null, abortAt: 0, ac };
    let first;
    st.first = new Promise((r) => (first = r));
    st.done = (async () => {
        try {
            const stream = await c.chat.completions.create(
                { model: 'model', temperature: 0, ignore_eos: true, max_tokens: max, stream: true,
                  messages: [{ role: 'user', content }] }, { signal: ac.signal });
            for await (const ch of stream) {
                st.chunks++;
                st.text += ch.choices[0]?.delta?.content ?? '';
                if (st.text) first();
                if (ch.choices[0]?.finish_reason) st.finished = true;
                if (st.abortAt && st.chunks >= st.abortAt) ac.abort();
            }
        } catch (e) {
            st.error = e;
        }
        first();
    })();
    return st;
}

// The client ends an aborted stream's iteration quietly (or with its abort error): aborted, never
// finished, no other error.
const aborted = (s) => s.ac.signal.aborted && !s.finished && (!s.error || s.error instanceof OpenAI.APIUserAbortError ||
                                                              s.error.name === 'AbortError');
const solo = [];
// Usage without the prefix cache's share (a repeated prompt is served partly from it).
const counts = ({ prompt_tokens_details: _, ...rest }) => rest;

await runCases('isolation.mjs', [
    ['8 requests alone', async () => {
        for (const r of REQUESTS) {
            const out = await run(r);
            a.equal(out.finish, 'length', r.name);
            a.equal(out.usage.completion_tokens, r.max, r.name);
            a.ok(out.usage.prompt_tokens > 0 && out.text.length > 0, r.name);
            solo.push(out);
        }
        // Those with an oracle from `tessera run`.
        a.equal(solo[2].text, O[`${ORACLE}_image`].text, 'chelsea alone = run --image');
        a.equal(solo[2].usage.prompt_tokens, O[`${ORACLE}_image`].prompt_tokens);
        a.equal(solo[4].text, O[`${ORACLE}_two`].text, 'two images alone = run with two images');
        a.equal(solo[4].usage.prompt_tokens, O[`${ORACLE}_two`].prompt_tokens);
        a.equal(new Set(solo.map((s) => s.text)).size, REQUESTS.length, '8 different texts');
    }],

    ['the same 8 together', async () => {
        for (const order of [[0, 1, 2, 3, 4, 5, 6, 7], [7, 5, 3, 1, 6, 4, 2, 0]]) {
            const outs = await Promise.all(order.map((i) => run(REQUESTS[i])));
            order.forEach((i, k) => {
                a.equal(outs[k].text, solo[i].text, `${REQUESTS[i].name}: together = alone`);
                a.deepEqual(counts(outs[k].usage), counts(solo[i].usage), `${REQUESTS[i].name}: usage`);
                a.equal(outs[k].finish, 'length');
            });
        }
    }],

    ['a cancelled stream frees its slot', async () => {
        const long = [watch('Tell me everything about mountains.', 3000), watch('List every city you know.', 3000),
                      watch([COFFEE, text('Describe every detail.')], 3000)];
        const victim = watch('Count from one to a million.', 3000);
        await Promise.all([...long, victim].map((s) => s.first));
        let m = await metrics(PORT);
        a.equal(m.tessera_slots_busy, 4, 'all 4 slots busy');
        a.equal(m.tessera_queue_depth, 0);
        victim.abortAt = 3;
        await victim.done;
        a.ok(aborted(victim), `the victim ended by its abort: ${victim.error}`);
        a.ok(victim.chunks >= 3);
        // Only the victim's slot can take this one: it must finish while the others still run.
        const r = REQUESTS[2];
        const out = await run(r);
        a.equal(out.text, solo[2].text, 'in the freed slot, the solo text');
        a.deepEqual(counts(out.usage), counts(solo[2].usage));
        a.ok(long.every((s) => !s.finished && !s.error), 'the 3 long streams were still generating');
        m = await waitMetrics(PORT, (x) => x.tessera_slots_busy === 3);
        a.equal(m.tessera_slots_busy, 3, 'the 3 long streams keep their slots');
        for (const s of long) s.ac.abort();
        await Promise.all(long.map((s) => s.done));
        a.ok(long.every(aborted));
    }],

    // Engine servers only: a bundle prefills whole prompts up to its prefill capacity.
    ...(!process.env.TS_SHARED_PREFILL ? [] : [['long prompts prefilled in the same steps', async () => {
        // Together first, while the prefix cache holds none of these prompts (it stores a prompt when
        // its request ends; at most a shared template prefix), so each is really prefilled; then each
        // alone, which may restore its prefix from the cache: the texts and counts must be the same,
        // only the cached share differs.
        const before = await metrics(PORT);
        const outs = await Promise.all(LONG.map(run));
        const after = await metrics(PORT);
        const alone = [];
        for (const r of LONG) alone.push(await run(r));
        a.ok(alone.every((o) => o.usage.prompt_tokens > 150), `long prompts: ${alone.map((o) => o.usage.prompt_tokens)}`);
        const counts = ({ prompt_tokens, completion_tokens, total_tokens }) => ({ prompt_tokens, completion_tokens, total_tokens });
        LONG.forEach((r, k) => {
            a.equal(outs[k].text, alone[k].text, `${r.name}: together = alone`);
            a.deepEqual(counts(outs[k].usage), counts(alone[k].usage), `${r.name}: usage`);
        });
        const shared = after.tessera_steps_shared_prefill_total - before.tessera_steps_shared_prefill_total;
        const chunks = after.tessera_step_prefill_chunks_total - before.tessera_step_prefill_chunks_total;
        const steps = after.tessera_model_steps_total - before.tessera_model_steps_total;
        console.log(`    ${steps} steps, ${chunks} prompt chunks, ${shared} steps prefilled 2+ prompts together, ` +
                    `at most ${after.tessera_step_prefill_chunks_max} in one step`);
        a.ok(steps > 0 && chunks >= LONG.length, 'the steps are counted');
        a.ok(shared > 0, 'steps prefilled several prompts together');
        a.ok(after.tessera_step_prefill_chunks_max >= 2);
    }], ['a long prompt does not hold up short ones', async () => {
        // The long prompt takes dozens of steps; the short ones one chunk each, which the round
        // robin and the step budget give them within the first steps: they all end before the
        // long prompt's first token.
        let longFirst = 0;
        const long = (async () => {
            const s = await c.chat.completions.create({ model: 'model', temperature: 0, ignore_eos: true, max_tokens: 2,
                stream: true, messages: [{ role: 'user', content: story('harbour', 90) }] });
            for await (const ch of s) if (ch.choices[0]?.delta?.content && !longFirst) longFirst = performance.now();
        })();
        const ends = await Promise.all([0, 1, 2].map(async (i) => {
            const out = await run({ max: 2, stream: false, messages: [{ role: 'user', content: `Short question ${i}: why?` }] });
            a.equal(out.usage.completion_tokens, 2);
            return performance.now();
        }));
        await long;
        a.ok(longFirst > 0, 'the long prompt answered');
        a.ok(ends.every((t) => t < longFirst), `short requests ended ${ends.map((t) => (longFirst - t).toFixed(0))} ms ` +
             'before the long prompt\'s first token');
    }]]),

    ['afterwards: no busy slot, empty queue, same answers', async () => {
        const m = await waitMetrics(PORT, (x) => x.tessera_slots_busy === 0 && x.tessera_queue_depth === 0);
        a.equal(m.tessera_slots_busy, 0);
        a.equal(m.tessera_queue_depth, 0);
        a.equal(m.tessera_slots_total, 4);
        const outs = await Promise.all([run(REQUESTS[1]), run(REQUESTS[5])]);
        a.equal(outs[0].text, solo[1].text);
        a.equal(outs[1].text, solo[5].text);
    }],
]);
