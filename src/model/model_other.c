/* model_other.c - locks, memory, GPU, context switches and system data,
 * fibers, sections, parameters and crashes. */
#include "model.h"

#include <inttypes.h>
#include <stdlib.h>


/* ---- locks ------------------------------------------------------------------- */

static lock_t *find_lock(model_t *m, uint32_t id, const char *what)
{
    uint64_t *v = hmap_get(&m->lock_map, id);
    if (!v) {
        model_failure(m, "%s for lock %u, which was never announced", what, id);
        return NULL;
    }
    return &m->locks.v[*v];
}

void model_lock_announce(model_t *m, uint32_t id, int64_t ticks, uint64_t srcloc, uint8_t type)
{
    if (hmap_get(&m->lock_map, id)) {
        model_failure(m, "lock %u announced twice", id);
        return;
    }
    lock_t l = { .id = id, .type = type, .time_announce = model_time(m, ticks) };
    model_check_source_location(m, srcloc);
    l.srcloc = model_shrink_srcloc(m, srcloc);
    if (l.srcloc == 0) return;   /* no source-location id left: counted by the check */
    hmap_put(&m->lock_map, id, m->locks.n, NULL);
    VEC_PUSH(m->locks, l);
}

void model_lock_terminate(model_t *m, uint32_t id, int64_t ticks)
{
    lock_t *l = find_lock(m, id, "LockTerminate");
    if (l) l->time_terminate = model_time(m, ticks);
}

/* Wait/Obtain/Release and their shared forms (kind = lock event type). */
void model_lock_event(model_t *m, uint32_t id, uint32_t thread, int64_t ticks, uint8_t kind, bool has_thread)
{
    lock_t *l = find_lock(m, id, "lock event");
    if (!l) return;
    int64_t t = model_time(m, ticks);
    uint64_t tid = has_thread ? thread : l->locking_thread;
    model_raise_time(m, t);
    model_notice_thread(m, tid);
    size_t ti = 0;
    while (ti < l->threads.n && l->threads.v[ti] != tid) ti++;
    if (ti == l->threads.n) {
        if (ti >= 64) {
            model_failure(m, "lock %u is used by more than 64 threads", id);
            return;
        }
        VEC_PUSH(l->threads, tid);
    }
    if (l->events.n && l->events.v[l->events.n - 1].time > t) {
        model_failure(m, "lock %u: event time goes back %" PRIu64 " ns (kept at the time of the event before)", id,
                      (uint64_t)l->events.v[l->events.n - 1].time - (uint64_t)t);
        t = l->events.v[l->events.n - 1].time;
    }
    lock_event_t ev = { .time = t, .srcloc = 0, .thread = (uint8_t)ti, .type = kind };
    VEC_PUSH(l->events, ev);
    if (kind == 1) l->locking_thread = tid;
}

void model_lock_mark(model_t *m, uint32_t id, uint32_t thread, uint64_t srcloc)
{
    model_check_source_location(m, srcloc);
    lock_t *l = find_lock(m, id, "LockMark");
    if (!l) return;
    size_t ti = 0;
    while (ti < l->threads.n && l->threads.v[ti] != thread) ti++;
    for (size_t i = l->events.n; i-- > 0;) {
        lock_event_t *e = &l->events.v[i];
        if (e->thread == ti && (e->type == 0 || e->type == 1 || e->type == 3 || e->type == 4)) {
            e->srcloc = model_shrink_srcloc(m, srcloc);
            return;
        }
    }
}

void model_lock_name(model_t *m, uint32_t id)
{
    int64_t s = model_take_single_string(m);
    lock_t *l = find_lock(m, id, "LockName");
    if (l && s >= 0) l->custom_name = (uint32_t)s + 1;
}

/* ---- memory ----------------------------------------------------------------------- */

