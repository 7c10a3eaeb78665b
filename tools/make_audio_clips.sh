#!/usr/bin/env bash
# make_audio_clips.sh — writes the small audio clips the audio tests decode, into
# tests/fixtures/media/audio/ (committed; about 0.5 MB in all). Speech is espeak-ng's (Debian
# espeak-ng) speaking one sentence; tones and silence are sox's synth. Each container the decoder
# reads (WAV PCM 16/24/32-bit and float32, FLAC, MP3, Ogg/Vorbis) at 8, 16, 44.1 and 48 kHz, mono
# and stereo. sox runs with -D (no dither) so the PCM clips are the same on every run; the lossy
# encoders (LAME through libsox-fmt-mp3, libvorbis) are deterministic for one version, but for the
# Ogg stream serial number, random on each run (the decoded samples are the same).
# Second, tiny seeds for the decoder fuzz targets (fuzz/corpus/<container>_decode/, 0.1 s each).
# Needs: sox, libsox-fmt-mp3, espeak-ng (not in scripts/install-deps: only to regenerate).
set -euo pipefail
out=${1:-$(dirname "$0")/../tests/fixtures/media/audio}
seeds=${2:-$(dirname "$0")/../fuzz/corpus}
mkdir -p "$out" "$seeds"/{wav,flac,mp3,ogg}_decode
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

espeak-ng -v en-us -s 170 -w "$tmp/speech.wav" "The quick brown fox jumps over the lazy dog."
# Stereo speech: the sentence on the left, the sentence delayed by 30 ms at half level on the right,
# so a mixdown that is not the mean of the channels shows.
sox -D "$tmp/speech.wav" -r 44100 "$tmp/left.wav" trim 0 1.2
sox -D "$tmp/left.wav" "$tmp/right.wav" delay 0.03 vol 0.5 trim 0 1.2
sox -D -M "$tmp/left.wav" "$tmp/right.wav" "$tmp/speech_stereo44.wav"

sox -D "$tmp/speech.wav" -r 16000 -b 16 "$out/speech_16k_s16.wav" trim 0 2.0
sox -D "$tmp/speech.wav" -r 8000 -b 16 "$out/speech_8k_s16.wav" trim 0 1.5
sox -D "$tmp/speech_stereo44.wav" -b 24 "$out/speech_44k_stereo_s24.wav" trim 0 0.6
sox -D -n -r 48000 -b 32 -e floating-point "$out/tone_48k_f32.wav" synth 0.5 sine 440 sine 1000 \
    remix 1 vol 0.5
sox -D -n -r 8000 -b 32 -e signed-integer "$out/tone_8k_s32.wav" synth 0.5 sine 300 vol 0.7
sox -D -n -r 16000 -b 16 "$out/silence_16k.flac" trim 0 0.5
sox -D "$tmp/speech_stereo44.wav" -b 16 "$out/speech_44k_stereo.flac" trim 0 1.0
sox -D "$tmp/speech.wav" -r 48000 -b 24 "$out/speech_48k_s24.flac" trim 0 1.0
sox -D "$tmp/speech.wav" -r 16000 -C 64 "$out/speech_16k.mp3" trim 0 1.5
sox -D -n -r 44100 -c 2 -C 128 "$out/tone_44k_stereo.mp3" synth 0.5 sine 440 sine 660
sox -D "$tmp/speech.wav" -r 48000 -C 3 "$out/speech_48k.ogg" trim 0 1.5
sox -D -n -r 8000 -c 2 -C 0 "$out/tone_8k_stereo.ogg" synth 0.5 sine 500 sine 700

s="$tmp/speech.wav"
sox -D "$s" -r 16000 -b 16 "$seeds/wav_decode/s16_mono.wav" trim 0.3 0.1
sox -D "$s" -r 8000 -b 24 -c 2 "$seeds/wav_decode/s24_stereo.wav" trim 0.3 0.1
sox -D "$s" -r 22050 -b 32 -e floating-point "$seeds/wav_decode/f32.wav" trim 0.3 0.1
sox -D "$s" -r 11025 -b 8 "$seeds/wav_decode/u8.wav" trim 0.3 0.1
sox -D "$s" -r 16000 -b 16 "$seeds/flac_decode/s16_mono.flac" trim 0.3 0.1
sox -D "$s" -r 44100 -b 24 -c 2 "$seeds/flac_decode/s24_stereo.flac" trim 0.3 0.1
sox -D "$s" -r 16000 -C 32 "$seeds/mp3_decode/mono_16k.mp3" trim 0.3 0.15
sox -D "$s" -r 44100 -c 2 -C 96 "$seeds/mp3_decode/stereo_44k.mp3" trim 0.3 0.1
sox -D "$s" -r 16000 -C 0 "$seeds/ogg_decode/mono_16k.ogg" trim 0.3 0.1
sox -D "$s" -r 48000 -c 2 -C 0 "$seeds/ogg_decode/stereo_48k.ogg" trim 0.3 0.1
ls -l "$out" "$seeds"/*_decode | grep -v '^total' | awk '{s += $5} END {print s " bytes"}'

