/* model_zones.c - CPU zones: begin/end, text, name, colour, value and
 * validation, appended to each thread's compact zone log (zlog.h), with a
 * fast path for runs of plain zone events. */
#include "model.h"

#include "event.h"
#include "proto.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define ZLOG_MAX_RECORD 40
#define ZLOG_FIRST_CHUNK 4096

/* Record the tail chunk's fill (readers go by `used`). */
static inline void zlog_seal(thread_t *t)
{
    if (t->log_tail) t->log_tail->used = (uint32_t)(t->log_w - t->log_tail->data);
}

/* A new chunk at the tail of the thread's log. */
static void zlog_grow(thread_t *t)
{
    zlog_seal(t);
    zchunk_t *c = t->log_tail;
    uint32_t cap = c ? (c->cap < ZLOG_MAX_CHUNK ? c->cap * 2 : ZLOG_MAX_CHUNK) : ZLOG_FIRST_CHUNK;
    zchunk_t *n = NULL;
    if (cap == ZLOG_MAX_CHUNK && t->pool) n = chunkpool_take(t->pool);
    if (!n) n = xmalloc(sizeof *n + cap);
    n->next = NULL;
    n->used = 0;
    n->cap = cap;
    if (c) c->next = n;
    else t->log_head = n;
    t->log_tail = n;
    t->log_bytes += sizeof *n + cap;
    t->log_w = n->data;
    t->log_lim = n->data + cap - ZLOG_MAX_RECORD;
}

/* Room for one record at the tail of the thread's log. */
static inline uint8_t *zlog_reserve(thread_t *t)
{
    if (__builtin_expect(t->log_w >= t->log_lim, 0)) zlog_grow(t);
    return t->log_w;
}

static inline void zlog_commit(thread_t *t, uint8_t *end)
{
    t->log_w = end;
}

/* A varint, with the common one- and two-byte cases first. */
static inline uint8_t *put_varint(uint8_t *q, uint64_t v)
{
    if (v < 0x80) {
        *q = (uint8_t)v;
        return q + 1;
    }
    if (v < 0x4000) {
        q[0] = (uint8_t)(v | 0x80);
        q[1] = (uint8_t)(v >> 7);
        return q + 2;
    }
    return q + varint_put(q, v);
}

void model_seal_logs(model_t *m)
{
    for (size_t i = 0; i < m->nthreads; i++) zlog_seal(m->threads[i]);
}

/* Append a begin record; returns its tag byte (for the info bit). Times in
 * the log are client ticks; the writer converts them. */
static inline uint8_t *zlog_begin(thread_t *t, int16_t srcloc, int64_t start)
{
    uint8_t *tag = zlog_reserve(t), *q = tag + 1;
    const uint64_t zs = zigzag(srcloc);
    if (zs < ZL_SRCLOC_ESCAPE) {
        *tag = (uint8_t)(ZL_BEGIN | zs);
    } else {
        *tag = ZL_BEGIN | ZL_SRCLOC_ESCAPE;
        q = put_varint(q, zs);
    }
    q = put_varint(q, zigzag(sub_wrap(start, t->log_ref)));
    t->log_ref = start;
    zlog_commit(t, q);
    return tag;
}

/* Append an end record, and fill the zone's info slot if it has one. */
static inline void zlog_end(thread_t *t, int64_t end, const open_zone_t *z)
{
    uint8_t *tag = zlog_reserve(t), *q = tag + 1;
    const uint64_t zd = zigzag(sub_wrap(end, t->log_ref));
    uint8_t b = (uint8_t)(zd & 0x1F);
    if (zd >> 5) {
        b |= ZL_MORE;
        q = put_varint(q, zd >> 5);
    }
    *tag = b;
    t->log_ref = end;
    zlog_commit(t, q);
    if (z->slot) {
        memcpy(z->slot, &z->nchild, 4);
        memcpy(z->slot + 4, &z->extra, 4);
    }
}

/* Give the innermost open zone its info slot. Nothing has been logged
 * since its begin record (see zlog.h), so the slot lands right after it. */
static void zlog_add_slot(thread_t *t, open_zone_t *z)
{
    uint8_t *slot = zlog_reserve(t);
    memset(slot, 0, ZL_SLOT);
    zlog_commit(t, slot + ZL_SLOT);
    *z->tag |= ZL_INFO;
    z->slot = slot;
}

/* ---- begin and end -------------------------------------------------------------- */

