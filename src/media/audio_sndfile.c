/* audio_sndfile.c — libsndfile over a memory buffer, and the float32 mono mixdown
 * (audio_sndfile.h).
 *
 * The virtual I/O callbacks read a const buffer; writes are refused. libsndfile's reason for a
 * failed open comes from sf_strerror(NULL), its process-wide last error: under concurrent opens
 * the reason may be another thread's, so the message also says which container failed to open.
 * Known noise: on corrupt MPEG frames libmpg123, inside libsndfile, writes "Note: …" lines to
 * stderr; libsndfile sets no MPG123_QUIET and offers no way to, so only a direct libmpg123
 * reader could silence it. The result is still the error below.
 * Frames are decoded in blocks of READ_BLOCK into a scratch buffer and mixed down as they come, so
 * memory is the mono output plus one block, whatever the channel count.
 */
#include "media/audio_sndfile.h"
#include "base/error.h"
#include "media/audio_format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sndfile.h>

enum { READ_BLOCK = 4096 };

struct ts_audio_sndfile {
    const uint8_t *data;
    sf_count_t len, at;
    SNDFILE *sf;
    SF_INFO sf_info;
    const char *name;
};

static sf_count_t io_length(void *user)
{
    return ((ts_audio_sndfile *)user)->len;
}

static sf_count_t io_seek(sf_count_t offset, int whence, void *user)
{
    ts_audio_sndfile *f = user;
    sf_count_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? f->at : f->len;
    if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) return -1;
    if ((offset < 0 && -offset > base) || (offset > 0 && offset > f->len - base)) return -1;
    f->at = base + offset;
    return f->at;
}

static sf_count_t io_read(void *dst, sf_count_t count, void *user)
{
    ts_audio_sndfile *f = user;
    if (count <= 0 || f->at >= f->len) return 0;
    sf_count_t n = count < f->len - f->at ? count : f->len - f->at;
    memcpy(dst, f->data + f->at, (size_t)n);
    f->at += n;
    return n;
}

static sf_count_t io_write(const void *src, sf_count_t count, void *user)
{
    return 0;
}
static sf_count_t io_tell(void *user)
{
    return ((ts_audio_sndfile *)user)->at;
}

/* libsndfile's major type for a sniffed container (WAV may come back as WAVEX). */
static int type_matches(int format, int sf_format)
{
    int type = sf_format & SF_FORMAT_TYPEMASK;
    switch (format) {
    case TS_AUDIO_FORMAT_WAV:
        return type == SF_FORMAT_WAV || type == SF_FORMAT_WAVEX;
    case TS_AUDIO_FORMAT_FLAC:
        return type == SF_FORMAT_FLAC;
    case TS_AUDIO_FORMAT_OGG:
        return type == SF_FORMAT_OGG;
    case TS_AUDIO_FORMAT_MP3:
        return type == SF_FORMAT_MPEG;
    default:
        return 0;
    }
}

/* The encodings decoded inside each container: PCM/float in WAV, FLAC's PCM, Vorbis/Opus, MPEG. */
static int subtype_ok(int sf_format)
{
    switch (sf_format & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_PCM_U8:
    case SF_FORMAT_PCM_S8:
    case SF_FORMAT_PCM_16:
    case SF_FORMAT_PCM_24:
    case SF_FORMAT_PCM_32:
    case SF_FORMAT_FLOAT:
    case SF_FORMAT_DOUBLE:
    case SF_FORMAT_VORBIS:
    case SF_FORMAT_OPUS:
    case SF_FORMAT_MPEG_LAYER_I:
    case SF_FORMAT_MPEG_LAYER_II:
    case SF_FORMAT_MPEG_LAYER_III:
        return 1;
    default:
        return 0;
    }
}