static mem_pool_t *pool_for(model_t *m, uint64_t name, bool create)
{
    if (m->pools.n == 0) {
        mem_pool_t def = { .name = 0, .low = UINT64_MAX };
        VEC_PUSH(m->pools, def);
        hmap_put(&m->pool_map, 0, 0, NULL);
    }
    if (m->last_pool && m->last_pool_name == name) return &m->pools.v[m->last_pool - 1];
    uint64_t *v = hmap_get(&m->pool_map, name);
    if (v) {
        m->last_pool_name = name;
        m->last_pool = *v + 1;
        return &m->pools.v[*v];
    }
    if (!create) return NULL;
    model_check_string(m, name);
    mem_pool_t p = { .name = name, .low = UINT64_MAX };
    hmap_put(&m->pool_map, name, m->pools.n, NULL);
    VEC_PUSH(m->pools, p);
    return &m->pools.v[m->pools.n - 1];
}

static uint64_t take_pool_name(model_t *m, bool named)
{
    uint64_t name = 0;
    if (named) {
        if (!m->mem_name_payload) model_failure(m, "named memory event without a pool name");
        name = m->mem_name_payload;
        m->mem_name_payload = 0;
    }
    return name;
}

static uint32_t take_serial_callstack(model_t *m, bool callstack)
{
    if (!callstack) return 0;
    uint32_t cs = m->serial_callstack;
    m->serial_callstack = 0;
    return cs;
}

static void free_block(mem_pool_t *p, uint64_t idx, int64_t t, uint16_t thread, uint32_t cs)
{
    p->usage -= memlog_free_event(&p->events, idx, t, thread, cs);
    p->freed++;
}

void model_mem_name_payload(model_t *m, uint64_t name)
{
    m->mem_name_payload = name;
}

void model_mem_alloc(model_t *m, int64_t ticks, uint32_t thread, uint64_t ptr, uint64_t size, bool named, bool callstack)
{
    mem_pool_t *p = pool_for(m, take_pool_name(m, named), true);
    uint32_t cs = take_serial_callstack(m, callstack);
    const int64_t t = model_time(m, ticks);
    model_raise_time(m, t);
    const uint16_t ct = model_notice_compress_thread(m, thread);
    bool fresh;
    uint64_t *live = hmap_put(&p->active, ptr, 0, &fresh);
    if (!fresh) {
        if (!m->ignore_mem_alloc_faults) {
            model_failure(m, "memory at %#" PRIx64 " allocated twice", ptr);
            return;
        }
        free_block(p, *live, t, ct, 0);
    }
    /* filled where it is kept: built on the stack and copied, the copy's
     * wide loads would wait for the fields' narrow stores */
    uint64_t ordinal;
    mem_event_t *e = memlog_append(&p->events, &ordinal);
    e->ptr = ptr;
    e->size = size;
    e->cs_alloc = cs;
    e->cs_free = 0;
    e->time_alloc = t;
    e->time_free = -1;
    e->thread_alloc = ct;
    e->thread_free = 0;
    *live = ordinal;
    if (ptr < p->low) p->low = ptr;
    if (ptr + size > p->high) p->high = ptr + size;
    p->usage += size;
}

void model_mem_free(model_t *m, int64_t ticks, uint32_t thread, uint64_t ptr, bool named, bool callstack)
{
    mem_pool_t *p = pool_for(m, take_pool_name(m, named), true);
    uint32_t cs = take_serial_callstack(m, callstack);
    uint64_t live;
    if (!hmap_take(&p->active, ptr, &live)) {
        if (ptr != 0 && !m->ignore_mem_free_faults) {
            model_check_thread_string(m, thread);
            model_failure(m, "free of unknown memory at %#" PRIx64 " on thread %u", ptr, thread);
        }
        return;
    }
    const int64_t t = model_time(m, ticks);
    model_raise_time(m, t);
    free_block(p, live, t, model_notice_compress_thread(m, thread), cs);
}

void model_mem_discard(model_t *m, int64_t ticks, uint32_t thread, uint64_t name, bool callstack)
{
    uint32_t cs = take_serial_callstack(m, callstack);
    mem_pool_t *p = pool_for(m, name, false);
    if (!p) return;
    const int64_t t = model_time(m, ticks);
    model_raise_time(m, t);
    const uint16_t ct = model_notice_compress_thread(m, thread);
    uint64_t addr, idx;
    for (size_t it = 0; hmap_next(&p->active, &it, &addr, &idx);) free_block(p, idx, t, ct, cs);
    hmap_free(&p->active);
}