/* NewZone: append the zone to the current thread's timeline. */
static inline __attribute__((always_inline)) void new_zone(model_t *m, thread_t *t, int64_t start, int16_t srcloc)
{
    m->zone_count++;
    t->zone_count++;
    if (t->stack.n == 0) t->top_zones++;
    if (t->stack.n) {
        open_zone_t *parent = &t->stack.v[t->stack.n - 1];
        if (parent->nchild++ == 0) {
            m->zone_parents++;
            if (!parent->slot) zlog_add_slot(t, parent);
        }
    }
    VEC_RESERVE(t->stack, t->stack.n + 1);
    open_zone_t *z = &t->stack.v[t->stack.n++];
    z->start = start;
    z->srcloc = srcloc;
    z->zone_id = t->next_zone_id;
    z->extra = z->nchild = 0;
    z->text_building = false;
    z->slot = NULL;
    z->tag = zlog_begin(t, srcloc, start);
    t->next_zone_id = 0;
}

/* The zone-extra entry of an open zone, allocated on first need. */
static zone_extra_t *request_extra(model_t *m, thread_t *t, open_zone_t *z)
{
    if (!z->extra) {
        zone_extra_t e = {0};
        z->extra = (uint32_t)m->zone_extras.n;
        if (!z->slot) zlog_add_slot(t, z);
        VEC_PUSH(m->zone_extras, e);
    }
    return &m->zone_extras.v[z->extra];
}

/* Attach and clear the thread's pending per-thread callstack. */
static void attach_callstack(model_t *m)
{
    thread_t *t = model_current_thread(m);
    open_zone_t *z = &t->stack.v[t->stack.n - 1];
    request_extra(m, t, z)->callstack = t->next_callstack;
    t->next_callstack = 0;
}

/* True if the innermost open zone of t was dropped (see drop_zone). */
static inline bool dropped_on_top(const thread_t *t)
{
    return t->dropped.n && t->dropped.v[t->dropped.n - 1] == t->stack.n;
}

/* A zone the file cannot hold (its source location does not fit, or it
 * nests too deep): not kept, but its place in the nesting is, so its end
 * (and its annotations) find it and its children go to its parent (where
 * they nest too deep in turn). The failure was counted by the check. */
static void drop_zone(model_t *m, bool callstack)
{
    thread_t *t = model_current_thread(m);
    VEC_PUSH(t->dropped, (uint32_t)t->stack.n);
    t->next_zone_id = 0;
    if (callstack) t->next_callstack = 0;
}

/* The end time to keep for zone z: a zone ending before it starts ends at
 * the last time logged on its thread (its start or its last child's). */
static inline int64_t zone_end_time(model_t *m, const thread_t *t, const open_zone_t *z, int64_t ticks)
{
    if (ticks >= z->start) return ticks;
    model_failure(m, "zone on thread %" PRIu64 " ends %" PRIu64 " ticks before it starts (kept, ending at its last event)",
                  t->id, (uint64_t)z->start - (uint64_t)ticks);
    return t->log_ref > z->start ? t->log_ref : z->start;
}

/* Whether a zone beginning on t now would nest deeper than the file's
 * readers take (ZONE_DEPTH_MAX): a failure, the zone to be dropped. */
static bool zone_too_deep(model_t *m, const thread_t *t)
{
    if (t->stack.n < ZONE_DEPTH_MAX) return false;
    model_failure(m, "zone on thread %" PRIu64 " nested deeper than the %d levels upstream's tools read back "
                  "(dropped, with its children)", t->id, ZONE_DEPTH_MAX);
    return true;
}

void model_zone_begin(model_t *m, int64_t ticks, uint64_t srcloc, bool callstack)
{
    /* Zones mostly reuse a few locations: a small cache skips both look-ups. */
    const unsigned slot = (unsigned)((srcloc >> 3) ^ (srcloc >> 11)) & (SRCLOC_CACHE - 1);
    if (srcloc != m->srcloc_cache_ptr[slot] || m->srcloc_cache_id[slot] == 0) {
        model_check_source_location(m, srcloc);
        m->srcloc_cache_id[slot] = model_shrink_srcloc(m, srcloc);
        m->srcloc_cache_ptr[slot] = srcloc;
        if (m->srcloc_cache_id[slot] == 0) {
            drop_zone(m, callstack);
            return;
        }
    }
    thread_t *t = model_current_thread(m);
    if (zone_too_deep(m, t)) {
        drop_zone(m, callstack);
        return;
    }
    new_zone(m, t, ticks, m->srcloc_cache_id[slot]);
    model_raise_time(m, model_time(m, ticks));
    if (callstack) attach_callstack(m);
}

