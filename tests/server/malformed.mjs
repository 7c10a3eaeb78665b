// malformed.mjs — requests the server must refuse, sent with plain fetch so that bodies can be
// broken (qwen2_vl, TS_PORT, started with --max-request-bytes 65536 --max-images 2
// --image-max-tokens 64 --capacity 256 --media-root TS_MEDIA_ROOT --max-audio 3
// --max-audio-seconds 2 --max-request-audio-seconds 2). Each: the status, an OpenAI error object
// (valid UTF-8 JSON, error.message a non-empty string holding the expected words, error.type,
// error.code null, error.param when named), and GET /health 200 right after. The malformed audio
// (input_audio parts: WAV headers built here field by field, the committed clips of
// tools/make_audio_clips.sh cut or rewritten as in src/media/audio_malformed_test.c) is followed,
// besides, by a text request that must still get its 4 tokens; well-formed clips get the 400 of a
// model that takes no audio. Ends with the requests that must work, and the error counts of
// /metrics against what was sent.
import fs from 'node:fs';
import path from 'node:path';
import { a, env, fixture, runCases } from './lib.mjs';

const PORT = env('TS_PORT'), MEDIA = env('TS_MEDIA_ROOT'), OUTSIDE = env('TS_OUTSIDE');
const CHAT = '/v1/chat/completions', COMPLETIONS = '/v1/completions';
// chelsea.png is 240 KB, over the body limit as a data: URL; it is read from the media root, and
// tiny.png (12×8) travels in bodies.
const CHELSEA = fs.readFileSync(fixture('qwen2_vl', 'chelsea.png'));
const PNG_URL = `data:image/png;base64,${fs.readFileSync(fixture('media', 'tiny.png')).toString('base64')}`;
const b64 = (s) => Buffer.from(s).toString('base64');
const clip = (name) => fs.readFileSync(fixture('media', 'audio', name));

const user = (content) => [{ role: 'user', content }];
const chat = (extra = {}) => ({ model: 'model', messages: user('hi'), max_tokens: 4, ...extra });
const image = (url, t = 'What is this?') => chat({ messages: user([{ type: 'image_url', image_url: { url } }, { type: 'text', text: t }]) });
const fileUrl = (p) => `file://${p}`;

