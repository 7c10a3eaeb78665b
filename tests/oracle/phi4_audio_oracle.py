"""phi4_audio_oracle.py — reference audio loading and Phi-4-multimodal features, for the C tests.

Run with the project's .venv (tests/oracle/requirements.txt pins numpy, soundfile, soxr). It is
the numpy form of transformers 5.23.0 (PyPI wheel; the lines cited are that wheel's):
  load      audio_utils._load_audio_soundfile: soundfile decode to float32 (always_2d), mean over
            channels in float32, soxr.resample(quality="soxr_hq"), pad/trim to
            ceil(n * rate / src_rate).
  resample  that soxr.resample call alone, on raw float32 input.
  features  models/phi4_multimodal/feature_extraction_phi4_multimodal.py,
            Phi4MultimodalFeatureExtractor._torch_extract_fbank_features for one clip (batch 1, no
            padding mask), with torch's dtypes: float32 frames and pre-emphasis, float64 Hamming
            window (torch.hamming_window's formula, periodic=False) and rfft, cast to complex64,
            |X|^2 in float32, the float32 mel bank of audio_utils.mel_filter_bank(kaldi,
            triangularize_in_mel_space=True), clamp(min=1), log; audio_embed_sizes by
            _compute_audio_embed_size. The extractor itself needs torch (it calls torch.tensor on
            its input unconditionally), hence this transcription.
  mel       the mel bank as float32 [bins, mels].
Outputs are raw little-endian float32 files; `features` and `load` print a JSON line.

  python phi4_audio_oracle.py load FILE RATE OUT.f32
  python phi4_audio_oracle.py resample IN.f32 SRC_RATE DST_RATE OUT.f32
  python phi4_audio_oracle.py features IN.f32 OUT.f32
  python phi4_audio_oracle.py mel OUT.f32
"""
import json
import math
import sys

import numpy as np

# Phi4MultimodalFeatureExtractor.__init__ defaults (= microsoft/Phi-4-multimodal-instruct's
# preprocessor_config.json).
SAMPLING_RATE = 16000
FEATURE_SIZE = 80
N_FFT = 512
WIN_LENGTH = 400
HOP_LENGTH = 160
PREEMPHASIS = 0.97
MEL_MIN, MEL_MAX = 0.0, 7690.0
COMPRESSION, DOWNSAMPLE, FEAT_STRIDE = 8, 1, 1


def hertz_to_mel_kaldi(freq):
    return 1127.0 * np.log(1.0 + (freq / 700.0))


def mel_filter_bank():
    """audio_utils.mel_filter_bank(257, 80, 0, 7690, 16000, norm=None, mel_scale="kaldi",
    triangularize_in_mel_space=True), float64, then .astype(float32) as torch.from_numpy(...).to(float32)."""
    num_frequency_bins = N_FFT // 2 + 1
    mel_freqs = np.linspace(hertz_to_mel_kaldi(MEL_MIN), hertz_to_mel_kaldi(MEL_MAX), FEATURE_SIZE + 2)
    fft_bin_width = SAMPLING_RATE / ((num_frequency_bins - 1) * 2)
    fft_freqs = hertz_to_mel_kaldi(fft_bin_width * np.arange(num_frequency_bins))
    filter_freqs = mel_freqs
    filter_diff = np.diff(filter_freqs)
    slopes = np.expand_dims(filter_freqs, 0) - np.expand_dims(fft_freqs, 1)
    down_slopes = -slopes[:, :-2] / filter_diff[:-1]
    up_slopes = slopes[:, 2:] / filter_diff[1:]
    bank = np.maximum(np.zeros(1), np.minimum(down_slopes, up_slopes))
    return bank.astype(np.float32)


def hamming_window_torch(n):
    """torch.hamming_window(n, periodic=False, dtype=float64): arange * (2 pi / (n - 1)), cos, * -0.46, + 0.54."""
    w = np.arange(n, dtype=np.float64) * (math.pi * 2.0 / float(n - 1))
    return np.cos(w) * -0.46 + 0.54


def features(wave):
    wave = np.asarray(wave, dtype=np.float32)
    n_frames = (len(wave) - WIN_LENGTH) // HOP_LENGTH + 1
    if n_frames < 1:
        raise ValueError("shorter than one window")
    frames = np.stack([wave[t * HOP_LENGTH : t * HOP_LENGTH + WIN_LENGTH] for t in range(n_frames)])
    frames_prev = np.roll(frames, 1, axis=-1)
    frames_prev[:, 0] = frames_prev[:, 1]
    frames = (frames - np.float32(PREEMPHASIS) * frames_prev) * np.float32(32768)
    assert frames.dtype == np.float32
    window = hamming_window_torch(WIN_LENGTH)
    S = np.fft.rfft(window * frames, n=N_FFT, axis=1).astype(np.complex64)
    spec = np.abs(S)
    spec_power = spec**2
    assert spec_power.dtype == np.float32
    log_spec = np.log(np.maximum(spec_power @ mel_filter_bank(), np.float32(1.0)))
    feature_lengths = (len(wave) - WIN_LENGTH) // HOP_LENGTH + 1
    feature_lengths *= FEAT_STRIDE
    embed = -(-feature_lengths // COMPRESSION)
    embed = -(-embed // DOWNSAMPLE)
    return log_spec.astype(np.float32), int(embed)


def soxr_resample(wave, src, dst):
    import soxr

    return soxr.resample(wave, src, dst, quality="soxr_hq")


def load(path, rate):
    import soundfile as sf

    with sf.SoundFile(path) as f:
        src = f.samplerate
        waveform = f.read(dtype="float32", always_2d=True).T
    waveform = waveform.mean(axis=0) if waveform.shape[0] > 1 else waveform[0]
    if src != rate:
        num_samples = math.ceil(waveform.shape[-1] * rate / src)
        waveform = soxr_resample(waveform, src, rate)
        waveform = np.pad(waveform, (0, max(0, num_samples - len(waveform))))[:num_samples]
    return np.ascontiguousarray(waveform, dtype=np.float32), src


def main(argv):
    cmd = argv[1]
    if cmd == "load":
        wave, src = load(argv[2], int(argv[3]))
        wave.astype("<f4").tofile(argv[4])
        print(json.dumps({"samples": len(wave), "source_rate": src}))
    elif cmd == "resample":
        wave = np.fromfile(argv[2], dtype="<f4")
        out = soxr_resample(wave, int(argv[3]), int(argv[4]))
        num_samples = math.ceil(wave.shape[-1] * int(argv[4]) / int(argv[3]))
        out = np.pad(out, (0, max(0, num_samples - len(out))))[:num_samples]
        out.astype("<f4").tofile(argv[5])
        print(json.dumps({"samples": len(out)}))
    elif cmd == "features":
        feats, embed = features(np.fromfile(argv[2], dtype="<f4"))
        feats.astype("<f4").tofile(argv[3])
        print(json.dumps({"frames": feats.shape[0], "mels": feats.shape[1], "embed_size": embed}))
    elif cmd == "mel":
        mel_filter_bank().astype("<f4").tofile(argv[2])
    else:
        raise SystemExit(f"unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)