void model_zone_begin_alloc(model_t *m, int64_t ticks, bool callstack)
{
    if (m->pending_payload_srcloc == 0) {
        model_failure(m, "zone begin with a dynamic source location that never arrived");
        return;
    }
    thread_t *t = model_current_thread(m);
    const int16_t srcloc = m->pending_payload_srcloc;
    m->pending_payload_srcloc = 0;
    if (zone_too_deep(m, t)) {
        drop_zone(m, callstack);
        return;
    }
    new_zone(m, t, ticks, srcloc);
    model_raise_time(m, model_time(m, ticks));
    if (callstack) attach_callstack(m);
}

void model_zone_end(model_t *m, int64_t ticks)
{
    thread_t *t = model_current_thread(m);
    if (dropped_on_top(t)) {
        t->dropped.n--;
        t->next_zone_id = 0;
        return;
    }
    if (t->stack.n == 0) {
        model_failure(m, "zone ended twice on thread %" PRIu64, t->id);
        return;
    }
    open_zone_t z = t->stack.v[--t->stack.n];
    model_zone_text_close(m, &z);
    if (z.zone_id != t->next_zone_id)
        model_failure(m, "zone begin/end mismatch on thread %" PRIu64 " (C API zone ids %u and %u)",
                      t->id, z.zone_id, t->next_zone_id);
    t->next_zone_id = 0;
    zlog_end(t, zone_end_time(m, t, &z, ticks), &z);
    m->zone_counts[(uint16_t)z.srcloc]++;
    model_raise_time(m, model_time(m, ticks));
}

void model_zone_validation(model_t *m, uint32_t id)
{
    model_current_thread(m)->next_zone_id = id;
}

/* The thread whose innermost open zone a ZoneText/Name/Color/Value
 * applies to, or NULL (an instrumentation failure upstream). */
static thread_t *annotated_thread(model_t *m, const char *what)
{
    thread_t *t = m->cur_thread ? m->cur_thread : model_find_thread(m, m->cur_thread_id);
    if (t) m->cur_thread = t;
    if (t && t->fiber) t = t->fiber;
    if (t && dropped_on_top(t)) {
        t->next_zone_id = 0;          /* a dropped zone's annotation goes with it */
        return NULL;
    }
    if (!t || t->stack.n == 0 || t->next_zone_id != t->stack.v[t->stack.n - 1].zone_id) {
        model_failure(m, "%s without an open zone on thread %" PRIu64, what, m->cur_thread_id);
        return NULL;
    }
    t->next_zone_id = 0;
    return t;
}

static inline open_zone_t *innermost(thread_t *t) { return &t->stack.v[t->stack.n - 1]; }

/* Start joining the parts of z's text in a buffer of its own, from the
 * text it has (up to its first NUL). */
static bytes_t *text_build_start(model_t *m, open_zone_t *z, zone_extra_t *e)
{
    uint32_t slot;
    if (m->text_builds_free.n) {
        slot = m->text_builds_free.v[--m->text_builds_free.n];
    } else {
        slot = (uint32_t)m->text_builds.n;
        VEC_PUSH(m->text_builds, (bytes_t){0});
    }
    bytes_t *b = &m->text_builds.v[slot];
    const char *old = strtab_get(&m->strings, e->text - 1);
    bytes_put(b, old, strlen(old));
    e->text = TEXT_BUILDING | slot;
    z->text_building = true;
    return b;
}

void model_zone_text_close(model_t *m, open_zone_t *z)
{
    if (!z->text_building) return;
    zone_extra_t *e = &m->zone_extras.v[z->extra];
    const uint32_t slot = e->text & ~TEXT_BUILDING;
    bytes_t *b = &m->text_builds.v[slot];
    e->text = model_store_string(m, b->p, b->n) + 1;
    bytes_free(b);
    VEC_PUSH(m->text_builds_free, slot);
    z->text_building = false;
}

/* Set a zone's text, or append it after a newline: upstream joins the
 * strings up to their first NUL, and interns every join; the zone's final
 * text is the same here, built in place and interned when it is complete
 * (model_zone_text_close). */
static void append_text(model_t *m, thread_t *t, const char *s, size_t n)
{
    open_zone_t *z = innermost(t);
    zone_extra_t *e = request_extra(m, t, z);
    if (!e->text) {
        e->text = model_store_string(m, s, n) + 1;
        return;
    }
    bytes_t *b = z->text_building ? &m->text_builds.v[e->text & ~TEXT_BUILDING] : text_build_start(m, z, e);
    bytes_reserve(b, 1 + n);
    b->p[b->n++] = '\n';
    bytes_put(b, s, strnlen(s, n));
}

void model_zone_text(model_t *m)
{
    thread_t *t = annotated_thread(m, "ZoneText");
    int64_t s = model_take_single_string(m);
    if (!t || s < 0) return;
    append_text(m, t, strtab_get(&m->strings, (uint32_t)s), strtab_len(&m->strings, (uint32_t)s));
}

