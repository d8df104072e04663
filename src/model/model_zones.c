/* model_zones.c - CPU zones: begin/end, text, name, colour, value and
 * validation, appended to each thread's compact zone log (zlog.h), with a
 * fast path for runs of plain zone events. */
#include "model.h"

#include "model_zonelog.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define ZLOG_FIRST_CHUNK 4096

/* Record the tail chunk's fill (readers go by `used`). */
static inline void zlog_seal(thread_t *t)
{
    if (t->log_tail) t->log_tail->used = (uint32_t)(t->log_w - t->log_tail->data);
}

void model_zlog_grow(thread_t *t)
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

void model_seal_logs(model_t *m)
{
    for (size_t i = 0; i < m->nthreads; i++) zlog_seal(m->threads[i]);
}

/* Nothing has been logged since the zone's begin record (see zlog.h), so
 * the slot lands right after it. */
void model_zlog_add_slot(thread_t *t, open_zone_t *z)
{
    uint8_t *slot = zlog_reserve(t);
    memset(slot, 0, ZL_SLOT);
    zlog_commit(t, slot + ZL_SLOT);
    *z->tag |= ZL_INFO;
    z->slot = slot;
}

/* ---- begin and end -------------------------------------------------------------- */

/* The zone-extra entry of an open zone, allocated on first need. */
static zone_extra_t *request_extra(model_t *m, thread_t *t, open_zone_t *z)
{
    if (!z->extra) {
        zone_extra_t e = {0};
        z->extra = (uint32_t)m->zone_extras.n;
        if (!z->slot) model_zlog_add_slot(t, z);
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
    const size_t before = b->cap;
    bytes_put(b, old, strlen(old));
    model_block_resized(m, before, b->cap);
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
    model_block_resized(m, b->cap, 0);
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
    const size_t before = b->cap;
    bytes_reserve(b, 1 + n);
    b->p[b->n++] = '\n';
    bytes_put(b, s, strnlen(s, n));
    model_block_resized(m, before, b->cap);
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
    /* 64-69 wrote the decimal only (72 formatted the hex form into 32
     * bytes, which a large value overruns; we keep the whole text) */
    int n = m->rules.zone_value_hex ? snprintf(tmp, sizeof tmp, "%" PRIu64 " [0x%" PRIx64 "]", value, value)
                                    : snprintf(tmp, sizeof tmp, "%" PRIu64, value);
    append_text(m, t, tmp, (size_t)n);
}