/* ---- GPU ---------------------------------------------------------------------------- */

static gpu_ctx_t *gpu_ctx(model_t *m, uint8_t context, const char *what)
{
    if (!m->gpu[context]) model_failure(m, "%s for GPU context %u, which was never created", what, context);
    return m->gpu[context];
}

/* GPU ticks, period-scaled (upstream truncates through double). */
static int64_t gpu_scaled(const gpu_ctx_t *c, int64_t ticks)
{
    return c->has_period ? f64_to_i64((double)c->period * (double)ticks) : ticks;
}

void model_gpu_new_context(model_t *m, int64_t cpu_ticks, int64_t gpu_ticks, uint32_t thread,
                           float period, uint8_t context, uint8_t flags, uint8_t type)
{
    if (m->gpu[context]) {
        model_failure(m, "GPU context %u created twice", context);
        return;
    }
    gpu_ctx_t *c = xcalloc(1, sizeof *c);
    c->thread = thread;
    c->type = type;
    c->period = period;
    c->has_period = period != 1.0f;
    c->has_calibration = flags & 1;
    const int64_t gpu = period == 1.0f ? gpu_ticks : f64_to_i64((double)period * (double)gpu_ticks);
    const int64_t cpu = model_time(m, cpu_ticks);
    c->time_diff = sub_wrap(cpu, gpu);
    c->calibrated_gpu = gpu;
    c->calibrated_cpu = cpu;
    c->calibration_mod = 1.0;
    c->query = xcalloc(65536, sizeof *c->query);
    m->gpu[context] = c;
    VEC_PUSH(m->gpu_order, c);
}

void model_gpu_zone_begin(model_t *m, int64_t cpu_ticks, uint32_t thread, uint16_t query_id,
                          uint8_t context, uint64_t srcloc, bool alloc, bool callstack, bool serial)
{
    int16_t sl;
    if (alloc) {
        sl = m->pending_payload_srcloc;
        m->pending_payload_srcloc = 0;
    } else {
        model_check_source_location(m, srcloc);
        sl = model_shrink_srcloc(m, srcloc);
    }
    gpu_ctx_t *c = gpu_ctx(m, context, "GPU zone begin");
    uint32_t cs = 0;
    if (callstack) {
        if (serial) {
            cs = m->serial_callstack;
            m->serial_callstack = 0;
        } else {
            thread_t *t = model_current_thread(m);
            cs = t->next_callstack;
            t->next_callstack = 0;
        }
    }
    if (!c) return;
    const int64_t t = model_time(m, cpu_ticks);
    uint64_t key = 0;
    uint16_t ct = 0;
    if (c->thread == 0) {
        ct = model_compress_thread(m, thread);
        key = thread;
    }
    model_raise_time(m, t);
    bool fresh;
    uint64_t *tl = hmap_put(&c->timeline_map, key, c->timelines.n, &fresh);
    if (fresh) {
        gpu_timeline_t g = { .key = key };
        VEC_PUSH(c->timelines, g);
    }
    gpu_timeline_t *g = &c->timelines.v[*tl];
    if (g->stack.n >= ZONE_DEPTH_MAX) {
        /* upstream's loaders read GPU zones recursively too */
        model_failure(m, "GPU zone of context %u nested deeper than the %d levels upstream's tools read back "
                      "(dropped, with its children)", context, ZONE_DEPTH_MAX);
        g->dropped++;
        c->query[query_id] = GPU_QUERY_DROPPED;
        return;
    }
    if (g->stack.n) {
        /* the first child of a zone opens a child list */
        gpu_zone_t *parent = &c->zones.v[g->stack.v[g->stack.n - 1]];
        if (!parent->has_child) c->zone_parents++;
        parent->has_child = true;
    }
    gpu_zone_t z = { .cpu_start = t, .cpu_end = -1, .gpu_start = -1, .gpu_end = -1, .callstack = cs,
                     .parent = g->stack.n ? (int32_t)g->stack.v[g->stack.n - 1] : -1,
                     .timeline = (uint32_t)*tl, .thread = ct, .query_id = query_id, .srcloc = sl };
    uint32_t zi = (uint32_t)c->zones.n;
    VEC_PUSH(c->zones, z);
    VEC_PUSH(g->stack, zi);
    c->query[query_id] = zi + 1;
}

