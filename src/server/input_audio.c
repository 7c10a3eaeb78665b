/* input_audio.c — an input_audio part's format, base64 data and header (see input_audio.h). */
#include "server/input_audio.h"
#include "server/base64.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenAI's format names, by the container they name (ts_audio_format). */
static const struct {
    const char *name, *container;
    ts_audio_format format;
} FORMATS[] = {{"wav", "WAV", TS_AUDIO_FORMAT_WAV},
               {"mp3", "MP3", TS_AUDIO_FORMAT_MP3},
               {"flac", "FLAC", TS_AUDIO_FORMAT_FLAC},
               {"ogg", "Ogg", TS_AUDIO_FORMAT_OGG}};
#define N_FORMATS (sizeof FORMATS / sizeof FORMATS[0])

/* The FORMATS entry of a container, or -1 (unknown, or recognised but not decoded). */
static int format_index(int format)
{
    for (size_t k = 0; k < N_FORMATS; k++)
        if ((int)FORMATS[k].format == format) return (int)k;
    return -1;
}

static int string_field(const cJSON *obj, const char *name, const char *param, const char *what,
                        const char **out, srv_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!v || cJSON_IsNull(v)) return srv_fail(err, 400, param, "\"%s\" is required (%s)", param, what);
    if (!cJSON_IsString(v)) return srv_fail(err, 400, param, "\"%s\" must be a string (%s)", param, what);
    *out = v->valuestring;
    return 0;
}

int srv_input_audio_load(const cJSON *part, int i, int j, const srv_limits *limits,
                         srv_audio_source *out, srv_error *err)
{
    memset(out, 0, sizeof *out);
    char where[64], param[80], fparam[96], dparam[96];
    snprintf(where, sizeof where, "messages[%d].content[%d]", i, j);
    snprintf(param, sizeof param, "%s.input_audio", where);
    snprintf(fparam, sizeof fparam, "%s.format", param);
    snprintf(dparam, sizeof dparam, "%s.data", param);
    const cJSON *audio = cJSON_GetObjectItemCaseSensitive(part, "input_audio");
    if (!audio || cJSON_IsNull(audio))
        return srv_fail(err, 400, param, "\"%s\" is required: {\"data\": <base64>, \"format\": …}", param);
    if (!cJSON_IsObject(audio))
        return srv_fail(err, 400, param, "\"%s\" must be an object with \"data\" and \"format\"", param);

    /* The format first: it is cheap, and says what the data must be. */
    const char *name = NULL, *data = NULL;
    if (string_field(audio, "format", fparam, "\"wav\", \"mp3\", \"flac\" or \"ogg\"", &name, err)) return -1;
    int declared = TS_AUDIO_FORMAT_UNKNOWN;
    for (size_t k = 0; k < N_FORMATS; k++)
        if (strcmp(name, FORMATS[k].name) == 0) declared = (int)FORMATS[k].format;
    char shown[SRV_CLIP];
    if (declared == TS_AUDIO_FORMAT_UNKNOWN)
        return srv_fail(err, 400, fparam, "%s: audio format \"%s\" is not supported (\"wav\", \"mp3\", \"flac\" or \"ogg\")",
                        fparam, srv_clip(shown, sizeof shown, name, strlen(name)));
    if (string_field(audio, "data", dparam, "the clip's bytes in base64", &data, err)) return -1;
    uint8_t *bytes = NULL;
    size_t len = 0;
    size_t max_bytes = limits->audio.max_bytes ? limits->audio.max_bytes : TS_AUDIO_DEFAULT_MAX_BYTES; /* 0: the default */
    if (srv_base64_decode(data, dparam, dparam, "audio", max_bytes, &bytes, &len, err)) return -1;

    ts_audio_info info;
    ts_error e = {0};
    ts_status st = ts_audio_probe(bytes, len, &limits->audio, &info, &e);
    int found = format_index(info.format);
    int rc = 0;
    if (found >= 0 && info.format != declared) {
        rc = srv_fail(err, 400, fparam, "%s: the format is \"%s\" but the data is a %s file (\"%s\")", fparam, name,
                      FORMATS[found].container, FORMATS[found].name);
    } else if (st == TS_ERR_OUT_OF_MEMORY) {
        rc = srv_fail(err, 500, "", "out of memory");
    } else if (st != TS_OK) {
        rc = srv_fail(err, 400, dparam, "%s: the audio cannot be accepted: %s", dparam, e.message);
    }
    if (rc) {
        free(bytes);
        return -1;
    }
    *out = (srv_audio_source){.bytes = bytes, .len = len, .info = info,
                              .seconds = (double)info.frames / info.rate};
    memcpy(out->where, where, sizeof where);
    return 0;
}
