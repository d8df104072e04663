/* model_other.c - locks, memory, GPU, context switches and system data,
 * fibers, sections, parameters and crashes. */
#include "model.h"

#include <inttypes.h>
#include <stdlib.h>

#include "proto.h"

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
    l.srcloc = model_shrink_srcloc(m, srcloc);
    hmap_put(&m->lock_map, id, m->locks.n, NULL);
    VEC_PUSH(m->locks, l);
    model_check_source_location(m, srcloc);
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
    const int64_t t = model_time(m, ticks);
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
    if (l->events.n && l->events.v[l->events.n - 1].time > t)
        model_failure(m, "lock %u: event time goes backwards", id);
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
    uint64_t *v = hmap_get(&m->pool_map, name);
    if (v) return &m->pools.v[*v];
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
    mem_event_t *e = &p->events.v[idx];
    e->time_free = t;
    e->thread_free = thread;
    e->cs_free = cs;
    p->usage -= e->size;
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
    model_notice_thread(m, thread);
    uint16_t ct = model_compress_thread(m, thread);
    uint64_t *live = hmap_get(&p->active, ptr);
    if (live) {
        if (!m->ignore_mem_alloc_faults) {
            model_failure(m, "memory at %#" PRIx64 " allocated twice", ptr);
            return;
        }
        free_block(p, *live, t, ct, 0);
        hmap_del(&p->active, ptr);
    }
    mem_event_t e = { .ptr = ptr, .size = size, .cs_alloc = cs, .time_alloc = t, .time_free = -1,
                      .thread_alloc = ct };
    hmap_put(&p->active, ptr, p->events.n, NULL);
    VEC_PUSH(p->events, e);
    if (ptr < p->low) p->low = ptr;
    if (ptr + size > p->high) p->high = ptr + size;
    p->usage += size;
}

void model_mem_free(model_t *m, int64_t ticks, uint32_t thread, uint64_t ptr, bool named, bool callstack)
{
    mem_pool_t *p = pool_for(m, take_pool_name(m, named), true);
    uint32_t cs = take_serial_callstack(m, callstack);
    uint64_t *live = hmap_get(&p->active, ptr);
    if (!live) {
        if (ptr != 0 && !m->ignore_mem_free_faults) {
            model_check_thread_string(m, thread);
            model_failure(m, "free of unknown memory at %#" PRIx64 " on thread %u", ptr, thread);
        }
        return;
    }
    const int64_t t = model_time(m, ticks);
    model_raise_time(m, t);
    model_notice_thread(m, thread);
    free_block(p, *live, t, model_compress_thread(m, thread), cs);
    hmap_del(&p->active, ptr);
}