void model_gpu_zone_end(model_t *m, int64_t cpu_ticks, uint32_t thread, uint16_t query_id, uint8_t context)
{
    gpu_ctx_t *c = gpu_ctx(m, context, "GPU zone end");
    if (!c) return;
    uint64_t *tl = hmap_get(&c->timeline_map, thread);
    gpu_timeline_t *g = tl ? &c->timelines.v[*tl] : NULL;
    if (g && g->dropped) {
        g->dropped--;
        c->query[query_id] = GPU_QUERY_DROPPED;
        return;
    }
    if (!g || g->stack.n == 0) {
        model_failure(m, "GPU zone end without an open zone (context %u)", context);
        return;
    }
    uint32_t zi = g->stack.v[--g->stack.n];
    c->query[query_id] = zi + 1;
    const int64_t t = model_time(m, cpu_ticks);
    c->zones.v[zi].cpu_end = t;
    model_raise_time(m, t);
}

/* A GPU time (from the client's GPU ticks, period and calibration) within
 * the range of times a trace holds: one outside is a failure, kept at the
 * nearest end. */
static int64_t gpu_time_kept(model_t *m, int64_t gpu_ticks, int64_t t)
{
    if (time_fits((double)t)) return t;
    const int64_t kept = time_clamp((double)t);
    model_failure(m, "a GPU time of %" PRId64 " GPU ticks converts to %" PRId64 " ns, outside the +-2^47 ns "
                  "(about 39 hours) a trace holds (kept as %" PRId64 " ns)", gpu_ticks, t, kept);
    return kept;
}

void model_gpu_time(model_t *m, int64_t gpu_ticks, uint16_t query_id, uint8_t context)
{
    gpu_ctx_t *c = gpu_ctx(m, context, "GpuTime");
    if (!c) return;
    int64_t tgpu = gpu_ticks;
    if (tgpu < sub_wrap(c->last_gpu_time, (int64_t)(1u << 31))) {
        if (c->overflow == 0) {
            unsigned lz = c->last_gpu_time ? (unsigned)__builtin_clzll((uint64_t)c->last_gpu_time) : 64;
            c->overflow = lz == 0 ? 0 : 1ULL << (64 - lz);
        }
        c->overflow_mul++;
    }
    c->last_gpu_time = tgpu;
    if (c->overflow) tgpu = add_wrap(tgpu, (int64_t)(c->overflow * c->overflow_mul));

    int64_t t;
    if (!c->has_period) {
        t = !c->has_calibration ? add_wrap(tgpu, c->time_diff)
            : f64_to_i64((double)sub_wrap(tgpu, c->calibrated_gpu) * c->calibration_mod + (double)c->calibrated_cpu);
    } else {
        const double scaled = (double)c->period * (double)tgpu;
        t = !c->has_calibration ? add_wrap(f64_to_i64(scaled), c->time_diff)
            : f64_to_i64((scaled - (double)c->calibrated_gpu) * c->calibration_mod + (double)c->calibrated_cpu);
    }
    uint32_t zi = c->query[query_id];
    c->query[query_id] = 0;
    if (zi == GPU_QUERY_DROPPED) return;
    if (!zi) {
        model_failure(m, "GpuTime for query %u of context %u, which has no zone", query_id, context);
        return;
    }
    t = gpu_time_kept(m, gpu_ticks, t);
    gpu_zone_t *z = &c->zones.v[zi - 1];
    if (z->gpu_start < 0) {
        z->gpu_start = t;
        c->count++;
    } else {
        z->gpu_end = t;
        /* upstream registers a GPU location when its first zone ends on the GPU */
        if (m->gpu_zone_counts[(uint16_t)z->srcloc]++ == 0)
            rhorder_insert(&m->gpu_srcloc_counts, (uint64_t)(int64_t)z->srcloc, 0);
    }
    model_raise_time(m, t);
}

