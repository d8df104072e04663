/* infer.c - a bare recording's protocol from its welcome and first frames
 * (see infer.h). */
#include "infer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "frame.h"
#include "proto.h"
#include "util.h"
#include "welcome.h"

/* The status byte, the longest welcome and an on-demand payload. */
#define HANDSHAKE_MAX (1 + PROTO_WELCOME_MAX + PROTO_ONDEMAND_SIZE)

struct infer_state;

/* One place the frames may begin (a welcome size, with or without the
 * on-demand payload), and its frames decompressed as they come. */
typedef struct {
    struct infer_state *s;
    size_t start;              /* recording offset of the first frame's size field */
    frame_decoder_t dec;
    uint64_t decoded;
    bool stopped;              /* the cap, a frame that does not decompress, or no candidate left */
} reading_t;

typedef struct {
    const proto_desc_t *d;
    proto_tables_t t;
    reading_t *reading;
    bool alive, sane;
    uint64_t frames;           /* walked to their ends */
    char why[256];             /* what ended its walk */
} candidate_t;

struct infer_state {
    uint8_t hs[HANDSHAKE_MAX];
    size_t have;
    bool set_up, nothing;
    candidate_t cand[INFER_MAX_CANDIDATES];
    unsigned ncand;
    reading_t reading[INFER_MAX_CANDIDATES];
    unsigned nreading;
};

/* Walk one decompressed frame with candidate c's event sizes. */
static void walk_frame(candidate_t *c, const uint8_t *p, size_t n, uint64_t frame_no)
{
    size_t at = 0;
    while (at < n) {
        char err[160];
        const size_t size = event_size(&c->t, p + at, n - at, err, sizeof err);
        if (size == 0) {
            snprintf(c->why, sizeof c->why, "frame %llu (the frames begin at offset %zu), %zu bytes into it: %s",
                     (unsigned long long)frame_no, c->reading->start, at, err);
            c->alive = false;
            return;
        }
        at += size;
    }
    c->frames++;
}

/* frame_fn: walk the frame with every live candidate of this reading. */
static int on_frame(void *ctx, const uint8_t *p, size_t n)
{
    reading_t *r = ctx;
    bool any = false;
    for (unsigned i = 0; i < r->s->ncand; i++) {
        candidate_t *c = &r->s->cand[i];
        if (c->reading != r || !c->alive) continue;
        walk_frame(c, p, n, r->dec.frames);
        any |= c->alive;
    }
    r->decoded += n;
    r->stopped = !any || r->decoded >= INFER_DECODED_MAX;
    return r->stopped ? 1 : 0;
}

/* A frame that does not decompress: the end of this reading, and of its
 * candidates when it is the first (their welcome ends elsewhere). */
static void reading_failed(reading_t *r)
{
    r->stopped = true;
    for (unsigned i = 0; i < r->s->ncand; i++) {
        candidate_t *c = &r->s->cand[i];
        if (c->reading != r || !c->alive || r->dec.frames) continue;
        c->alive = false;
        snprintf(c->why, sizeof c->why, "%s", r->dec.err);
    }
}

static void feed_reading(reading_t *r, const uint8_t *p, size_t n)
{
    if (!r->stopped && frame_feed(&r->dec, p, n, on_frame, r) < 0 && !r->stopped) reading_failed(r);
}

/* Whether protocol d's reading of the welcome w is plausible (infer.h). */
static bool welcome_sane(const proto_desc_t *d, const uint8_t *w)
{
    welcome_t v;
    welcome_parse(d, w, &v);
    return isfinite(v.timer_mul) && v.timer_mul > 0 && (double)v.resolution * v.timer_mul < 1e8 &&
           v.capture_time >= 1000000;
}

/* Where protocol d's first frame begins, or 0 when the bytes end before. */
static size_t frames_start(const proto_desc_t *d, const uint8_t *hs, size_t have)
{
    size_t start = 1 + (size_t)d->welcome_size;
    if (have < start) return 0;
    if (welcome_on_demand(d, hs + 1)) start += PROTO_ONDEMAND_SIZE;
    return have < start ? 0 : start;
}

