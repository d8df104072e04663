/* fuzz_stream.c - session inputs made into client streams and fed in
 * splits, the query sink and the session checks (see fuzz.h). */
#include <lz4.h>
#include <string.h>

#include "csdedup.h"
#include "fuzz.h"
#include "infer.h"
#include "proto.h"
#include "util.h"

size_t fuzz_piece(uint64_t *state, size_t left)
{
    uint64_t r = fuzz_rand(state);
    size_t k;
    switch (r & 3) {
    case 0: k = (size_t)(r >> 8) % 8 + 1; break;
    case 1: k = (size_t)(r >> 8) % 300 + 1; break;
    case 2: k = (size_t)(r >> 8) % 70000 + 1; break;
    default: k = left; break;
    }
    return k < left ? k : left;
}

/* Handshake bytes after the status byte: the welcome, and the on-demand
 * payload when the welcome's flags ask for it. */
static size_t welcome_size(const uint8_t *welcome, size_t have)
{
    size_t need = PROTO_WELCOME_SIZE;
    if (have > 64 && (welcome[64] & WF_ON_DEMAND)) need += PROTO_ONDEMAND_SIZE;
    return need < have ? need : have;
}

typedef struct {
    uint8_t *p;
    size_t n, cap;
} buf_t;

static uint8_t *buf_room(buf_t *b, size_t more)
{
    if (b->n + more > b->cap) {
        b->cap = (b->n + more) * 2;
        b->p = xrealloc(b->p, b->cap);
    }
    return b->p + b->n;
}

/* Compress plain frames (u32 size + events) as a client does: through a
 * ring of 3 target frames that wraps past 2 (protocol-82.md 3.2). Sizes
 * are clamped to the bytes left and to one target frame. */
static void compress_frames(buf_t *out, const uint8_t *p, size_t n)
{
    const size_t ring_size = n < 3 * PROTO_TARGET_FRAME_SIZE ? n + 1 : 3 * PROTO_TARGET_FRAME_SIZE;
    char *ring = xmalloc(ring_size);
    LZ4_stream_t *lz4 = LZ4_createStream();
    size_t off = 0;
    while (n >= 4) {
        size_t len = ld32(p);
        p += 4;
        n -= 4;
        if (len > n) len = n;
        if (len > PROTO_TARGET_FRAME_SIZE) len = PROTO_TARGET_FRAME_SIZE;
        memcpy(ring + off, p, len);
        uint8_t *dst = buf_room(out, 4 + (size_t)LZ4_compressBound((int)len));
        int sz = LZ4_compress_fast_continue(lz4, ring + off, (char *)dst + 4, (int)len,
                                            LZ4_compressBound((int)len), 1);
        FUZZ_CHECK(sz > 0, "LZ4 could not compress %zu bytes", len);
        const uint32_t size = (uint32_t)sz;
        memcpy(dst, &size, 4);
        out->n += 4 + (size_t)sz;
        off += len;
        if (off > 2 * PROTO_TARGET_FRAME_SIZE) off = 0;
        p += len;
        n -= len;
    }
    LZ4_freeStream(lz4);
    free(ring);
}

const uint8_t *fuzz_client_stream(const uint8_t *in, size_t n, size_t *out_n, uint8_t **owned)
{
    *owned = NULL;
    *out_n = n;
    if (n == 0 || in[0] != FUZZ_PLAIN) return in;
    const size_t hs = welcome_size(in + 1, n - 1);
    buf_t b = { 0 };
    uint8_t *p = buf_room(&b, 1 + hs);
    p[0] = HS_WELCOME;
    memcpy(p + 1, in + 1, hs);
    b.n = 1 + hs;
    compress_frames(&b, in + 1 + hs, n - 1 - hs);
    *owned = b.p;
    *out_n = b.n;
    return b.p;
}

/* The way a live capture feeds the session (netdec.c): frames decoded
 * apart from it, and their call-stack payloads numbered by csdedup.c in a
 * copy, before session_feed_frame sees them. */
typedef struct {
    session_t *s;
    csdedup_t dedup;
    uint8_t *copy;
} numbered_feed_t;

