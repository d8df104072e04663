/* model_zonelog.h - the hot operations on a thread's zone log and zone
 * stack, inline, for model_zones.c and for the wire's run of plain zone
 * events (wire/zonerun.c), which decodes the bytes of its protocol and
 * hands each zone to zone_fast_begin / zone_fast_end: the model keeps the
 * bookkeeping, the wire the layout. */
#ifndef TC_MODEL_ZONELOG_H
#define TC_MODEL_ZONELOG_H

#include <inttypes.h>

#include "model.h"

/* A new chunk at the tail of the thread's log (model_zones.c). */
void model_zlog_grow(thread_t *t);
/* Give the innermost open zone its info slot (model_zones.c). */
void model_zlog_add_slot(thread_t *t, open_zone_t *z);
/* The most a record takes: a chunk keeps this much room at its end. */
#define ZLOG_MAX_RECORD 40

/* Room for one record at the tail of the thread's log. */
static inline uint8_t *zlog_reserve(thread_t *t)
{
    if (__builtin_expect(t->log_w >= t->log_lim, 0)) model_zlog_grow(t);
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
            if (!parent->slot) model_zlog_add_slot(t, parent);
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

/* True if the innermost open zone of t was dropped (see drop_zone). */
static inline bool dropped_on_top(const thread_t *t)
{
    return t->dropped.n && t->dropped.v[t->dropped.n - 1] == t->stack.n;
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

/* ---- the fast path: one zone event at a time, from the wire's zone run ---------------- */

/* The current thread, or NULL: a thread not yet noticed goes the general
 * way, which notices it in upstream's order (after the source location
 * query). */
static inline thread_t *zone_fast_thread(model_t *m)
{
    return m->cur_thread ? model_current_thread(m) : NULL;
}

/* A zone begins at ticks at a static location; false (nothing done) when
 * it needs the general handler: a location not in the cache, a zone too
 * deep, a time outside the range. */
static inline bool zone_fast_begin(model_t *m, thread_t *t, int64_t ticks, uint64_t srcloc)
{
    if (!model_ticks_fit(m, ticks)) return false;
    const unsigned slot = (unsigned)((srcloc >> 3) ^ (srcloc >> 11)) & (SRCLOC_CACHE - 1);
    if (srcloc != m->srcloc_cache_ptr[slot] || m->srcloc_cache_id[slot] == 0 || t->stack.n >= ZONE_DEPTH_MAX)
        return false;
    new_zone(m, t, ticks, m->srcloc_cache_id[slot]);
    return true;
}

/* The innermost zone ends at ticks (the event at `at`, for a message);
 * false (nothing done) when it needs the general handler: no open zone, a
 * C API zone id, a dropped zone, a time outside the range. */
static inline bool zone_fast_end(model_t *m, thread_t *t, int64_t ticks, const uint8_t *at)
{
    if (!model_ticks_fit(m, ticks)) return false;
    if (t->stack.n == 0 || t->stack.v[t->stack.n - 1].zone_id != t->next_zone_id || dropped_on_top(t)) return false;
    open_zone_t *z = &t->stack.v[--t->stack.n];
    if (__builtin_expect(z->text_building, 0)) model_zone_text_close(m, z);
    t->next_zone_id = 0;
    if (ticks < z->start) m->ev_at = at;
    zlog_end(t, zone_end_time(m, t, z, ticks), z);
    m->zone_counts[(uint16_t)z->srcloc]++;
    return true;
}

/* The end of a run whose latest time was rmax ticks (INT64_MIN: none):
 * times convert monotonically, so it is the run's largest. */
static inline void zone_fast_done(model_t *m, int64_t rmax)
{
    if (rmax != INT64_MIN) model_raise_time(m, model_time(m, rmax));
}

#endif