void model_gpu_calibration(model_t *m, int64_t gpu_ticks, int64_t cpu_ticks, int64_t cpu_delta, uint8_t context)
{
    gpu_ctx_t *c = gpu_ctx(m, context, "GpuCalibration");
    if (!c) return;
    const int64_t g = gpu_scaled(c, gpu_ticks);
    c->calibration_mod = (double)cpu_delta / (double)sub_wrap(g, c->calibrated_gpu);
    c->calibrated_gpu = g;
    c->calibrated_cpu = model_time(m, cpu_ticks);
}

void model_gpu_time_sync(model_t *m, int64_t gpu_ticks, int64_t cpu_ticks, uint8_t context)
{
    gpu_ctx_t *c = gpu_ctx(m, context, "GpuTimeSync");
    if (!c) return;
    const int64_t g = c->period == 1.0f ? gpu_ticks : f64_to_i64((double)c->period * (double)gpu_ticks);
    c->time_diff = sub_wrap(model_time(m, cpu_ticks), g);
    c->last_gpu_time = 0;
    c->overflow = 0;
    c->overflow_mul = 0;
}

void model_gpu_context_name(model_t *m, uint8_t context)
{
    int64_t s = model_take_single_string(m);
    gpu_ctx_t *c = gpu_ctx(m, context, "GpuContextName");
    if (c && s >= 0) c->name = (uint32_t)s + 1;
}

void model_gpu_annotation_name(model_t *m, int64_t note, uint8_t context)
{
    int64_t s = model_take_single_string(m);
    gpu_ctx_t *c = gpu_ctx(m, context, "GpuAnnotationName");
    if (c && s >= 0) *hmap_put(&c->note_names, (uint64_t)note, 0, NULL) = (uint64_t)s + 1;
}

void model_gpu_zone_annotation(model_t *m, int64_t note, double value, uint32_t thread, uint16_t query_id, uint8_t context)
{
    (void)thread;
    gpu_ctx_t *c = gpu_ctx(m, context, "GpuZoneAnnotation");
    if (!c) return;
    for (size_t i = 0; i < c->notes.n; i++) {
        if (c->notes.v[i].query_id == query_id && c->notes.v[i].note == note) {
            c->notes.v[i].value = value;
            return;
        }
    }
    gpu_note_t n = { .query_id = query_id, .note = note, .value = value };
    VEC_PUSH(c->notes, n);
}

/* ---- scheduling and system data -------------------------------------------------------- */

/* CheckExternalName: ask for the names of an OS thread seen scheduling. */
static void check_external_name(model_t *m, uint64_t id)
{
    bool fresh;
    hmap_put(&m->external_names, id, m->external_name_strs.n / 2, &fresh);
    if (!fresh) return;
    VEC_PUSH(m->external_name_strs, 0);
    VEC_PUSH(m->external_name_strs, 0);
    m->pending_external_names += 2;
    queryq_push(m->queries, SQ_EXTERNAL_NAME, id, 0);
}

/* ExternalThreadName then ExternalName answer one ExternalName query. */
void model_external_name(model_t *m, uint64_t id, const uint8_t *p, size_t n, bool thread_name)
{
    if (!thread_name) query_credit(m->queries);
    uint64_t *v = hmap_get(&m->external_names, id);
    if (!v) return;
    uint32_t *slot = &m->external_name_strs.v[*v * 2 + (thread_name ? 1 : 0)];
    if (*slot) return;
    *slot = model_store_string(m, p, n) + 1;
    m->pending_external_names--;
}

static thread_switches_t *switches_for(model_t *m, uint64_t thread)
{
    bool fresh;
    uint64_t *v = hmap_put(&m->switch_map, thread, m->switches.n, &fresh);
    if (fresh) {
        thread_switches_t ts = { .thread = thread };
        VEC_PUSH(m->switches, ts);
    }
    return &m->switches.v[*v];
}