static int on_numbered_frame(void *ctx, const uint8_t *data, size_t n)
{
    numbered_feed_t *f = ctx;
    memcpy(f->copy, data, n);
    const size_t numbered = csdedup_frame(&f->dedup, f->copy, n);
    FUZZ_CHECK(numbered <= n, "%zu of %zu bytes numbered", numbered, n);
    switch (session_feed_frame(f->s, f->copy, n, f->s->frames.frames, f->s->frames.frame_offset, numbered)) {
    case SESSION_STREAMING: return 0;
    case SESSION_COMPLETE: return 1;
    default: return -1;
    }
}

/* session_feed's steps, with the frames going through on_numbered_frame. */
static void feed_numbered(numbered_feed_t *f, const uint8_t *p, size_t n)
{
    session_t *s = f->s;
    if (s->state == SESSION_HANDSHAKE) {
        const size_t used = session_feed_handshake(s, p, n);
        p += used;
        n -= used;
        if (s->state == SESSION_STREAMING) {
            frame_decoder_init(&s->frames, session_frames_offset(s));
            s->frames_ready = true;
        }
    }
    if (s->state != SESSION_STREAMING || n == 0) return;
    if (frame_feed(&s->frames, p, n, on_numbered_frame, f) < 0 && s->state == SESSION_STREAMING) {
        snprintf(s->err, sizeof s->err, "%s", s->frames.err);
        s->state = SESSION_BROKEN;
    }
}

void fuzz_feed_session(session_t *s, const uint8_t *p, size_t n)
{
    uint64_t rng = fuzz_hash(p, n < 64 ? n : 64, n);
    const bool disconnect = rng & 1, numbered = rng & 2;
    numbered_feed_t f = { .s = s };
    csdedup_init(&f.dedup, proto_by_version(82));
    if (numbered) f.copy = malloc(PROTO_TARGET_FRAME_SIZE);
    size_t fed = 0;
    while (fed < n && s->state <= SESSION_STREAMING) {
        size_t k = fuzz_piece(&rng, n - fed);
        if (numbered) feed_numbered(&f, p + fed, k);
        else session_feed(s, p + fed, k);
        fed += k;
        if (disconnect && fed >= n / 2) session_request_disconnect(s);
    }
    csdedup_free(&f.dedup);
    free(f.copy);
}

void fuzz_sink(void *ctx, const uint8_t *packets, size_t len)
{
    fuzz_sink_t *sink = ctx;
    FUZZ_CHECK(len > 0 && len % 13 == 0, "query packets of %zu bytes", len);
    for (size_t i = 0; i < len; i += 13) FUZZ_CHECK(packets[i] <= SQ_DATA_TRANSFER_PART, "query type %u", packets[i]);
    sink->bytes += len;
}

void fuzz_check_session(const session_t *s, const fuzz_sink_t *sink)
{
    FUZZ_CHECK(sink->bytes == 13 * s->queries.sent, "%llu bytes for %llu queries",
               (unsigned long long)sink->bytes, (unsigned long long)s->queries.sent);
    switch (s->state) {
    case SESSION_HANDSHAKE:
        FUZZ_CHECK(!s->welcomed, "welcomed during the handshake");
        break;
    case SESSION_REJECTED:
        FUZZ_CHECK(!s->welcomed && s->status != HS_WELCOME, "rejected with status %u", s->status);
        break;
    case SESSION_BROKEN:
        FUZZ_CHECK(s->err[0], "broken without a reason");
        /* fall through */
    case SESSION_STREAMING:
    case SESSION_COMPLETE:
        FUZZ_CHECK(s->welcomed, "state %d without a welcome", (int)s->state);
        break;
    }
    char why[256];
    (void)session_waiting(s, why, sizeof why);
    model_counts_t c;
    model_count(&s->model, &c);
}

void fuzz_run_session(const uint8_t *data, size_t size, void (*then)(session_t *s))
{
    size_t n;
    uint8_t *owned;
    const uint8_t *stream = fuzz_client_stream(data, size, &n, &owned);
    fuzz_sink_t sink = { 0 };
    session_t *s = malloc(sizeof *s);
    /* the protocol as --recover tells it from a bare recording, so that
     * every protocol's decoding (and the inference) is fuzzed */
    const proto_desc_t *d = proto_all[0];
    infer_t inf;
    if (infer_protocol(stream, n, &inf) == INFER_DONE && inf.nfits) d = inf.fits[0];
    session_init(s, d, fuzz_sink, &sink);
    fuzz_feed_session(s, stream, n);
    fuzz_check_session(s, &sink);
    if (then) then(s);
    session_free(s);
    free(s);
    free(owned);
}