ts_status ts_audio_sndfile_open(const uint8_t *data, size_t len, int format, ts_audio_sndfile **out,
                                ts_audio_info *info, ts_error *err)
{
    *out = NULL;
    const char *name = ts_audio_format_name(format);
    ts_audio_sndfile *f = calloc(1, sizeof(*f));
    if (!f) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
    f->data = data;
    f->len = (sf_count_t)len;
    f->name = name;
    SF_VIRTUAL_IO io = {io_length, io_seek, io_read, io_write, io_tell};
    f->sf = sf_open_virtual(&io, SFM_READ, &f->sf_info, f);
    if (!f->sf) {
        /* libsndfile answers an MPEG stream with no decodable frame with its "not a regular
         * file" text, which would mislead: say what it means here. */
        const char *why = sf_strerror(NULL);
        if (strstr(why, "regular file")) why = "no decodable frames";
        ts_status st = ts_error_set(err, TS_ERR_FORMAT,
                                    "%s: cannot read the header (libsndfile: %s)", name, why);
        free(f);
        return st;
    }
    const SF_INFO *si = &f->sf_info;
    ts_status st = TS_OK;
    if (!type_matches(format, si->format))
        st = ts_error_set(err, TS_ERR_FORMAT,
                          "%s: libsndfile reads the bytes as another container (format 0x%08x)",
                          name, (unsigned)si->format);
    else if (!subtype_ok(si->format))
        st = ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: encoding 0x%04x is not decoded", name,
                          (unsigned)(si->format & SF_FORMAT_SUBMASK));
    if (st != TS_OK) {
        ts_audio_sndfile_close(f);
        return st;
    }
    info->format = format;
    info->channels = si->channels;
    info->rate = si->samplerate;
    info->frames = si->frames;
    /* An MP3 or Ogg length libsndfile cannot estimate (-1, or SF_COUNT_MAX) is unknown, not
     * malformed: the decode's frame cap bounds it. WAV and FLAC state theirs. */
    if ((format == TS_AUDIO_FORMAT_MP3 || format == TS_AUDIO_FORMAT_OGG) &&
        (si->frames < 0 || si->frames == SF_COUNT_MAX))
        info->frames = 0;
    *out = f;
    return TS_OK;
}

ts_status ts_audio_sndfile_read_mono(ts_audio_sndfile *f, int64_t max_frames, float **samples,
                                     int64_t *n_samples, ts_error *err)
{
    *samples = NULL;
    *n_samples = 0;
    int channels = f->sf_info.channels;
    if (channels <= 0) /* checked by the caller; a guard for the block size */
        return ts_error_set(err, TS_ERR_FORMAT, "%s: %d channels", f->name, channels);
    float *block = malloc(sizeof(float) * READ_BLOCK * (size_t)channels);
    int64_t cap =
        f->sf_info.frames > 0 && f->sf_info.frames <= max_frames ? f->sf_info.frames : READ_BLOCK;
    float *mono = malloc(sizeof(float) * (size_t)(cap ? cap : 1));
    int64_t n = 0;
    ts_status st = TS_OK;
    if (!block || !mono) {
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory for %lld frames", f->name,
                          (long long)cap);
        goto done;
    }
    for (;;) {
        sf_count_t got = sf_readf_float(f->sf, block, READ_BLOCK);
        if (got <= 0) break;
        if (got > max_frames - n) {
            st = ts_error_set(err, TS_ERR_RANGE,
                              "%s: decodes to more than %lld frames (the duration limit)", f->name,
                              (long long)max_frames);
            goto done;
        }
        if (n + got > cap) {
            int64_t grown = cap * 2 > n + got ? cap * 2 : n + got;
            if (grown > max_frames) grown = max_frames;
            float *more = realloc(mono, sizeof(float) * (size_t)grown);
            if (!more) {
                st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory for %lld frames",
                                  f->name, (long long)grown);
                goto done;
            }
            mono = more;
            cap = grown;
        }
        for (sf_count_t i = 0; i < got; i++) {
            const float *frame = block + i * channels;
            float v = frame[0];
            if (channels > 1) {
                for (int c = 1; c < channels; c++)
                    v += frame[c];
                v /= (float)channels;
            }
            for (int c = 0; c < channels; c++) {
                if (!(fabsf(frame[c]) <= TS_AUDIO_MAX_MAGNITUDE)) {
                    st = isfinite(frame[c])
                             ? ts_error_set(err, TS_ERR_FORMAT,
                                            "%s: sample %lld of channel %d is %g, beyond +-%g "
                                            "(full scale is +-1)",
                                            f->name, (long long)(n + i), c, (double)frame[c],
                                            TS_AUDIO_MAX_MAGNITUDE)
                             : ts_error_set(err, TS_ERR_FORMAT,
                                            "%s: sample %lld of channel %d is not a finite number",
                                            f->name, (long long)(n + i), c);
                    goto done;
                }
            }
            mono[n + i] = v;
        }
        n += got;
    }
    if (sf_error(f->sf) != SF_ERR_NO_ERROR) {
        st = ts_error_set(err, TS_ERR_FORMAT, "%s: corrupt data after %lld frames (libsndfile: %s)",
                          f->name, (long long)n, sf_strerror(f->sf));
        goto done;
    }
    if (n == 0) {
        st = ts_error_set(err, TS_ERR_FORMAT, "%s: no audio frames", f->name);
        goto done;
    }
done:
    free(block);
    if (st != TS_OK) {
        free(mono);
        return st;
    }
    *samples = mono;
    *n_samples = n;
    return TS_OK;
}

void ts_audio_sndfile_close(ts_audio_sndfile *f)
{
    if (!f) return;
    if (f->sf) sf_close(f->sf);
    free(f);
}