static reading_t *reading_at(infer_state_t *s, size_t start)
{
    for (unsigned i = 0; i < s->nreading; i++)
        if (s->reading[i].start == start) return &s->reading[i];
    reading_t *r = &s->reading[s->nreading++];
    *r = (reading_t){ .s = s, .start = start };
    frame_decoder_init(&r->dec, start);
    return r;
}

/* The candidates, once the handshake bytes are in (or all there are). */
static void set_up(infer_state_t *s)
{
    s->set_up = true;
    if (s->have == 0 || s->hs[0] != HS_WELCOME) {
        s->nothing = true;
        return;
    }
    for (unsigned i = 0; proto_all[i] && s->ncand < INFER_MAX_CANDIDATES; i++) {
        const proto_desc_t *d = proto_all[i];
        const size_t start = frames_start(d, s->hs, s->have);
        if (!start) continue;          /* the recording ends inside this welcome */
        candidate_t *c = &s->cand[s->ncand++];
        *c = (candidate_t){ .d = d, .reading = reading_at(s, start), .alive = true,
                            .sane = welcome_sane(d, s->hs + 1) };
        proto_tables_init(&c->t, d);
    }
    s->nothing = s->ncand == 0;
    for (unsigned i = 0; i < s->nreading; i++)
        feed_reading(&s->reading[i], s->hs + s->reading[i].start, s->have - s->reading[i].start);
}

static bool decided(const infer_state_t *s)
{
    if (!s->set_up) return false;
    if (s->nothing) return true;
    unsigned alive = 0;
    bool reading = false;
    for (unsigned i = 0; i < s->ncand; i++) {
        alive += s->cand[i].alive;
        reading |= s->cand[i].alive && !s->cand[i].reading->stopped;
    }
    return alive <= 1 || !reading;
}

infer_state_t *infer_new(void)
{
    return xcalloc(1, sizeof(infer_state_t));
}

bool infer_feed(infer_state_t *s, const uint8_t *p, size_t n)
{
    if (!s->set_up) {
        const size_t take = HANDSHAKE_MAX - s->have < n ? HANDSHAKE_MAX - s->have : n;
        memcpy(s->hs + s->have, p, take);
        s->have += take;
        p += take;
        n -= take;
        if (s->have < HANDSHAKE_MAX) return false;
        set_up(s);
    }
    for (unsigned i = 0; i < s->nreading && n; i++) feed_reading(&s->reading[i], p, n);
    return decided(s);
}

infer_status_t infer_finish(infer_state_t *s, infer_t *out)
{
    *out = (infer_t){0};
    if (!s->set_up) set_up(s);
    unsigned nsane = 0;
    for (unsigned i = 0; i < s->ncand; i++) nsane += s->cand[i].alive && s->cand[i].sane;
    const candidate_t *nearest = NULL;
    for (unsigned i = 0; i < s->ncand; i++) {
        const candidate_t *c = &s->cand[i];
        if (c->alive && (c->sane || !nsane)) {
            if (!out->nfits) out->frames = c->frames;
            out->fits[out->nfits++] = c->d;
        } else if (!c->alive && (!nearest || (c->sane && !nearest->sane))) {
            nearest = c;
        }
    }
    if (nearest) {
        out->nearest = nearest->d;
        snprintf(out->why, sizeof out->why, "%s", nearest->why);
    }
    const infer_status_t status = s->nothing ? INFER_NOTHING : INFER_DONE;
    for (unsigned i = 0; i < s->nreading; i++) frame_decoder_free(&s->reading[i].dec);
    free(s);
    return status;
}

infer_status_t infer_protocol(const uint8_t *p, size_t n, infer_t *out)
{
    infer_state_t *s = infer_new();
    infer_feed(s, p, n);
    return infer_finish(s, out);
}
