/* audio_ogg.c — the Vorbis header packets through libogg and libvorbis (see audio_ogg.h). */
#include "media/audio_ogg.h"
#include "base/error.h"

#include <ogg/ogg.h>
#include <string.h>
#include <vorbis/codec.h>

enum { FEED = 1 << 16 }; /* bytes handed to the page reader at a time: headers sit at the front */

static const char *const HEADER_NAMES[3] = {"identification", "comment", "setup"};

typedef struct reader {
    ogg_sync_state sync;
    ogg_stream_state stream;
    bool stream_open;
    vorbis_info info;
    vorbis_comment comment;
    const uint8_t *data;
    size_t len, fed;
} reader;

/* The next page: 1, or 0 when the bytes end first, -1 out of memory. Gaps (bytes that are not a
 * page) are skipped as libogg resynchronises; a stream broken that way fails on its packets. */
static int next_page(reader *r, ogg_page *page)
{
    for (;;) {
        int got = ogg_sync_pageout(&r->sync, page);
        if (got > 0) return 1;
        if (got < 0) continue;
        if (r->fed == r->len) return 0;
        size_t n = r->len - r->fed < FEED ? r->len - r->fed : FEED;
        char *buf = ogg_sync_buffer(&r->sync, (long)n);
        if (!buf) return -1;
        memcpy(buf, r->data + r->fed, n);
        ogg_sync_wrote(&r->sync, (long)n);
        r->fed += n;
    }
}

static ts_status read_headers(reader *r, ts_error *err)
{
    int have = 0;
    ogg_page page;
    ogg_packet packet;
    while (have < 3) {
        int got = next_page(r, &page);
        if (got < 0) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "Ogg: out of memory");
        if (got == 0)
            return ts_error_set(err, TS_ERR_FORMAT,
                                "Ogg: the stream ends before its Vorbis %s header is complete",
                                HEADER_NAMES[have]);
        if (!r->stream_open) {
            if (!ogg_page_bos(&page))
                return ts_error_set(err, TS_ERR_FORMAT, "Ogg: the first page does not begin a stream");
            if (ogg_stream_init(&r->stream, ogg_page_serialno(&page)) != 0)
                return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "Ogg: out of memory");
            r->stream_open = true;
        }
        if (ogg_page_serialno(&page) != r->stream.serialno) continue; /* another logical stream */
        if (ogg_stream_pagein(&r->stream, &page) != 0)
            return ts_error_set(err, TS_ERR_FORMAT, "Ogg: a header page does not fit its stream");
        while (have < 3) {
            int out = ogg_stream_packetout(&r->stream, &packet);
            if (out == 0) break;
            if (out < 0)
                return ts_error_set(err, TS_ERR_FORMAT, "Ogg: pages are missing inside the Vorbis %s header",
                                    HEADER_NAMES[have]);
            if (have == 0 && !vorbis_synthesis_idheader(&packet)) return TS_OK; /* not Vorbis: libsndfile's */
            int rc = vorbis_synthesis_headerin(&r->info, &r->comment, &packet);
            if (rc != 0)
                return ts_error_set(err, TS_ERR_FORMAT, "Ogg: the Vorbis %s header is malformed (libvorbis %d)",
                                    HEADER_NAMES[have], rc);
            have++;
        }
    }
    return TS_OK;
}

ts_status ts_audio_ogg_headers(const uint8_t *data, size_t len, ts_error *err)
{
    reader r = {.data = data, .len = len};
    ogg_sync_init(&r.sync);
    vorbis_info_init(&r.info);
    vorbis_comment_init(&r.comment);
    ts_status st = read_headers(&r, err);
    vorbis_comment_clear(&r.comment);
    vorbis_info_clear(&r.info);
    if (r.stream_open) ogg_stream_clear(&r.stream);
    ogg_sync_clear(&r.sync);
    return st;
}