void model_mem_discard(model_t *m, int64_t ticks, uint32_t thread, uint64_t name, bool callstack)
{
    uint32_t cs = take_serial_callstack(m, callstack);
    mem_pool_t *p = pool_for(m, name, false);
    if (!p) return;
    const int64_t t = model_time(m, ticks);
    model_raise_time(m, t);
    model_notice_thread(m, thread);
    uint16_t ct = model_compress_thread(m, thread);
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
    return c->has_period ? (int64_t)((double)c->period * (double)ticks) : ticks;
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
    const int64_t gpu = period == 1.0f ? gpu_ticks : (int64_t)((double)period * (double)gpu_ticks);
    const int64_t cpu = model_time(m, cpu_ticks);
    c->time_diff = cpu - gpu;
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

void model_gpu_time(model_t *m, int64_t gpu_ticks, uint16_t query_id, uint8_t context)
{
    gpu_ctx_t *c = gpu_ctx(m, context, "GpuTime");
    if (!c) return;
    int64_t tgpu = gpu_ticks;
    if (tgpu < c->last_gpu_time - (int64_t)(1u << 31)) {
        if (c->overflow == 0) {
            unsigned lz = c->last_gpu_time ? (unsigned)__builtin_clzll((uint64_t)c->last_gpu_time) : 64;
            c->overflow = lz == 0 ? 0 : 1ULL << (64 - lz);
        }
        c->overflow_mul++;
    }
    c->last_gpu_time = tgpu;
    if (c->overflow) tgpu += (int64_t)(c->overflow * c->overflow_mul);

    int64_t t;
    if (!c->has_period) {
        t = !c->has_calibration ? tgpu + c->time_diff
            : (int64_t)((double)(tgpu - c->calibrated_gpu) * c->calibration_mod + (double)c->calibrated_cpu);
    } else {
        const double scaled = (double)c->period * (double)tgpu;
        t = !c->has_calibration ? (int64_t)scaled + c->time_diff
            : (int64_t)((scaled - (double)c->calibrated_gpu) * c->calibration_mod + (double)c->calibrated_cpu);
    }
    uint32_t zi = c->query[query_id];
    c->query[query_id] = 0;
    if (!zi) {
        model_failure(m, "GpuTime for query %u of context %u, which has no zone", query_id, context);
        return;
    }
    gpu_zone_t *z = &c->zones.v[zi - 1];
    if (z->gpu_start < 0) {
        z->gpu_start = t;
        c->count++;
    } else {
        z->gpu_end = t;
        bool fresh = rhorder_find(&m->gpu_srcloc_counts, (uint64_t)(int64_t)z->srcloc) == NULL;
        if (fresh) rhorder_insert(&m->gpu_srcloc_counts, (uint64_t)(int64_t)z->srcloc, 0);
        (*rhorder_find(&m->gpu_srcloc_counts, (uint64_t)(int64_t)z->srcloc))++;
    }
    model_raise_time(m, t);
}

void model_gpu_calibration(model_t *m, int64_t gpu_ticks, int64_t cpu_ticks, int64_t cpu_delta, uint8_t context)
{
    gpu_ctx_t *c = gpu_ctx(m, context, "GpuCalibration");
    if (!c) return;
    const int64_t g = gpu_scaled(c, gpu_ticks);
    c->calibration_mod = (double)cpu_delta / (double)(g - c->calibrated_gpu);
    c->calibrated_gpu = g;
    c->calibrated_cpu = model_time(m, cpu_ticks);
}

void model_gpu_time_sync(model_t *m, int64_t gpu_ticks, int64_t cpu_ticks, uint8_t context)
{
    gpu_ctx_t *c = gpu_ctx(m, context, "GpuTimeSync");
    if (!c) return;
    const int64_t g = c->period == 1.0f ? gpu_ticks : (int64_t)((double)c->period * (double)gpu_ticks);
    c->time_diff = model_time(m, cpu_ticks) - g;
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
    (void)note;
    model_take_single_string(m);
    gpu_ctx(m, context, "GpuAnnotationName");
}

void model_gpu_zone_annotation(model_t *m, int64_t note, double value, uint32_t thread, uint16_t query_id, uint8_t context)
{
    (void)note; (void)value; (void)thread; (void)query_id;
    gpu_ctx(m, context, "GpuZoneAnnotation");
}

/* ---- scheduling and system data -------------------------------------------------------- */

static void check_external_name(model_t *m, uint64_t id)
{
    bool fresh;
    hmap_put(&m->external_names, id, 0, &fresh);
    if (!fresh) return;
    m->pending_external_names += 2;
    queryq_push(m->queries, SQ_EXTERNAL_NAME, id, 0);
}

void model_external_name(model_t *m, uint64_t id, const uint8_t *p, size_t n, bool thread_name)
{
    if (!thread_name) query_credit(m->queries);
    uint64_t *v = hmap_get(&m->external_names, id);
    uint64_t bit = thread_name ? 1 : 2;
    if (!v || (*v & bit)) return;
    *v |= bit;
    m->pending_external_names--;
    model_store_string(m, p, n);
}

void model_context_switch(model_t *m, int64_t ticks, uint32_t old_thread, uint32_t new_thread,
                          uint8_t cpu, uint8_t wait_reason, uint8_t state)
{
    (void)old_thread; (void)cpu; (void)wait_reason; (void)state;
    model_raise_time(m, model_time(m, ticks));
    if (new_thread != 0) check_external_name(m, new_thread);
}

void model_thread_wakeup(model_t *m, int64_t ticks, uint32_t thread, uint8_t cpu)
{
    (void)thread; (void)cpu;
    model_raise_time(m, model_time(m, ticks));
}

void model_tid_to_pid(model_t *m, uint64_t tid, uint64_t pid)
{
    (void)m; (void)tid; (void)pid;
}

void model_hw_sample(model_t *m, int kind, uint64_t ip, int64_t ticks)
{
    (void)kind; (void)ip;
    model_raise_time(m, ticks == 0 ? 0 : model_time(m, ticks));
}

void model_cpu_topology(model_t *m, uint32_t package, uint32_t die, uint32_t core, uint32_t thread)
{
    (void)m; (void)package; (void)die; (void)core; (void)thread;
}

void model_param_setup(model_t *m, uint32_t idx, uint64_t name, uint8_t type, int32_t val)
{
    (void)idx; (void)type; (void)val;
    model_check_string(m, name);
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
    host->fiber = model_find_thread(m, tid);
    model_compress_thread(m, thread);
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
    host->fiber = NULL;
}

/* ---- sections ------------------------------------------------------------------------------ */

void model_section_enter(model_t *m, int64_t ticks, uint32_t id, uint16_t category)
{
    (void)id; (void)category;
    model_take_single_string(m);
    model_raise_time(m, model_time(m, ticks));
}

void model_section_leave(model_t *m, int64_t ticks, uint32_t id)
{
    (void)id;
    model_raise_time(m, model_time(m, ticks));
}

void model_section_setup(model_t *m, uint16_t category)
{
    (void)category;
    model_take_single_string(m);
}

/* ---- crash --------------------------------------------------------------------------------- */

void model_crash_report(model_t *m, int64_t ticks, uint64_t text)
{
    (void)ticks;
    model_check_string(m, text);
    thread_t *t = model_current_thread(m);
    t->next_callstack = 0;
}
