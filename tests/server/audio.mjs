// audio.mjs — input_audio end to end on Phi-4-multimodal (phi4_mm-audio, --slots 2, TS_PORT):
// the media stage decodes, resamples, extracts features and encodes the clip, the slot runs the
// speech adapter. The fixture's clip with its messages gives `tessera run`'s text, whose ids are the
// reference's 16 (reference.json, checked here too); /v1/models lists audio; an audio request
// and a text request together (speech adapter beside none in one batch) each give their solo
// text; a request cancelled while its long clips are being encoded (the client closes the socket)
// leaves no busy slot and no queue, and the next request gets its tokens; images beside audio
// are refused with a 400.
import fs from 'node:fs';
import { a, client, env, fixture, http, oracles, runCases, sleep, waitMetrics } from './lib.mjs';

const PORT = env('TS_PORT');
const O = oracles();
const c = await client(PORT);
const REF = JSON.parse(fs.readFileSync(fixture('phi4_mm-audio', 'reference.json'), 'utf8'));
const WAV = fs.readFileSync(fixture('phi4_mm-audio', 'speech_16k_s16_1s.wav'));
const audio = (buf) => ({ type: 'input_audio', input_audio: { data: buf.toString('base64'), format: 'wav' } });
const AUDIO_MSG = [{ role: 'user', content: [audio(WAV), { type: 'text', text: 'Transcribe the audio.' }] }];
const TEXT_MSG = [{ role: 'user', content: 'Write a short poem about the sea.' }];

// A mono 16-bit 16 kHz WAV of `seconds` of a gliding tone (long enough to take a while to encode).
function longWav(seconds) {
    const n = seconds * 16000, data = Buffer.alloc(n * 2);
    for (let i = 0; i < n; i++) data.writeInt16LE(Math.round(8000 * Math.sin(i * (0.01 + i * 1e-8))), i * 2);
    const h = Buffer.alloc(44);
    h.write('RIFF', 0), h.writeUInt32LE(36 + data.length, 4), h.write('WAVE', 8), h.write('fmt ', 12);
    h.writeUInt32LE(16, 16), h.writeUInt16LE(1, 20), h.writeUInt16LE(1, 22), h.writeUInt32LE(16000, 24);
    h.writeUInt32LE(32000, 28), h.writeUInt16LE(2, 32), h.writeUInt16LE(16, 34), h.write('data', 36);
    h.writeUInt32LE(data.length, 40);
    return Buffer.concat([h, data]);
}

async function chat(messages, max = 16) {
    const r = await c.chat.completions.create({ model: 'model', messages, temperature: 0, ignore_eos: true, max_tokens: max });
    return { text: r.choices[0].message.content, usage: r.usage };
}

await runCases('audio.mjs', [
    ['the oracle is the reference', async () => {
        a.deepEqual(O.phi4_audio.generated_ids, REF.generated_ids, '`tessera run --audio` gives the reference ids');
        a.equal(O.phi4_audio.prompt_tokens, REF.input_ids.length);
    }],
    ['/v1/models lists image and audio', async () => {
        const r = await http(PORT, 'GET', '/v1/models');
        a.equal(r.status, 200);
        a.deepEqual(r.json.data[0].input_modalities, ['text', 'image', 'audio']);
    }],
    ['an audio request gives the fixture\'s 16 tokens', async () => {
        const r = await chat(AUDIO_MSG);
        a.equal(r.text, O.phi4_audio.text);
        a.equal(r.usage.completion_tokens, 16);
        a.equal(r.usage.prompt_tokens, REF.input_ids.length);
    }],
    ['audio (speech adapter) and text (none) together: each its solo text', async () => {
        for (let round = 0; round < 2; round++) {
            const [au, tx] = await Promise.all([chat(AUDIO_MSG), chat(TEXT_MSG)]);
            a.equal(au.text, O.phi4_audio.text, `round ${round}: audio`);
            a.equal(tx.text, O.phi4_text.text, `round ${round}: text`);
        }
        const tx = await chat(TEXT_MSG); // the slot that ran speech is back to no adapter
        a.equal(tx.text, O.phi4_text.text);
    }],
    ['a request cancelled during its encode frees everything', async () => {
        const clip = longWav(60);
        const ac = new AbortController();
        const body = { model: 'model', max_tokens: 4, messages: [{ role: 'user', content: [audio(clip), audio(clip), { type: 'text', text: 'Hi.' }] }] };
        const sent = fetch(`http://127.0.0.1:${PORT}/v1/chat/completions`, {
            method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), signal: ac.signal });
        await sleep(300);
        ac.abort();
        await sent.catch(() => {});
        const m = await waitMetrics(PORT, (s) => s.tessera_slots_busy === 0 && s.tessera_queue_depth === 0);
        a.equal(m.tessera_slots_busy, 0);
        a.equal(m.tessera_queue_depth, 0);
        const r = await chat(AUDIO_MSG);
        a.equal(r.text, O.phi4_audio.text);
    }],
    ['images beside audio are refused', async () => {
        const png = fs.readFileSync(fixture('media', 'tiny.png')).toString('base64');
        const r = await http(PORT, 'POST', '/v1/chat/completions', { model: 'model', messages: [{ role: 'user', content: [
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }, audio(WAV), { type: 'text', text: 'Hi' }] }] });
        a.equal(r.status, 400);
        a.match(r.json.error.message, /images and audio in one request are not supported/);
    }],
]);
