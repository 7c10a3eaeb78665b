// audio.mjs — Phi-4-multimodal's media end to end (phi4_mm-audio's model, --slots 3, TS_PORT):
// input_audio (the media stage decodes, resamples, extracts features and encodes the clip, the
// slot runs the speech adapter), image_url (the HD processor, the tower, the vision adapter) and
// both in one request (the clip through the vision_speech projector, the vision adapter). The
// fixtures' inputs with their messages give `tessera run`'s texts, whose ids are the references'
// 16 (phi4_mm-audio, -image, -mixed: checked here too); /v1/models lists image and audio; an
// audio, an image and a text request together (speech, vision and no adapter in one batch) each
// give their solo text; a request cancelled while its long clips or its many-crop image are being
// encoded (the client closes the socket) leaves no busy slot and no queue, and the next request
// gets its tokens.
import fs from 'node:fs';
import { a, client, env, fixture, http, oracles, runCases, sleep, waitMetrics, zeroPng } from './lib.mjs';

const PORT = env('TS_PORT');
const O = oracles();
const c = await client(PORT);
const REF = JSON.parse(fs.readFileSync(fixture('phi4_mm-audio', 'reference.json'), 'utf8'));
const WAV = fs.readFileSync(fixture('phi4_mm-audio', 'speech_16k_s16_1s.wav'));
const audio = (buf) => ({ type: 'input_audio', input_audio: { data: buf.toString('base64'), format: 'wav' } });
const AUDIO_MSG = [{ role: 'user', content: [audio(WAV), { type: 'text', text: 'Transcribe the audio.' }] }];
const TEXT_MSG = [{ role: 'user', content: 'Write a short poem about the sea.' }];
const REF_IMAGE = JSON.parse(fs.readFileSync(fixture('phi4_mm-image', 'reference.json'), 'utf8'));
const REF_MIXED = JSON.parse(fs.readFileSync(fixture('phi4_mm-mixed', 'reference.json'), 'utf8'));
const image = (buf) => ({ type: 'image_url', image_url: { url: `data:image/png;base64,${buf.toString('base64')}` } });
const CHELSEA = fs.readFileSync(fixture('phi4_mm-image', 'chelsea.png'));
const IMAGE_MSG = [{ role: 'user', content: [image(CHELSEA), { type: 'text', text: 'Describe this image.' }] }];
const MIXED_MSG = [{ role: 'user', content: [image(CHELSEA), audio(WAV), { type: 'text', text: 'Describe the image and transcribe the audio.' }] }];

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

// A request of these media parts the client abandons 300 ms in (during its encode): no slot stays
// busy and nothing stays queued.
async function cancelDuringEncode(parts) {
    const ac = new AbortController();
    const body = { model: 'model', max_tokens: 4, messages: [{ role: 'user', content: [...parts, { type: 'text', text: 'Hi.' }] }] };
    const sent = fetch(`http://127.0.0.1:${PORT}/v1/chat/completions`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), signal: ac.signal });
    await sleep(300);
    ac.abort();
    await sent.catch(() => {});
    const m = await waitMetrics(PORT, (s) => s.tessera_slots_busy === 0 && s.tessera_queue_depth === 0);
    a.equal(m.tessera_slots_busy, 0);
    a.equal(m.tessera_queue_depth, 0);
}

async function chat(messages, max = 16) {
    const r = await c.chat.completions.create({ model: 'model', messages, temperature: 0, ignore_eos: true, max_tokens: max });
    return { text: r.choices[0].message.content, usage: r.usage };
}

await runCases('audio.mjs', [
    ['the oracle is the reference', async () => {
        a.deepEqual(O.phi4_audio.generated_ids, REF.generated_ids, '`tessera run --audio` gives the reference ids');
        a.equal(O.phi4_audio.prompt_tokens, REF.input_ids.length);
        a.deepEqual(O.phi4_image.generated_ids, REF_IMAGE.generated_ids, '`tessera run --image` gives the reference ids');
        a.deepEqual(O.phi4_mixed.generated_ids, REF_MIXED.generated_ids, '`tessera run --image --audio` gives the reference ids');
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
    ['an image request gives the fixture\'s 16 tokens', async () => {
        const r = await chat(IMAGE_MSG);
        a.equal(r.text, O.phi4_image.text);
        a.equal(r.usage.prompt_tokens, REF_IMAGE.input_ids.length);
    }],
    ['image and audio in one request give the fixture\'s 16 tokens', async () => {
        const r = await chat(MIXED_MSG);
        a.equal(r.text, O.phi4_mixed.text);
        a.equal(r.usage.prompt_tokens, REF_MIXED.input_ids.length);
    }],
    ['audio (speech), image (vision) and text (none) together: each its solo text', async () => {
        for (let round = 0; round < 2; round++) {
            const [au, im, tx] = await Promise.all([chat(AUDIO_MSG), chat(IMAGE_MSG), chat(TEXT_MSG)]);
            a.equal(au.text, O.phi4_audio.text, `round ${round}: audio`);
            a.equal(im.text, O.phi4_image.text, `round ${round}: image`);
            a.equal(tx.text, O.phi4_text.text, `round ${round}: text`);
        }
        const [tx, mx] = await Promise.all([chat(TEXT_MSG), chat(MIXED_MSG)]); // slots reused: adapters reset
        a.equal(tx.text, O.phi4_text.text);
        a.equal(mx.text, O.phi4_mixed.text);
    }],
    ['a request cancelled during its audio encode frees everything', async () => {
        const clip = longWav(60);
        await cancelDuringEncode([audio(clip), audio(clip)]);
        const r = await chat(AUDIO_MSG);
        a.equal(r.text, O.phi4_audio.text);
    }],
    ['a request cancelled during its image encode frees everything', async () => {
        // 1790 x 1790: 4 x 4 crops + the global view, 17 tower runs (the HD canvas of dynamic_hd 36).
        const big = zeroPng(1790, 1790);
        await cancelDuringEncode([image(big), image(big)]);
        const r = await chat(IMAGE_MSG);
        a.equal(r.text, O.phi4_image.text);
    }],
]);