static cpu_thread_stats_t *cpu_stats_for(model_t *m, uint64_t thread)
{
    bool fresh;
    uint64_t *v = hmap_put(&m->cpu_stats_map, thread, m->cpu_stats.n, &fresh);
    if (fresh) {
        cpu_thread_stats_t st = {0};
        VEC_PUSH(m->cpu_stats, st);
        VEC_PUSH(m->cpu_stats_threads, thread);
    }
    return &m->cpu_stats.v[*v];
}

static uint16_t compress_external_thread(model_t *m, uint64_t id)
{
    bool fresh;
    uint64_t *v = hmap_put(&m->external_thread_map, id, m->external_threads.n, &fresh);
    if (fresh) VEC_PUSH(m->external_threads, id);
    return (uint16_t)*v;
}

/* The old thread's running record ends; the CPU's current slice ends. */
static void switch_out(model_t *m, int64_t t, uint64_t thread, uint8_t cpu, uint8_t reason, uint8_t state)
{
    uint64_t *v = hmap_get(&m->switch_map, thread);
    if (v && m->switches.v[*v].v.n) {
        thread_switches_t *ts = &m->switches.v[*v];
        ctx_switch_t *item = &ts->v.v[ts->v.n - 1];
        item->end = t;
        item->reason = (int8_t)reason;
        item->state = (int8_t)state;
        const int64_t dt = sub_wrap(t, item->start);
        ts->running_time = add_wrap(ts->running_time, dt);
        cpu_thread_stats_t *st = cpu_stats_for(m, thread);
        st->regions++;
        st->running_time = add_wrap(st->running_time, dt);
    }
    if (m->cpu_switches[cpu].n) m->cpu_switches[cpu].v[m->cpu_switches[cpu].n - 1].end = t;
}

/* The new thread starts running on cpu, reusing its pending wakeup. */
static void switch_in(model_t *m, int64_t t, uint64_t thread, uint8_t cpu)
{
    thread_switches_t *ts = switches_for(m, thread);
    ctx_switch_t *item;
    bool migration = false;
    if (ts->v.n && ts->v.v[ts->v.n - 1].reason == CS_REASON_WAKEUP) {
        item = &ts->v.v[ts->v.n - 1];
        if (ts->v.n > 1) migration = ts->v.v[ts->v.n - 2].cpu != cpu;
    } else {
        if (ts->v.n) migration = ts->v.v[ts->v.n - 1].cpu != cpu;
        ctx_switch_t fresh = { .wakeup = t, .wakeup_cpu = cpu };
        VEC_PUSH(ts->v, fresh);
        item = &ts->v.v[ts->v.n - 1];
        if (ts->pending_wakeup != 0 && ts->v.n > 1) {
            /* A wakeup seen while the thread was still running belongs here
             * if it falls between the previous wakeup and now. */
            const int64_t prev = ts->v.v[ts->v.n - 2].wakeup;
            if (prev <= ts->pending_wakeup && ts->pending_wakeup <= t) {
                item->wakeup = ts->pending_wakeup;
                item->wakeup_cpu = ts->pending_wakeup_cpu;
                ts->pending_wakeup = 0;
            }
        }
    }
    item->start = t;
    item->end = -1;
    item->cpu = cpu;
    /* 64-72 kept no wakeup cpu: v0.14.0's loader gives such a record its cpu */
    if (!m->rules.pending_wakeup) item->wakeup_cpu = cpu;
    item->reason = -1;
    item->state = -1;
    item->thread = 0;
    cpu_switch_t cx = { .start = t, .end = -1, .thread = compress_external_thread(m, thread) };
    VEC_PUSH(m->cpu_switches[cpu], cx);
    check_external_name(m, thread);
    if (migration) cpu_stats_for(m, thread)->migrations++;
}

void model_context_switch(model_t *m, int64_t ticks, uint32_t old_thread, uint32_t new_thread,
                          uint8_t cpu, uint8_t wait_reason, uint8_t state)
{
    const int64_t t = model_time(m, ticks);
    model_raise_time(m, t);
    if (cpu >= m->cpu_count) m->cpu_count = cpu + 1u;
    if (old_thread != 0) switch_out(m, t, old_thread, cpu, wait_reason, state);
    if (new_thread != 0) switch_in(m, t, new_thread, cpu);
}

