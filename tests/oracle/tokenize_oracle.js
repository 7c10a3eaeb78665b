#!/usr/bin/env node
// tokenize_oracle.js — Hugging Face `tokenizers` (Rust, via the @anush008/tokenizers binding) as
// the oracle for Tessera's tokenizer.
//
// usage: node tokenize_oracle.js ROOT TOKENIZER_DIR CORPUS IDS_OUT DECODED_OUT SKIPPED_OUT
// Reads CORPUS (one JSON string per line), writes IDS_OUT (one JSON array of ids per line, with
// special tokens added), DECODED_OUT and SKIPPED_OUT (one JSON string per line: decode(ids)
// with skip_special_tokens false and true).
// Special tokens follow transformers: when tokenizer_config.json sets add_bos_token or
// add_eos_token, the post-processor becomes "[bos] $A [eos]" accordingly (transformers v5 rebuilds
// it from those flags), otherwise tokenizer.json's own post_processor applies.
'use strict';
const fs = require('fs');
const path = require('path');

async function main() {
    const [root, dir, corpus, idsOut, decodedOut, skippedOut] = process.argv.slice(2);
    const { Tokenizer } = require(path.join(root, '.oracles/node_modules/@anush008/tokenizers'));
    const tok = Tokenizer.fromFile(path.join(dir, 'tokenizer.json'));
    let config = {};
    const configPath = path.join(dir, 'tokenizer_config.json');
    if (fs.existsSync(configPath)) config = JSON.parse(fs.readFileSync(configPath, 'utf8'));
    const roleText = (v) => (v && typeof v === 'object' ? v.content : v);
    let wrap = null;
    if (typeof config.add_bos_token === 'boolean' || typeof config.add_eos_token === 'boolean') {
        wrap = { prefix: [], suffix: [] };
        if (config.add_bos_token === true) wrap.prefix.push(tok.tokenToId(roleText(config.bos_token)));
        if (config.add_eos_token === true) wrap.suffix.push(tok.tokenToId(roleText(config.eos_token)));
    }
    const lines = fs.readFileSync(corpus, 'utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const ids = [], decoded = [], skipped = [];
    for (const line of lines) {
        const text = JSON.parse(line);
        const enc = await tok.encode(text, null, { addSpecialTokens: wrap === null });
        let out = Array.from(enc.getIds());
        if (wrap) out = wrap.prefix.concat(out, wrap.suffix);
        ids.push(JSON.stringify(out));
        decoded.push(JSON.stringify(await tok.decode(out, false)));
        skipped.push(JSON.stringify(await tok.decode(out, true)));
    }
    fs.writeFileSync(idsOut, ids.join('\n') + '\n');
    fs.writeFileSync(decodedOut, decoded.join('\n') + '\n');
    fs.writeFileSync(skippedOut, skipped.join('\n') + '\n');
}

main().catch((e) => {
    console.error('tokenize_oracle.js: ' + (e && e.stack ? e.stack : e));
    process.exit(1);
});
