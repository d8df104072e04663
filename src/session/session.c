/* session.c - handshake answer, welcome and frame stream of one session
 * (see session.h). */
#include "session.h"

#include "welcome.h"

#include <stdio.h>
#include <string.h>

void session_init(session_t *s, const proto_desc_t *desc, query_sink_fn sink, void *sink_ctx)
{
    memset(s, 0, sizeof *s);
    s->desc = desc;
    s->state = SESSION_HANDSHAKE;
    s->need = 1;
    queryq_init(&s->queries, query_space_for_sndbuf(16384), sink, sink_ctx);
    queryq_set_protocol(&s->queries, desc->query_wire, desc->query_immediate);
    model_init(&s->model, &s->queries);
    s->model.rules = desc->rules;
    event_decoder_init(&s->events, &s->model, desc);
}

void session_free(session_t *s)
{
    model_free(&s->model);
    queryq_free(&s->queries);
    if (s->frames_ready) frame_decoder_free(&s->frames);
}

void session_set_query_space(session_t *s, int64_t space)
{
    s->queries.space = space;
}

bool session_waiting(const session_t *s, char *why, size_t whylen)
{
    const model_t *m = &s->model;
    /* After a Disconnect the client drops asynchronous answers and open
     * zones are expected; after a crash the zones are never closed. */
    return model_pending_work(m, !m->crashed && !s->disconnecting, s->disconnecting, why, whylen);
}

session_state_t session_feed_frame(session_t *s, const uint8_t *data, size_t n, uint64_t frame_no,
                                   uint64_t offset, size_t numbered)
{
    if (s->state != SESSION_STREAMING) return s->state;
    size_t where = 0;
    s->events.numbered_until = numbered;
    s->model.frame_base = data;
    s->model.at_frame_no = frame_no;
    s->model.at_stream_offset = offset;
    char err[256];
    const int rc = event_decode_frame(&s->events, data, n, &where, err, sizeof err);
    s->model.frame_base = NULL;
    if (rc < 0) {
        snprintf(s->err, sizeof s->err, "frame %llu at stream offset %llu, byte %zu of %zu decompressed: %s",
                 (unsigned long long)frame_no, (unsigned long long)offset, where, n, err);
        s->state = SESSION_BROKEN;
        return s->state;
    }
    /* Queries leave after each whole frame, as upstream sends them. */
    queryq_flush(&s->queries);
    if (s->model.terminate && !session_waiting(s, NULL, 0)) s->state = SESSION_COMPLETE;
    return s->state;
}

/* frame.c callback of the synchronous path. */
static int on_frame(void *ctx, const uint8_t *data, size_t n)
{
    session_t *s = ctx;
    switch (session_feed_frame(s, data, n, s->frames.frames, s->frames.frame_offset, 0)) {
    case SESSION_STREAMING: return 0;
    case SESSION_COMPLETE: return 1;
    default: return -1;
    }
}

/* Consume handshake bytes; returns how many were used. */
static size_t feed_handshake(session_t *s, const uint8_t *p, size_t n)
{
    size_t used = 0;
    while (used < n && s->state == SESSION_HANDSHAKE) {
        size_t take = s->need - s->have < n - used ? s->need - s->have : n - used;
        if (s->need == 1) {
            s->status = p[used];
            used++;
            if (s->status != HS_WELCOME) {
                s->state = SESSION_REJECTED;
                break;
            }
            s->need = s->desc->welcome_size;
            s->have = 0;
            continue;
        }
        memcpy(s->welcome + s->have, p + used, take);
        s->have += take;
        used += take;
        if (s->have < s->need) break;
        const size_t size = s->desc->welcome_size;
        if (s->need == size && welcome_on_demand(s->desc, s->welcome)) {
            s->need += PROTO_ONDEMAND_SIZE;
            continue;
        }
        welcome_t w;
        welcome_parse(s->desc, s->welcome, &w);
        model_welcome(&s->model, &w);
        if (s->need > size) {
            on_demand_t od;
            on_demand_parse(s->welcome + size, &od);
            model_on_demand(&s->model, &od);
        }
        s->welcomed = true;
        s->state = SESSION_STREAMING;
    }
    return used;
}

size_t session_feed_handshake(session_t *s, const uint8_t *p, size_t n)
{
    return s->state == SESSION_HANDSHAKE ? feed_handshake(s, p, n) : 0;
}

session_state_t session_feed(session_t *s, const uint8_t *p, size_t n)
{
    if (s->state == SESSION_HANDSHAKE) {
        size_t used = session_feed_handshake(s, p, n);
        p += used;
        n -= used;
    }
    if (s->state != SESSION_STREAMING || n == 0) return s->state;
    /* (also when the handshake came through session_feed_handshake) */
    if (!s->frames_ready) {
        frame_decoder_init(&s->frames, session_frames_offset(s));
        s->frames_ready = true;
    }
    int rc = frame_feed(&s->frames, p, n, on_frame, s);
    if (rc < 0 && s->state == SESSION_STREAMING) {
        snprintf(s->err, sizeof s->err, "%s", s->frames.err);
        s->state = SESSION_BROKEN;
    }
    return s->state;
}

void session_request_disconnect(session_t *s)
{
    if (s->disconnecting || s->state != SESSION_STREAMING) return;
    s->disconnecting = true;
    queryq_push(&s->queries, SQ_DISCONNECT, 0, 0);
    queryq_flush(&s->queries);
}