void model_thread_wakeup(model_t *m, int64_t ticks, uint32_t thread, uint8_t cpu)
{
    const int64_t t = model_time(m, ticks);
    model_raise_time(m, t);
    thread_switches_t *ts = switches_for(m, thread);
    if (ts->v.n && ts->v.v[ts->v.n - 1].end < 0) {
        /* Woken before it was switched out: keep it for the next switch-in
         * (74+; the servers before drop it). */
        if (!m->rules.pending_wakeup) return;
        ts->pending_wakeup = t;
        ts->pending_wakeup_cpu = cpu;
        return;
    }
    ctx_switch_t w = { .wakeup = t, .start = t, .end = -1, .cpu = 0, .wakeup_cpu = cpu,
                       .reason = CS_REASON_WAKEUP, .state = -1 };
    VEC_PUSH(ts->v, w);
}

void model_tid_to_pid(model_t *m, uint64_t tid, uint64_t pid)
{
    bool fresh;
    hmap_put(&m->tid_to_pid, tid, pid, &fresh);
}

void model_hw_sample(model_t *m, int kind, uint64_t ip, int64_t ticks)
{
    const int64_t t = ticks == 0 ? 0 : model_time(m, ticks);
    if (m->rules.samples_raise_time) model_raise_time(m, t);
    bool fresh;
    uint64_t *v = hmap_put(&m->hw_map, ip, m->hw.n, &fresh);
    if (fresh) {
        hw_samples_t h = { .ip = ip };
        VEC_PUSH(m->hw, h);
    }
    hw_samples_t *at = &m->hw.v[*v];
    const size_t before = VEC_BYTES(at->v[kind]);
    VEC_PUSH(at->v[kind], t);
    model_block_resized(m, before, VEC_BYTES(at->v[kind]));
}

void model_cpu_topology(model_t *m, uint32_t package, uint32_t die, uint32_t core, uint32_t thread)
{
    VEC_PUSH(m->topology, package);
    VEC_PUSH(m->topology, m->rules.keep_die ? die : 0);
    VEC_PUSH(m->topology, core);
    VEC_PUSH(m->topology, thread);
}

/* Parameters are not part of a .tracy file (upstream does not save them);
 * we count them for the summary and ask for their names like upstream. */
void model_param_setup(model_t *m, uint32_t idx, uint64_t name, uint8_t type, int32_t val)
{
    (void)idx; (void)type; (void)val;
    model_check_string(m, name);
    m->params++;
}

/* ---- fibers ------------------------------------------------------------------------------ */

void model_fiber_enter(model_t *m, int64_t ticks, uint64_t fiber, uint32_t thread, int32_t group_hint)
{
    const int64_t t = model_time(m, ticks);
    model_raise_time(m, t);
    uint64_t *v = hmap_get(&m->fiber_map, fiber);
    uint64_t tid;
    if (v) {
        tid = *v;
    } else {
        tid = (1ULL << 32) | m->fiber_map.n;
        hmap_put(&m->fiber_map, fiber, tid, NULL);
        model_new_thread(m, tid, true, group_hint);
        bool fresh;
        hmap_put(&m->thread_names, tid, 0, &fresh);
        if (fresh) {
            m->pending_fibers++;
            queryq_push(m->queries, SQ_FIBER_NAME, fiber, 0);
        }
    }
    thread_t *host = model_notice_thread(m, thread);
    if (host->fiber) {
        thread_switches_t *prev = switches_for(m, host->fiber->id);
        if (prev->v.n) prev->v.v[prev->v.n - 1].end = t;
    }
    host->fiber = model_find_thread(m, tid);
    thread_switches_t *ts = switches_for(m, tid);
    model_compress_thread(m, thread);
    /* (74's server never set this record's start, leaving whatever its
     * memory held; 72 and 76 set it to t, as we do for every protocol) */
    ctx_switch_t run = { .wakeup = t, .start = t, .end = -1, .cpu = 0, .wakeup_cpu = 0,
                         .reason = CS_REASON_FIBER, .state = -1, .thread = thread };
    VEC_PUSH(ts->v, run);
}