// [name, method, route, body (object → JSON, string/Buffer → as is, undefined → none), status, pattern, param]
const CASES = [
    // --- not JSON, or not an object
    ['truncated JSON', 'POST', CHAT, '{"messages": [', 400, /not valid JSON/],
    ['unbalanced brackets', 'POST', CHAT, '{"messages": [}', 400, /not valid JSON/],
    ['not JSON at all', 'POST', CHAT, 'hello server', 400, /not valid JSON/],
    ['trailing comma', 'POST', CHAT, '{"messages": [{"role": "user", "content": "hi"}],}', 400, /not valid JSON/],
    ['single quotes', 'POST', CHAT, "{'messages': []}", 400, /not valid JSON/],
    ['garbage after the object', 'POST', CHAT, '{"messages": [{"role": "user", "content": "hi"}]} {"x": 1}', 400, /more after the JSON value/],
    ['an array body', 'POST', CHAT, '[1, 2, 3]', 400, /must be a JSON object, not an array/],
    ['a string body', 'POST', CHAT, '"hello"', 400, /must be a JSON object, not a string/],
    ['a null body', 'POST', COMPLETIONS, 'null', 400, /must be a JSON object, not null/],
    ['whitespace only', 'POST', CHAT, ' \n\t ', 400, /body is empty/],
    ['no body', 'POST', CHAT, undefined, 400, /body is empty/],
    ['binary junk', 'POST', CHAT, Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x80]), 400, /not valid JSON/],

    // --- messages
    ['messages missing', 'POST', CHAT, { model: 'model' }, 400, /"messages" is required/, 'messages'],
    ['messages a string', 'POST', CHAT, { messages: 'hi' }, 400, /"messages" must be an array/, 'messages'],
    ['messages empty', 'POST', CHAT, { messages: [] }, 400, /must not be empty/, 'messages'],
    ['a message that is a string', 'POST', CHAT, { messages: ['hi'] }, 400, /"messages\[0\]" must be an object/, 'messages[0]'],
    ['role missing', 'POST', CHAT, { messages: [{ content: 'hi' }] }, 400, /"messages\[0\]\.role" is required/, 'messages[0].role'],
    ['role a number', 'POST', CHAT, { messages: [{ role: 5, content: 'hi' }] }, 400, /role" must be a string/, 'messages[0].role'],
    ['unknown role', 'POST', CHAT, { messages: [{ role: 'wizard', content: 'hi' }] }, 400, /unknown role "wizard"/, 'messages[0].role'],
    ['unknown role in bytes that are not UTF-8', 'POST', CHAT, Buffer.from('{"messages":[{"role":"\xff\xfe\xfd","content":"hi"}]}', 'latin1'),
     400, /unknown role "\uFFFD\uFFFD\uFFFD"/, 'messages[0].role'],
    ['unknown role, long and not ASCII', 'POST', CHAT, { messages: [{ role: 'ü'.repeat(60), content: 'hi' }] }, 400, /unknown role "ü+\.\.\."/],
    ['tool role', 'POST', CHAT, { messages: [{ role: 'tool', content: 'hi' }] }, 400, /no tool calling/],
    ['content a number', 'POST', CHAT, { messages: [{ role: 'user', content: 42 }] }, 400,
     /must be a string or an array of content parts/, 'messages[0].content'],
    ['user content missing', 'POST', CHAT, { messages: [{ role: 'user' }] }, 400, /"messages\[0\]\.content" is required/],
    ['content part without type', 'POST', CHAT, { messages: user([{ text: 'hi' }]) }, 400, /content\[0\]\.type" is required/],
    ['audio content part of three zero bytes', 'POST', CHAT, { messages: user([{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }]) },
     400, /input_audio\.data: the audio cannot be accepted: audio: not a WAV, FLAC, MP3 or Ogg file/, 'messages[0].content[0].input_audio.data'],
    ['text part with a number', 'POST', CHAT, { messages: user([{ type: 'text', text: 7 }]) }, 400, /\.text" must be a string/],
    ['tools', 'POST', CHAT, chat({ tools: [{ type: 'function', function: { name: 'f' } }] }), 400, /tool calling is not supported/, 'tools'],
    ['response_format json_object', 'POST', CHAT, chat({ response_format: { type: 'json_object' } }), 400, /"json_object" is not supported/],

    // --- fields of the wrong type or out of range
    ['model a number', 'POST', CHAT, chat({ model: 5 }), 400, /"model" must be a string/, 'model'],
    ['temperature a string', 'POST', CHAT, chat({ temperature: 'hot' }), 400, /"temperature" must be a number/, 'temperature'],
    ['temperature negative', 'POST', CHAT, chat({ temperature: -1 }), 400, /"temperature" must be in \[0, 2\]/, 'temperature'],
    ['top_p zero', 'POST', CHAT, chat({ top_p: 0 }), 400, /"top_p" must be in \(0, 1\]/, 'top_p'],
    ['top_k below -1', 'POST', CHAT, chat({ top_k: -5 }), 400, /"top_k" must be -1/, 'top_k'],
    ['stream a string', 'POST', CHAT, chat({ stream: 'yes' }), 400, /"stream" must be a boolean/, 'stream'],
    ['stream_options a string', 'POST', CHAT, chat({ stream_options: 'usage' }), 400, /"stream_options" must be an object/],
    ['ignore_eos a number', 'POST', CHAT, chat({ ignore_eos: 1 }), 400, /"ignore_eos" must be a boolean/, 'ignore_eos'],
    ['seed a string', 'POST', CHAT, chat({ seed: 'x' }), 400, /"seed" must be an integer/, 'seed'],
    ['max_tokens a string', 'POST', CHAT, chat({ max_tokens: '10' }), 400, /"max_tokens" must be an integer/, 'max_tokens'],
    ['max_tokens fractional', 'POST', CHAT, chat({ max_tokens: 1.5 }), 400, /must be an integer, got 1\.5/, 'max_tokens'],
    ['max_tokens negative', 'POST', CHAT, chat({ max_tokens: -5 }), 400, /"max_tokens" must be at least 1, got -5/, 'max_tokens'],
    ['max_tokens zero', 'POST', CHAT, chat({ max_tokens: 0 }), 400, /"max_tokens" must be at least 1, got 0/, 'max_tokens'],
    ['max_completion_tokens zero', 'POST', CHAT, chat({ max_completion_tokens: 0 }), 400, /"max_completion_tokens" must be at least 1/],
    ['max_tokens 1e9, past the context', 'POST', CHAT, chat({ max_tokens: 1e9 }), 400,
     /max_tokens 1000000000 does not fit: the prompt has \d+ tokens and the context holds 256/, 'max_tokens'],
    ['max_tokens 1e15', 'POST', CHAT, chat({ max_tokens: 1e15 }), 400, /"max_tokens" is too large/, 'max_tokens'],
    ['n = 2', 'POST', CHAT, chat({ n: 2 }), 400, /only n = 1/, 'n'],
    ['stop: 20 strings', 'POST', CHAT, chat({ stop: Array.from({ length: 20 }, (_, i) => `s${i}`) }), 400, /stop: 20 strings, at most 16/, 'stop'],
    ['stop: an empty string', 'POST', CHAT, chat({ stop: ['a', ''] }), 400, /"stop\[1\]" must not be an empty string/, 'stop[1]'],
    ['stop: a number', 'POST', CHAT, chat({ stop: 5 }), 400, /"stop" must be a string or an array of strings/, 'stop'],
    ['logit_bias: a word as key', 'POST', CHAT, chat({ logit_bias: { abc: 1 } }), 400, /key "abc" is not a token id/, 'logit_bias'],
    ['logit_bias: outside the vocabulary', 'POST', CHAT, chat({ logit_bias: { 99999: 1 } }), 400, /outside the vocabulary \[0, 1344\)/],
    ['logit_bias: a bias of 500', 'POST', CHAT, chat({ logit_bias: { 5: 500 } }), 400, /must be a number in \[-100, 100\]/],
    ['top_logprobs without logprobs', 'POST', CHAT, chat({ top_logprobs: 3 }), 400, /requires "logprobs": true/, 'top_logprobs'],
    ['top_logprobs 50', 'POST', CHAT, chat({ logprobs: true, top_logprobs: 50 }), 400, /"top_logprobs" must be in \[0, 20\], got 50/],
    ['min_pixels above max_pixels', 'POST', CHAT, chat({ mm_processor_kwargs: { min_pixels: 5000, max_pixels: 4000 } }), 400,
     /min_pixels 5000 is greater than max_pixels 4000/],

    // --- images
    ['remote http image', 'POST', CHAT, image('http://example.com/cat.png'), 400, /remote image URLs are not fetched/,
     'messages[0].content[0].image_url.url'],
    ['remote https image', 'POST', CHAT, image('https://example.com/cat.png'), 400, /remote image URLs are not fetched/],
    ['ftp image', 'POST', CHAT, image('ftp://example.com/cat.png'), 400, /scheme "ftp" is not supported/],
    ['a bare path as URL', 'POST', CHAT, image('/etc/passwd'), 400, /not a data: URL/],
    ['bad base64 character', 'POST', CHAT, image('data:image/png;base64,iVBO@@@@'), 400, /invalid base64 character '@' at offset 4/],
    ['bad base64 padding', 'POST', CHAT, image('data:image/png;base64,abc=='), 400, /bad base64 padding/],
    ['empty base64', 'POST', CHAT, image('data:image/png;base64,'), 400, /image data is empty/],
    ['data: URL not base64', 'POST', CHAT, image('data:image/png,rawbytes'), 400, /must be base64/],
    ['data:text/plain', 'POST', CHAT, image(`data:text/plain;base64,${b64('hello')}`), 400, /not an image \(data:text\/plain\)/],
    ['data:image/png that is text', 'POST', CHAT, image(`data:image/png;base64,${b64('this is not a PNG file, only text')}`), 400,
     /messages\[0\]\.content\[0\]: the image cannot be decoded/, 'messages[0].content[0]'],
    ['data:image/png, a truncated PNG', 'POST', CHAT, image(`data:image/png;base64,${CHELSEA.subarray(0, 2000).toString('base64')}`), 400,
     /the image cannot be decoded/],
    ['image in an assistant message', 'POST', CHAT,
     { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'image_url', image_url: { url: PNG_URL } }] }] },
     400, /images are only allowed in user messages/],
    ['image_url missing', 'POST', CHAT, { messages: user([{ type: 'image_url' }]) }, 400, /content\[0\]\.image_url" is required/],
    ['image_url.url a number', 'POST', CHAT, { messages: user([{ type: 'image_url', image_url: { url: 3 } }]) }, 400, /\.url" must be a string/],
    ['3 images, at most 2', 'POST', CHAT,
     chat({ messages: user([1, 2, 3].map(() => ({ type: 'image_url', image_url: { url: PNG_URL } }))) }), 400,
     /3 images, at most 2 per request/],
    ['max_pixels over the image budget', 'POST', CHAT,
     { ...image(PNG_URL), mm_processor_kwargs: { max_pixels: 1000000 } }, 400,
     /max_pixels 1000000 is over this server's image budget of 50176 pixels \(64 tokens per image\)/, 'mm_processor_kwargs.max_pixels'],
    ['min_pixels over the image budget', 'POST', CHAT,
     { ...image(PNG_URL), mm_processor_kwargs: { min_pixels: 60000 } }, 400, /min_pixels 60000 is over this server's image budget/],

    // --- file:// under the media root
    ['file:// traversal with ..', 'POST', CHAT, image(fileUrl(`${MEDIA}/sub/../../${path.basename(OUTSIDE)}/secret.png`)), 400,
     /is not a file under the media root/],
    ['file:// traversal, percent-encoded', 'POST', CHAT, image(fileUrl(`${MEDIA}/%2e%2e/${path.basename(OUTSIDE)}/secret.png`)), 400,
     /is not a file under the media root/],
    ['file:// symlink to a file outside', 'POST', CHAT, image(fileUrl(`${MEDIA}/escape.png`)), 400, /is not a file under the media root/],
    ['file:// through a symlinked folder', 'POST', CHAT, image(fileUrl(`${MEDIA}/outdir/secret.png`)), 400,
     /is not a file under the media root/],
    ['file:// outside the root', 'POST', CHAT, image(fileUrl(`${OUTSIDE}/secret.png`)), 400, /is not a file under the media root/],
    ['file:///etc/passwd', 'POST', CHAT, image('file:///etc/passwd'), 400, /is not a file under the media root/],
    ['file:// missing file', 'POST', CHAT, image(fileUrl(`${MEDIA}/nothing-here.png`)), 400, /is not a file under the media root/],
    ['file:// the root itself', 'POST', CHAT, image(fileUrl(MEDIA)), 400, /is not a file under the media root/],
    ['file:// a folder', 'POST', CHAT, image(fileUrl(`${MEDIA}/sub`)), 400, /is not a regular file/],
    ['file:// another host', 'POST', CHAT, image('file://otherhost/etc/passwd'), 400, /names the host "otherhost"/],
    ['file:// bad percent escape', 'POST', CHAT, image(fileUrl(`${MEDIA}/sub/%zzcat.png`)), 400, /bad percent escape/],
    ['file:// a text file named .png', 'POST', CHAT, image(fileUrl(`${MEDIA}/notes.png`)), 400, /the image cannot be decoded/],

    // --- sizes and capacity
    ['a 100 KB body', 'POST', CHAT, chat({ messages: user('x'.repeat(100 * 1024)) }), 413,
     /larger than this server's limit of 65536 bytes/],
    ['a prompt longer than the context', 'POST', CHAT, chat({ messages: user('the sea is blue and wide '.repeat(60)) }), 400,
     /the prompt has \d+ tokens; this server's context holds 256/, 'messages'],
    ['an image prompt longer than the context', 'POST', CHAT, image(PNG_URL, 'describe the sea '.repeat(50)), 400,
     /the prompt has \d+ tokens; this server's context holds 256/],

    ['invalid UTF-8 in the content', 'POST', CHAT,
     Buffer.concat([Buffer.from('{"messages": [{"role": "user", "content": "hi '), Buffer.from([0xff, 0xfe]), Buffer.from(' there"}]}')]),
     400, /cannot tokenize the prompt: .*invalid UTF-8/, 'messages'],

    // --- streamed: the stream starts with the first token, so these still get their status
    ['streamed: an image that cannot be decoded', 'POST', CHAT,
     { ...image(`data:image/png;base64,${b64('plain text, no image')}`), stream: true }, 400, /the image cannot be decoded/],
    ['streamed: a prompt longer than the context', 'POST', CHAT,
     chat({ stream: true, messages: user('the sea is blue and wide '.repeat(60)) }), 400, /this server's context holds 256/],
    ['streamed: max_tokens past the context', 'POST', COMPLETIONS, { prompt: 'hi', max_tokens: 1000, stream: true }, 400,
     /max_tokens 1000 does not fit/, 'max_tokens'],

    // --- completions
    ['completions: prompt missing', 'POST', COMPLETIONS, { max_tokens: 4 }, 400, /"prompt" is required/, 'prompt'],
    ['completions: prompt empty', 'POST', COMPLETIONS, { prompt: '' }, 400, /"prompt" must not be empty/],
    ['completions: 3 prompts', 'POST', COMPLETIONS, { prompt: ['a', 'b', 'c'] }, 400, /an array of 3 prompts; this server takes exactly one/],
    ['completions: token ids', 'POST', COMPLETIONS, { prompt: [[1, 2, 3]] }, 400, /token-id prompts are not supported/],
    ['completions: prompt a number', 'POST', COMPLETIONS, { prompt: 5 }, 400, /"prompt" must be a string or an array holding one string/],
    ['completions: echo', 'POST', COMPLETIONS, { prompt: 'hi', echo: true }, 400, /echoing the prompt is not supported/, 'echo'],
    ['completions: suffix', 'POST', COMPLETIONS, { prompt: 'hi', suffix: 'end' }, 400, /insertion is not supported/, 'suffix'],
    ['completions: best_of 3', 'POST', COMPLETIONS, { prompt: 'hi', best_of: 3 }, 400, /only best_of = 1/],
    ['completions: logprobs 30', 'POST', COMPLETIONS, { prompt: 'hi', logprobs: 30 }, 400, /"logprobs" must be in \[0, 20\]/],
    ['completions: max_tokens past the context', 'POST', COMPLETIONS, { prompt: 'hi', max_tokens: 300 }, 400, /context holds 256/],

    // --- routes and methods
    ['unknown route', 'GET', '/v2/nothing', undefined, 404, /no route GET \/v2\/nothing/],
    ['embeddings', 'POST', '/v1/embeddings', { input: 'hi' }, 404, /no route POST \/v1\/embeddings/],
    ['GET on chat', 'GET', CHAT, undefined, 405, /GET is not allowed on \/v1\/chat\/completions/],
    ['PUT on completions', 'PUT', COMPLETIONS, { prompt: 'hi' }, 405, /PUT is not allowed on \/v1\/completions/],
    ['POST on /health', 'POST', '/health', '{}', 405, /POST is not allowed on \/health/],
    ['DELETE on models', 'DELETE', '/v1/models', undefined, 405, /DELETE is not allowed on \/v1\/models/],
    ['POST on /metrics', 'POST', '/metrics', '{}', 405, /POST is not allowed on \/metrics/],
];

// --- audio: input_audio parts. A WAV header written field by field (as audio_malformed_test.c's
// make_wav), followed by `present` bytes of a quiet ramp.
function wav({ tag = 1, channels = 1, rate = 16000, bits = 16, align = 0, declared = 3200, present = 3200 } = {}) {
    const al = align || (channels * bits) / 8;
    const b = Buffer.alloc(44 + present);
    b.write('RIFF', 0), b.writeUInt32LE(36 + present, 4), b.write('WAVEfmt ', 8), b.writeUInt32LE(16, 16);
    b.writeUInt16LE(tag, 20), b.writeUInt16LE(channels, 22), b.writeUInt32LE(rate >>> 0, 24);
    b.writeUInt32LE((rate * al) >>> 0, 28), b.writeUInt16LE(al, 32), b.writeUInt16LE(bits, 34);
    b.write('data', 36), b.writeUInt32LE(declared >>> 0, 40);
    for (let i = 0; i < present; i++) b[44 + i] = (i * 7) & 0xff;
    return b;
}
const audioPart = (data, format = 'wav') => ({ type: 'input_audio', input_audio: { data: Buffer.isBuffer(data) ? data.toString('base64') : data, format } });
const audio = (data, format, t = 'What is said?') => chat({ messages: user([audioPart(data, format), { type: 'text', text: t }]) });
const rawAudio = (input_audio) => chat({ messages: user([{ type: 'input_audio', input_audio }, { type: 'text', text: 'hi' }]) });
const AD = 'messages[0].content[0].input_audio.data', AF = 'messages[0].content[0].input_audio.format';
const flac10h = (() => { // STREAMINFO's 36-bit total-samples field set to ten hours at 16 kHz
    const b = Buffer.from(clip('silence_16k.flac'));
    const total = 16000n * 36000n;
    b[21] = (b[21] & 0xf0) | Number((total >> 32n) & 0xfn);
    b.writeUInt32BE(Number(total & 0xffffffffn), 22);
    return b;
})();
const WAV_OK = clip('speech_8k_s16.wav'); // 1.5 s at 8 kHz, 24 KB
// speech_48k.ogg with one byte of a page rewritten and the page's CRC made right again, so that
// libogg passes the page and the Vorbis header inside is what is broken (pages: 0..58 the
// identification header, 58..3384 the comment and setup headers).
function oggPatched(at, value) {
    const b = Buffer.from(clip('speech_48k.ogg'));
    const start = at < 58 ? 0 : 58, end = at < 58 ? 58 : 3384;
    b[at] = value;
    b.writeUInt32LE(0, start + 22);
    let c = 0;
    for (const x of b.subarray(start, end)) {
        c ^= x << 24;
        for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    }
    b.writeUInt32LE(c >>> 0, start + 22);
    return b;
}

const AUDIO_CASES = [
    ['input_audio missing', 'POST', CHAT, chat({ messages: user([{ type: 'input_audio' }]) }), 400,
     /"messages\[0\]\.content\[0\]\.input_audio" is required/, 'messages[0].content[0].input_audio'],
    ['input_audio a string', 'POST', CHAT, chat({ messages: user([{ type: 'input_audio', input_audio: WAV_OK.toString('base64') }]) }), 400,
     /input_audio" must be an object with "data" and "format"/, 'messages[0].content[0].input_audio'],
    ['format missing', 'POST', CHAT, rawAudio({ data: WAV_OK.toString('base64') }), 400, /input_audio\.format" is required/, AF],
    ['format a number', 'POST', CHAT, rawAudio({ data: WAV_OK.toString('base64'), format: 1 }), 400, /input_audio\.format" must be a string/, AF],
    ['unknown format "aac"', 'POST', CHAT, audio(WAV_OK, 'aac'), 400, /audio format "aac" is not supported \("wav", "mp3", "flac" or "ogg"\)/, AF],
    ['format "WAV" in capitals', 'POST', CHAT, audio(WAV_OK, 'WAV'), 400, /audio format "WAV" is not supported/, AF],
    ['wrong format: a WAV sent as mp3', 'POST', CHAT, audio(WAV_OK, 'mp3'), 400,
     /input_audio\.format: the format is "mp3" but the data is a WAV file \("wav"\)/, AF],
    ['wrong format: an MP3 sent as wav', 'POST', CHAT, audio(clip('speech_16k.mp3'), 'wav'), 400, /the format is "wav" but the data is a MP3 file/, AF],
    ['wrong format: an Ogg sent as flac', 'POST', CHAT, audio(clip('tone_8k_stereo.ogg'), 'flac'), 400, /the data is a Ogg file/, AF],
    ['data missing', 'POST', CHAT, rawAudio({ format: 'wav' }), 400, /input_audio\.data" is required/, AD],
    ['data a number', 'POST', CHAT, rawAudio({ data: 12, format: 'wav' }), 400, /input_audio\.data" must be a string/, AD],
    ['empty data', 'POST', CHAT, audio('', 'wav'), 400, /input_audio\.data: audio data is empty/, AD],
    ['bad base64 character', 'POST', CHAT, audio('UklGRi@@', 'wav'), 400, /input_audio\.data: invalid base64 character '@' at offset 6/, AD],
    ['bad base64 padding', 'POST', CHAT, audio('UklGR===', 'wav'), 400, /bad base64 padding/, AD],
    ['base64 with a line break', 'POST', CHAT, audio('UklG\nRiQA', 'wav'), 400, /invalid base64 character \\x0A at offset 4/, AD],
    ['data that is a PNG', 'POST', CHAT, audio(fs.readFileSync(fixture('media', 'tiny.png')), 'wav'), 400,
     /the audio cannot be accepted: audio: not a WAV, FLAC, MP3 or Ogg file \(first bytes 89 50 4e 47\)/, AD],
    ['data that is text', 'POST', CHAT, audio(Buffer.from('hello, world\n'), 'mp3'), 400, /not a WAV, FLAC, MP3 or Ogg file \(first bytes 68 65 6c 6c\)/, AD],
    ['truncated RIFF header', 'POST', CHAT, audio(wav().subarray(0, 12)), 400, /WAV: no fmt chunk/, AD],
    ['truncated in the fmt chunk', 'POST', CHAT, audio(wav().subarray(0, 26)), 400, /WAV: chunk 'fmt ' declares 16 bytes but 6 follow/, AD],
    ['truncated before the data chunk', 'POST', CHAT, audio(wav().subarray(0, 36)), 400, /WAV: no data chunk/, AD],
    ['zero channels', 'POST', CHAT, audio(wav({ channels: 0 })), 400, /WAV: header declares 0 channels/, AD],
    ['100 channels', 'POST', CHAT, audio(wav({ channels: 100, present: 200 })), 400, /WAV: 100 channels, over the limit of 8/, AD],
    ['sample rate 0', 'POST', CHAT, audio(wav({ rate: 0 })), 400, /WAV: header declares a sample rate of 0 Hz/, AD],
    ['sample rate 100 Hz', 'POST', CHAT, audio(wav({ rate: 100 })), 400, /WAV: sample rate 100 Hz is outside the supported 4000\.\.768000 Hz/, AD],
    ['sample rate 4294967295 Hz', 'POST', CHAT, audio(wav({ rate: 0xffffffff })), 400, /sample rate 4294967295 Hz is outside/, AD],
    ['ten hours declared (WAV)', 'POST', CHAT, audio(wav({ declared: 16000 * 2 * 36000 })), 400,
     /WAV: header declares 36000\.0 s of audio \(576000000 frames at 16000 Hz\), over the limit of 2\.0 s/, AD],
    ['ten hours declared (FLAC)', 'POST', CHAT, audio(flac10h, 'flac'), 400, /FLAC: header declares 36000\.0 s/, AD],
    ['data chunk longer than the file', 'POST', CHAT, audio(wav({ declared: 6400 })), 400, /WAV: data chunk declares 6400 bytes but 3200 follow/, AD],
    ['MPEG audio inside a WAV (tag 0x55)', 'POST', CHAT, audio(wav({ tag: 0x55 })), 400, /WAV: encoding 0x0055 is not decoded/, AD],
    ['12-bit PCM', 'POST', CHAT, audio(wav({ bits: 12, align: 2 })), 400, /WAV: 12-bit PCM samples are not decoded/, AD],
    ['FLAC cut after its magic', 'POST', CHAT, audio(clip('silence_16k.flac').subarray(0, 14), 'flac'), 400, /FLAC: cannot read the header/, AD],
    ['MPEG frame header, then garbage', 'POST', CHAT, audio(Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(600, 0xa5)]), 'mp3'),
     400, /input_audio\.data: the audio cannot be accepted: MP3/, AD],
    ['Ogg cut inside its first page', 'POST', CHAT, audio(clip('speech_48k.ogg').subarray(0, 40), 'ogg'), 400,
     /Ogg: the stream ends before its Vorbis identification header is complete/, AD],
    // libsndfile leaks on these three (libvorbis's vorbis_info): our own header check refuses them
    // first, and the server's exit under LeakSanitizer shows nothing was left behind.
    ['Ogg cut inside its comment header', 'POST', CHAT, audio(clip('speech_48k.ogg').subarray(0, 1000), 'ogg'), 400,
     /Ogg: the stream ends before its Vorbis comment header is complete/, AD],
    ['Ogg with a broken setup header (page CRC intact)', 'POST', CHAT, audio(oggPatched(3383, 0), 'ogg'), 400,
     /Ogg: the Vorbis setup header is malformed/, AD],
    ['Ogg declaring zero channels', 'POST', CHAT, audio(oggPatched(39, 0), 'ogg'), 400, /Ogg: the Vorbis identification header is malformed/, AD],
    ['AIFF', 'POST', CHAT, audio(Buffer.from('FORM\0\0\0\x10AIFFCOMM', 'latin1'), 'wav'), 400, /AIFF files are not decoded/, AD],
    ['4 clips, at most 3', 'POST', CHAT, chat({ messages: user([1, 2, 3, 4].map(() => audioPart(wav()))) }), 400, /4 audio clips, at most 3 per request/, 'messages'],
    ['two clips of 1.5 s, at most 2 s a request', 'POST', CHAT, chat({ messages: user([audioPart(WAV_OK), audioPart(WAV_OK)]) }), 400,
     /content\[1\]\.input_audio\.data: the clips declare 3\.0 s of audio up to here \(this one 1\.5 s\), over this server's 2\.0 s per request; nothing was decoded/,
     'messages[0].content[1].input_audio.data'],
    ['audio in an assistant message', 'POST', CHAT,
     { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [audioPart(WAV_OK)] }] }, 400,
     /messages\[1\]\.content\[0\]: audio is only allowed in user messages, not assistant messages/],
    ['a clip over the body limit', 'POST', CHAT, audio(Buffer.alloc(60000, 0x41), 'wav'), 413, /larger than this server's limit of 65536 bytes/],
    ['streamed: ten hours declared', 'POST', CHAT, { ...audio(wav({ declared: 16000 * 2 * 36000 })), stream: true }, 400, /header declares 36000\.0 s/, AD],
    // Well-formed: validated, then refused — this model takes text and images only.
    ...[['speech_8k_s16.wav', 'wav'], ['silence_16k.flac', 'flac'], ['speech_16k.mp3', 'mp3'], ['tone_8k_stereo.ogg', 'ogg'],
        ['tone_8k_s32.wav', 'wav'], ['tone_44k_stereo.mp3', 'mp3']].map(([name, format]) =>
        [`well-formed ${name}: no audio for this model`, 'POST', CHAT, audio(clip(name), format), 400,
         /^messages\[0\]\.content\[0\]: this model does not accept audio input \(input modalities: text, image\)$/, 'messages[0].content[0]']),
    ['well-formed, streamed: no audio for this model', 'POST', CHAT, { ...audio(WAV_OK, 'wav'), stream: true }, 400, /does not accept audio input/],
];

// fetch, keeping the raw bytes so that the body's UTF-8 is checked too.
async function send(method, route, body) {
    const init = { method, headers: {} };
    if (body !== undefined) {
        init.body = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
        init.headers['Content-Type'] = 'application/json';
    }
    const r = await fetch(`http://127.0.0.1:${PORT}${route}`, init);
    const bytes = new Uint8Array(await r.arrayBuffer());
    return { status: r.status, type: r.headers.get('content-type'), bytes };
}

async function healthy() {
    const h = await send('GET', '/health');
    a.equal(h.status, 200, '/health after the request');
    a.deepEqual(JSON.parse(Buffer.from(h.bytes).toString()), { status: 'ok' });
}

const expected = new Map(); // "endpoint status" → requests sent
const label = (route) => ({ [CHAT]: 'chat', [COMPLETIONS]: 'completions', '/v1/models': 'models', '/health': 'health',
                            '/metrics': 'metrics' })[route] ?? 'other';
const sent = (route, status) => expected.set(`${label(route)} ${status}`, (expected.get(`${label(route)} ${status}`) ?? 0) + 1);

function checkError(res, status, pattern, param, name) {
    a.equal(res.status, status, `${name}: status`);
    a.equal(res.type, 'application/json', `${name}: content type`);
    const text = new TextDecoder('utf-8', { fatal: true }).decode(res.bytes); // throws on invalid UTF-8
    const doc = JSON.parse(text);
    a.deepEqual(Object.keys(doc), ['error'], `${name}: {"error": …}`);
    const e = doc.error;
    a.equal(typeof e.message, 'string');
    a.ok(e.message.length > 0, `${name}: a message`);
    a.match(e.message, pattern, `${name}: message`);
    a.equal(e.type, status === 401 ? 'authentication_error' : 'invalid_request_error', `${name}: type`);
    a.equal(e.code, null);
    a.ok(e.param === null || typeof e.param === 'string', `${name}: param`);
    if (param !== undefined) a.equal(e.param, param, `${name}: param`);
}

let refused = 0;
// Sends each case, checks its error and /health after it (and `after(name)` first, when given).
async function refuseAll(cases, what, after = async () => {}) {
    const failures = [];
    for (const [name, method, route, body, status, pattern, param] of cases) {
        try {
            const res = await send(method, route, body);
            sent(route, status);
            checkError(res, status, pattern, param, name);
            refused++;
            await after(name);
        } catch (e) {
            failures.push(`${name}: ${e.message}`);
        }
        await healthy();
    }
    a.deepEqual(failures, [], `${failures.length} of ${cases.length} ${what} were not refused as expected`);
}

await runCases('malformed.mjs', [
    [`${CASES.length} malformed requests, /health after each`, () => refuseAll(CASES, 'malformed requests')],

    [`${AUDIO_CASES.length} malformed and refused audio requests, /health and a text request after each`, async () => {
        await refuseAll(AUDIO_CASES, 'audio requests', async (name) => {
            const text = await send('POST', CHAT, chat({ temperature: 0, ignore_eos: true }));
            sent(CHAT, 200);
            a.equal(text.status, 200, `${name}: a text request after it`);
            a.equal(JSON.parse(Buffer.from(text.bytes).toString()).usage.completion_tokens, 4, `${name}: its tokens`);
        });
        const models = JSON.parse(Buffer.from((await send('GET', '/v1/models')).bytes).toString());
        sent('/v1/models', 200);
        a.deepEqual(models.data.map((m) => m.input_modalities), [['text', 'image']], '/v1/models lists no audio');
    }],

    ['a body over the limit without Content-Length (chunked)', async () => {
        const big = new TextEncoder().encode(JSON.stringify(chat({ messages: user('y'.repeat(80 * 1024)) })));
        const stream = new ReadableStream({
            start(ctl) {
                for (let i = 0; i < big.length; i += 8192) ctl.enqueue(big.subarray(i, i + 8192));
                ctl.close();
            },
        });
        const r = await fetch(`http://127.0.0.1:${PORT}${CHAT}`, { method: 'POST', body: stream, duplex: 'half',
                                                                     headers: { 'Content-Type': 'application/json' } });
        const res = { status: r.status, type: r.headers.get('content-type'), bytes: new Uint8Array(await r.arrayBuffer()) };
        sent(CHAT, 413);
        checkError(res, 413, /larger than this server's limit of 65536 bytes/, undefined, 'chunked');
        refused++;
        await healthy();
    }],

    ['the requests that must work', async () => {
        // The positive control of the media root: a real PNG inside it.
        let r = await send('POST', CHAT, { ...image(fileUrl(`${MEDIA}/sub/cat.png`)), temperature: 0, ignore_eos: true });
        sent(CHAT, 200);
        let doc = JSON.parse(Buffer.from(r.bytes).toString());
        a.equal(r.status, 200, `file:// under the root: ${Buffer.from(r.bytes).toString().slice(0, 300)}`);
        a.equal(doc.choices[0].finish_reason, 'length');
        a.equal(doc.usage.completion_tokens, 4);
        // At most 64 tokens for the image (--image-max-tokens 64), so the prompt is well under 256.
        a.ok(doc.usage.prompt_tokens > 20 && doc.usage.prompt_tokens < 64 + 40, `prompt_tokens ${doc.usage.prompt_tokens}`);
        // Percent-encoded, the same answer.
        r = await send('POST', CHAT, { ...image(fileUrl(`${MEDIA}/%73ub/cat.png`)), temperature: 0, ignore_eos: true });
        sent(CHAT, 200);
        a.equal(r.status, 200);
        a.equal(JSON.parse(Buffer.from(r.bytes).toString()).choices[0].message.content, doc.choices[0].message.content);
        // The same image by file:// and by data: URL: the same prompt and answer.
        r = await send('POST', CHAT, { ...image(fileUrl(`${MEDIA}/tiny.png`)), temperature: 0, ignore_eos: true });
        sent(CHAT, 200);
        a.equal(r.status, 200);
        const viaFile = JSON.parse(Buffer.from(r.bytes).toString());
        r = await send('POST', CHAT, { ...image(PNG_URL), temperature: 0, ignore_eos: true });
        sent(CHAT, 200);
        a.equal(r.status, 200);
        doc = JSON.parse(Buffer.from(r.bytes).toString());
        a.equal(doc.choices[0].message.content, viaFile.choices[0].message.content);
        // (the counts: the second may take more from the prefix cache)
        a.deepEqual({ ...doc.usage, prompt_tokens_details: null }, { ...viaFile.usage, prompt_tokens_details: null });
        // max_tokens exactly what fits: capacity 256 − prompt + 1.
        const room = 256 - doc.usage.prompt_tokens + 1;
        r = await send('POST', CHAT, { ...image(PNG_URL), max_tokens: room + 1 });
        sent(CHAT, 400);
        checkError(r, 400, new RegExp(`max_tokens ${room + 1} does not fit: .* so at most ${room} can be generated`), undefined,
                   'one past the room');
        // Text and completions.
        r = await send('POST', CHAT, chat({ temperature: 0, ignore_eos: true }));
        sent(CHAT, 200);
        a.equal(r.status, 200);
        a.equal(JSON.parse(Buffer.from(r.bytes).toString()).usage.completion_tokens, 4);
        r = await send('POST', COMPLETIONS, { prompt: 'hi', max_tokens: 3, temperature: 0, ignore_eos: true });
        sent(COMPLETIONS, 200);
        a.equal(r.status, 200);
        a.equal(JSON.parse(Buffer.from(r.bytes).toString()).choices[0].finish_reason, 'length');
        await healthy();
    }],

    ['/metrics counted every refusal', async () => {
        const r = await send('GET', '/metrics');
        const counted = new Map();
        for (const line of Buffer.from(r.bytes).toString().split('\n')) {
            const m = /^tessera_requests_total\{endpoint="(\w+)",status="(\d+)"\} (\d+)$/.exec(line);
            if (m && !(['health', 'metrics'].includes(m[1]) && m[2] === '200')) counted.set(`${m[1]} ${m[2]}`, Number(m[3]));
        }
        a.deepEqual(Object.fromEntries([...counted].sort()), Object.fromEntries([...expected].sort()));
        console.log(`  ${refused} malformed requests refused as expected; the server kept serving after each`);
    }],
]);
