// longrope.mjs — Phi-4's longrope switch through the server (phi4_mm-longrope-*: the long factors
// past 32 positions; TS_PORT: 8-token prefill chunks, the prefix cache, --draft 4; TS_NOCACHE_PORT:
// the same chunks, no prefix cache, no drafts). A prompt under 32 whose generation passes it and a
// prompt over 32 (chunks 1-4 short until the 5th passes 32, then computed again — or, told the
// prompt's length by the prefix cache, long from chunk 1): alone, then together in one batch (a
// short and a long sequence in one step), twice (the second round restores cached blocks), each
// gives `tessera run`'s text, whose ids are the reference's (checked here).
import fs from 'node:fs';
import { a, client, env, fixture, oracles, runCases } from './lib.mjs';

const O = oracles();
const CASES = ['cross', 'long'].map((name) => {
    const ref = JSON.parse(fs.readFileSync(fixture(`phi4_mm-longrope-${name}`, 'reference.json'), 'utf8'));
    return { name, ref, oracle: O[`lr_${name}`], messages: [{ role: 'user', content: ref.messages[0].content }] };
});
const servers = [['cache, drafts', await client(env('TS_PORT'))], ['no cache', await client(env('TS_NOCACHE_PORT'))]];

async function chat(c, k) {
    const r = await c.chat.completions.create({ model: 'model', messages: k.messages, temperature: 0, ignore_eos: true, max_tokens: 16 });
    a.equal(r.usage.completion_tokens, 16, `${k.name}: 16 tokens`);
    a.equal(r.usage.prompt_tokens, k.ref.input_ids.length, `${k.name}: the fixture's prompt`);
    return r.choices[0].message.content;
}

await runCases('longrope.mjs', [
    ['the oracles are the reference', async () => {
        for (const k of CASES) a.deepEqual(k.oracle.generated_ids, k.ref.generated_ids, `${k.name}: tessera run's ids`);
    }],
    ...servers.map(([label, c]) => [`${label}: each alone, then both in one batch, twice`, async () => {
        for (const k of CASES) a.equal(await chat(c, k), k.oracle.text, `${k.name} alone`);
        for (let round = 0; round < 2; round++) {
            const texts = await Promise.all(CASES.map((k) => chat(c, k)));
            CASES.forEach((k, i) => a.equal(texts[i], k.oracle.text, `round ${round}: ${k.name}`));
        }
    }]),
]);