void model_fiber_leave(model_t *m, int64_t ticks, uint32_t thread)
{
    const int64_t t = model_time(m, ticks);
    model_raise_time(m, t);
    thread_t *host = model_find_thread(m, thread);
    if (!host || !host->fiber) {
        model_failure(m, "FiberLeave on thread %u, which runs no fiber", thread);
        return;
    }
    thread_switches_t *ts = switches_for(m, host->fiber->id);
    if (ts->v.n) {
        ctx_switch_t *item = &ts->v.v[ts->v.n - 1];
        item->end = t;
        ts->running_time = add_wrap(ts->running_time, sub_wrap(t, item->start));
    }
    host->fiber = NULL;
}

/* ---- sections ------------------------------------------------------------------------------ */

static section_category_t *section_category(model_t *m, uint16_t category)
{
    bool fresh;
    uint64_t *v = hmap_put(&m->section_map, category, m->sections.n, &fresh);
    if (fresh) {
        section_category_t c = { .category = category };
        VEC_PUSH(m->sections, c);
    }
    return &m->sections.v[*v];
}

void model_section_enter(model_t *m, int64_t ticks, uint32_t id, uint16_t category)
{
    const int64_t t = model_time(m, ticks);
    model_raise_time(m, t);
    int64_t s = model_take_single_string(m);
    const uint32_t text = s >= 0 ? (uint32_t)s + 1 : 0;
    uint64_t *active = hmap_get(&m->sections_active, id);
    if (active && *active == 0) {
        /* Its leave came first: complete the pending item. */
        hmap_del(&m->sections_active, id);
        for (size_t i = 0; i < m->sections_pending.n; i++) {
            section_item_t *p = &m->sections_pending.v[i];
            if (p->start != (int64_t)id) continue;
            section_item_t item = { .start = t, .end = p->end, .text = text };
            VEC_PUSH(section_category(m, category)->items, item);
            m->sections_pending.v[i] = m->sections_pending.v[--m->sections_pending.n];
            break;
        }
    } else {
        section_item_t item = { .start = t, .end = -(int64_t)id, .text = text };
        VEC_PUSH(section_category(m, category)->items, item);
        hmap_put(&m->sections_active, id, (uint64_t)category + 1, NULL);
    }
    bool fresh;
    hmap_put(&m->section_desc, category, 0, &fresh);
    if (fresh) VEC_PUSH(m->section_desc_order, category);
}

void model_section_leave(model_t *m, int64_t ticks, uint32_t id)
{
    const int64_t t = model_time(m, ticks);
    model_raise_time(m, t);
    uint64_t *active = hmap_get(&m->sections_active, id);
    if (active && *active) {
        section_category_t *c = section_category(m, (uint16_t)(*active - 1));
        hmap_del(&m->sections_active, id);
        for (size_t i = 0; i < c->items.n; i++) {
            if (c->items.v[i].end == -(int64_t)id) {
                c->items.v[i].end = t;
                break;
            }
        }
        return;
    }
    section_item_t pending = { .start = id, .end = t };
    VEC_PUSH(m->sections_pending, pending);
    hmap_put(&m->sections_active, id, 0, NULL);
}

void model_section_setup(model_t *m, uint16_t category)
{
    /* An on-demand client replays SectionSetup without its string. */
    int64_t s = model_take_single_string(m);
    bool fresh;
    uint64_t *v = hmap_put(&m->section_desc, category, 0, &fresh);
    if (fresh) VEC_PUSH(m->section_desc_order, category);
    if (s >= 0) *v = (uint64_t)s + 1;
}

/* ---- crash --------------------------------------------------------------------------------- */

void model_crash_report(model_t *m, int64_t ticks, uint64_t text)
{
    model_check_string(m, text);
    thread_t *t = model_current_thread(m);
    m->has_crash = true;
    m->crash_thread = t->id;
    m->crash_time = model_time(m, ticks);
    m->crash_message = text;
    m->crash_callstack = t->next_callstack;
    t->next_callstack = 0;
}