void model_zone_name(model_t *m)
{
    thread_t *t = annotated_thread(m, "ZoneName");
    int64_t s = model_take_single_string(m);
    if (!t || s < 0) return;
    request_extra(m, t, innermost(t))->name = (uint32_t)s + 1;
}

void model_zone_color(model_t *m, uint8_t r, uint8_t g, uint8_t b)
{
    thread_t *t = annotated_thread(m, "ZoneColor");
    if (!t) return;
    request_extra(m, t, innermost(t))->color = ((uint32_t)b << 16) | ((uint32_t)g << 8) | r;
}

void model_zone_value(model_t *m, uint64_t value)
{
    thread_t *t = annotated_thread(m, "ZoneValue");
    if (!t) return;
    char tmp[64];
    int n = snprintf(tmp, sizeof tmp, "%" PRIu64 " [0x%" PRIx64 "]", value, value);
    append_text(m, t, tmp, (size_t)n);
}

/* ---- the fast path ------------------------------------------------------------------ */

/* Decode and keep a run of plain ZoneBegin/ZoneEnd events (all compact
 * forms) of the current thread, the bulk of a zone-heavy stream, with the
 * thread, its stack and its log at hand. Anything unusual (a location not
 * in the cache, an end without an open zone, a C API zone id, another event
 * type, a cut event, a time outside the range, a zone too deep) leaves the
 * run to the general handlers. Returns the
 * bytes consumed; *ref is the thread time reference. */
size_t model_zone_run(model_t *m, const uint8_t *p, size_t n, int64_t *ref)
{
    const uint8_t *const start = p, *const end = p + n;
    /* A thread not yet noticed goes the general way, which notices it in
     * upstream's order (after the source location query). */
    if (!m->cur_thread) return 0;
    thread_t *t = model_current_thread(m);
    int64_t r = *ref, rmax = INT64_MIN;
    while (p < end) {
        int64_t delta;
        uint64_t srcloc = 0;
        size_t size;
        bool begin;
        /* the two most common forms first */
        if (*p == EV_ZONE_END16 && end - p >= 3) {
            size = 3;
            begin = false;
            delta = ld16(p + 1);
        } else if (*p == EV_ZONE_BEGIN16 && end - p >= 11) {
            size = 11;
            begin = true;
            delta = ld16(p + 1);
            srcloc = ld64(p + 3);
        } else {
            switch (*p) {
            case EV_ZONE_BEGIN32: size = 13; begin = true; break;
            case EV_ZONE_BEGIN: size = 17; begin = true; break;
            case EV_ZONE_END32: size = 5; begin = false; break;
            case EV_ZONE_END: size = 9; begin = false; break;
            default: goto out;
            }
            if ((size_t)(end - p) < size) goto out;
            switch (size) {
            case 13: delta = (int64_t)ld32(p + 1) + PROTO_OFFSET_16BIT; srcloc = ld64(p + 5); break;
            case 17: delta = event_delta64(ldi64(p + 1)); srcloc = ld64(p + 9); break;
            case 5: delta = (int64_t)ld32(p + 1) + PROTO_OFFSET_16BIT; break;
            default: delta = event_delta64(ldi64(p + 1)); break;
            }
        }
        const int64_t ticks = (int64_t)((uint64_t)r + (uint64_t)delta);
        if (!model_ticks_fit(m, ticks)) break;
        if (begin) {
            const unsigned slot = (unsigned)((srcloc >> 3) ^ (srcloc >> 11)) & (SRCLOC_CACHE - 1);
            if (srcloc != m->srcloc_cache_ptr[slot] || m->srcloc_cache_id[slot] == 0 || t->stack.n >= ZONE_DEPTH_MAX)
                break;
            new_zone(m, t, ticks, m->srcloc_cache_id[slot]);
        } else {
            if (t->stack.n == 0 || t->stack.v[t->stack.n - 1].zone_id != t->next_zone_id || dropped_on_top(t))
                break;
            open_zone_t *z = &t->stack.v[--t->stack.n];
            if (__builtin_expect(z->text_building, 0)) model_zone_text_close(m, z);
            t->next_zone_id = 0;
            if (ticks < z->start) m->ev_at = p;
            zlog_end(t, zone_end_time(m, t, z, ticks), z);
            m->zone_counts[(uint16_t)z->srcloc]++;
        }
        if (ticks > rmax) rmax = ticks;
        r = ticks;
        p += size;
    }
out:
    /* times convert monotonically: the run's latest is its largest */
    if (rmax != INT64_MIN) model_raise_time(m, model_time(m, rmax));
    *ref = r;
    return (size_t)(p - start);
}
