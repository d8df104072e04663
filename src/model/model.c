/* model.c - the trace model's core: capture information, threads, strings,
 * source locations, source files, the memory held (model_memory) and the
 * end-of-session bookkeeping.
 * Event handlers for the other families live in model_*.c. */
#include "model.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>


const model_rules_t model_rules_82 = {
    .zone_value_hex = true,
    .frame_query_once = true,
    .query_alloc_frames = false,
    .frame_end_creates_set = false,
    .on_demand_ignores_frame_end = true,
    .samples_raise_time = true,
    .pending_wakeup = true,
    .keep_die = true,
    .mem_alloc_twice_ok = true,
    .source_needs_code_transfer = true,
};

void model_init(model_t *m, queryq_t *queries)
{
    *m = (model_t){0};
    m->rules = model_rules_82;
    m->queries = queries;
    m->single_string = m->second_string = -1;
    hashkey_draw(&m->content_key);
    VEC_PUSH(m->local_threads, 0);
    VEC_PUSH(m->srcloc_expand, 0);
    zone_extra_t none = {0};
    VEC_PUSH(m->zone_extras, none);
    uint64_t *nocs = NULL;
    VEC_PUSH(m->callstacks, nocs);
    rhorder_init(&m->srcloc_counts);
    rhorder_init(&m->gpu_srcloc_counts);
    m->zone_counts = xcalloc(65536, sizeof *m->zone_counts);
    m->gpu_zone_counts = xcalloc(65536, sizeof *m->gpu_zone_counts);
}

static void free_threads(model_t *m)
{
    for (size_t i = 0; i < m->nthreads; i++) {
        thread_t *t = m->threads[i];
        for (zchunk_t *c = t->log_head, *n; c; c = n) {
            n = c->next;
            free(c);
        }
        VEC_FREE(t->stack);
        VEC_FREE(t->dropped);
        VEC_FREE(t->messages);
        VEC_FREE(t->samples);
        VEC_FREE(t->ctx_switch_samples);
        free(t);
    }
    free(m->threads);
}

/* Every hash map of the model, into maps (MODEL_MAPS of room); returns
 * how many: what model_free frees and model_memory counts. */
#define MODEL_MAPS 48
static size_t model_maps(model_t *m, hmap_t **maps)
{
    hmap_t *all[] = {
        &m->ptr_strings, &m->thread_map, &m->thread_names, &m->local_thread_map,
        &m->fiber_map, &m->srcloc_map, &m->srcloc_shrink, &m->srcloc_payload_map,
        &m->frame_disc.pending, &m->frame_disc.named, &m->frame_disc.by_string,
        &m->plot_disc.pending, &m->plot_disc.named, &m->plot_disc.by_string,
        &m->vsync_map, &m->frame_image_staging, &m->callstack_map, &m->frame_map, &m->custom_frame_map,
        &m->symbol_map, &m->pending_symbols, &m->code_symbol_map,
        &m->checked_file_ptr, &m->checked_file_idx, &m->pending_file_ptr,
        &m->source_cache, &m->source_queries, &m->power_map,
        &m->pending_code, &m->symbol_code_map, &m->lock_map, &m->pool_map,
        &m->external_names, &m->switch_map, &m->external_thread_map, &m->cpu_stats_map,
        &m->tid_to_pid, &m->hw_map, &m->section_map, &m->section_desc, &m->sections_active,
    };
    _Static_assert(sizeof all / sizeof all[0] <= MODEL_MAPS, "MODEL_MAPS holds every map");
    memcpy(maps, all, sizeof all);
    return sizeof all / sizeof all[0];
}

void model_free(model_t *m)
{
    free_threads(m);
    for (size_t i = 0; i < m->nframesets; i++) {
        VEC_FREE(m->framesets[i]->frames);
        free(m->framesets[i]);
    }
    free(m->framesets);
    for (size_t i = 0; i < m->nplots; i++) {
        VEC_FREE(m->plots[i]->points);
        free(m->plots[i]);
    }
    free(m->plots);
    for (size_t i = 0; i < m->callstacks.n; i++) free(m->callstacks.v[i]);
    VEC_FREE(m->callstacks);
    VEC_FREE(m->cs_scratch);
    VEC_FREE(m->cs_numbered);
    for (size_t i = 0; i < m->frame_data.n; i++) free(m->frame_data.v[i].frames);
    VEC_FREE(m->frame_data);
    free(m->staging_frame.frames);
    for (size_t i = 0; i < m->symbol_code.n; i++) bytes_free(&m->symbol_code.v[i]);
    VEC_FREE(m->symbol_code);
    for (size_t i = 0; i < m->source_data.n; i++) bytes_free(&m->source_data.v[i]);
    VEC_FREE(m->source_data);
    hmap_t *maps[MODEL_MAPS];
    const size_t nmaps = model_maps(m, maps);
    for (size_t i = 0; i < nmaps; i++) hmap_free(maps[i]);
    VEC_FREE(m->frame_disc.order);
    VEC_FREE(m->plot_disc.order);
    bytes_free(&m->image_data);
    for (size_t i = 0; i < m->images.n; i++) free(m->images.v[i].data);
    VEC_FREE(m->images);
    VEC_FREE(m->local_threads);
    VEC_FREE(m->zone_extras);
    for (size_t i = 0; i < m->text_builds.n; i++) bytes_free(&m->text_builds.v[i]);
    VEC_FREE(m->text_builds);
    VEC_FREE(m->text_builds_free);
    VEC_FREE(m->srclocs);
    VEC_FREE(m->srcloc_expand);
    VEC_FREE(m->srcloc_payloads);
    VEC_FREE(m->srcloc_fifo);
    VEC_FREE(m->messages);
    VEC_FREE(m->message_order);
    VEC_FREE(m->app_info);
    VEC_FREE(m->symbols);
    VEC_FREE(m->symbol_addrs);
    VEC_FREE(m->symbols_pending);
    VEC_FREE(m->symbol_code_addrs);
    VEC_FREE(m->source_names);
    VEC_FREE(m->power_last);
    for (size_t i = 0; i < m->locks.n; i++) {
        VEC_FREE(m->locks.v[i].threads);
        VEC_FREE(m->locks.v[i].events);
    }
    VEC_FREE(m->locks);
    for (size_t i = 0; i < m->pools.n; i++) {
        memlog_free(&m->pools.v[i].events);
        hmap_free(&m->pools.v[i].active);
    }
    VEC_FREE(m->pools);
    for (size_t i = 0; i < m->gpu_order.n; i++) {
        gpu_ctx_t *c = m->gpu_order.v[i];
        VEC_FREE(c->zones);
        for (size_t k = 0; k < c->timelines.n; k++) VEC_FREE(c->timelines.v[k].stack);
        VEC_FREE(c->timelines);
        hmap_free(&c->timeline_map);
        free(c->query);
        hmap_free(&c->note_names);
        VEC_FREE(c->notes);
        free(c);
    }
    VEC_FREE(m->gpu_order);
    for (size_t i = 0; i < m->switches.n; i++) VEC_FREE(m->switches.v[i].v);
    VEC_FREE(m->switches);
    for (int i = 0; i < 256; i++) VEC_FREE(m->cpu_switches[i]);
    for (size_t i = 0; i < m->hw.n; i++)
        for (int k = 0; k < 6; k++) VEC_FREE(m->hw.v[i].v[k]);
    VEC_FREE(m->hw);
    for (size_t i = 0; i < m->sections.n; i++) VEC_FREE(m->sections.v[i].items);
    VEC_FREE(m->sections);
    VEC_FREE(m->sections_pending);
    VEC_FREE(m->section_desc_order);
    VEC_FREE(m->external_name_strs);
    VEC_FREE(m->external_threads);
    VEC_FREE(m->cpu_stats_threads);
    VEC_FREE(m->cpu_stats);
    VEC_FREE(m->topology);
    rhorder_free(&m->srcloc_counts);
    rhorder_free(&m->gpu_srcloc_counts);
    free(m->zone_counts);
    free(m->gpu_zone_counts);
    strtab_free(&m->strings);
    chunkpool_free(m->chunk_pool);
    free(m->capture_name);
    free(m->capture_program);
    free(m->host_info);
    *m = (model_t){0};
}

/* ---- memory held --------------------------------------------------------- */

static size_t thread_memory(const thread_t *t)
{
    return sizeof *t + t->log_bytes + VEC_BYTES(t->stack) + VEC_BYTES(t->dropped) + VEC_BYTES(t->messages) +
           VEC_BYTES(t->samples) + VEC_BYTES(t->ctx_switch_samples);
}

static size_t gpu_memory(const gpu_ctx_t *c)
{
    size_t n = sizeof *c + 65536 * sizeof *c->query + VEC_BYTES(c->zones) + VEC_BYTES(c->timelines) +
               hmap_memory(&c->timeline_map) + hmap_memory(&c->note_names) + VEC_BYTES(c->notes);
    for (size_t k = 0; k < c->timelines.n; k++) n += VEC_BYTES(c->timelines.v[k].stack);
    return n;
}

static size_t discovery_memory(const discovery_t *d)
{
    return hmap_memory(&d->pending) + hmap_memory(&d->named) + hmap_memory(&d->by_string) + VEC_BYTES(d->order);
}

/* The timelines a session has a few of (threads, frame sets, plots,
 * locks, memory pools, GPU contexts, CPUs, scheduled threads, section
 * categories) and what each holds. */
static size_t timeline_memory(const model_t *m)
{
    size_t n = m->threads_cap * sizeof *m->threads + m->framesets_cap * sizeof *m->framesets +
               m->plots_cap * sizeof *m->plots;
    for (size_t i = 0; i < m->nthreads; i++) n += thread_memory(m->threads[i]);
    for (size_t i = 0; i < m->nframesets; i++) n += sizeof *m->framesets[i] + VEC_BYTES(m->framesets[i]->frames);
    for (size_t i = 0; i < m->nplots; i++) n += sizeof *m->plots[i] + VEC_BYTES(m->plots[i]->points);
    for (size_t i = 0; i < m->locks.n; i++) n += VEC_BYTES(m->locks.v[i].threads) + VEC_BYTES(m->locks.v[i].events);
    for (size_t i = 0; i < m->pools.n; i++)
        n += memlog_memory(&m->pools.v[i].events) + hmap_memory(&m->pools.v[i].active);
    for (size_t i = 0; i < m->gpu_order.n; i++) n += gpu_memory(m->gpu_order.v[i]);
    for (int i = 0; i < 256; i++) n += VEC_BYTES(m->cpu_switches[i]);
    for (size_t i = 0; i < m->switches.n; i++) n += VEC_BYTES(m->switches.v[i].v);
    for (size_t i = 0; i < m->sections.n; i++) n += VEC_BYTES(m->sections.v[i].items);
    return n;
}

/* The model's own vectors and maps. */
static size_t table_memory(const model_t *m)
{
    hmap_t *maps[MODEL_MAPS];
    const size_t nmaps = model_maps((model_t *)m, maps);
    size_t n = 0;
    for (size_t i = 0; i < nmaps; i++) n += hmap_memory(maps[i]);
    const size_t vecs[] = {
        VEC_BYTES(m->local_threads), VEC_BYTES(m->zone_extras), VEC_BYTES(m->text_builds),
        VEC_BYTES(m->text_builds_free), VEC_BYTES(m->srclocs), VEC_BYTES(m->srcloc_expand),
        VEC_BYTES(m->srcloc_payloads), VEC_BYTES(m->srcloc_fifo), VEC_BYTES(m->images),
        VEC_BYTES(m->messages), VEC_BYTES(m->message_order), VEC_BYTES(m->app_info), VEC_BYTES(m->power_last),
        VEC_BYTES(m->callstacks), VEC_BYTES(m->cs_scratch), VEC_BYTES(m->cs_numbered), VEC_BYTES(m->frame_data),
        VEC_BYTES(m->symbols), VEC_BYTES(m->symbol_addrs), VEC_BYTES(m->symbols_pending),
        VEC_BYTES(m->symbol_code_addrs), VEC_BYTES(m->symbol_code), VEC_BYTES(m->source_names),
        VEC_BYTES(m->source_data), VEC_BYTES(m->locks), VEC_BYTES(m->pools), VEC_BYTES(m->gpu_order),
        VEC_BYTES(m->external_name_strs), VEC_BYTES(m->switches), VEC_BYTES(m->external_threads),
        VEC_BYTES(m->cpu_stats_threads), VEC_BYTES(m->cpu_stats), VEC_BYTES(m->topology), VEC_BYTES(m->hw),
        VEC_BYTES(m->sections), VEC_BYTES(m->section_desc_order), VEC_BYTES(m->sections_pending),
    };
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++) n += vecs[i];
    return n + discovery_memory(&m->frame_disc) + discovery_memory(&m->plot_disc) +
           rhorder_memory(&m->srcloc_counts) + rhorder_memory(&m->gpu_srcloc_counts);
}

size_t model_memory(const model_t *m)
{
    const size_t fixed = sizeof *m + 2 * 65536 * sizeof *m->zone_counts;   /* and gpu_zone_counts */
    const size_t staged = m->image_data.cap + (m->staging_frame.frames ? m->staging_frame.size * sizeof(cs_frame_t) : 0);
    return fixed + staged + m->block_bytes + strtab_memory(&m->strings) + chunkpool_memory(m->chunk_pool) +
           table_memory(m) + timeline_memory(m);
}

/* ---- capture information ---------------------------------------------- */

#define TIME_RANGE_TEXT "outside the +-2^47 ns (about 39 hours) a trace holds"

/* No clock a Tracy client reads ticks slower than this (ns per tick: a
 * millisecond; TSCs tick below 1 ns, QueryPerformanceCounter at 100 ns). */
#define TIMER_MUL_MAX 1e6

/* The welcome's timer multiplier (ns per tick): one that is not a finite
 * positive number would make every time NaN, infinite, zero or running
 * backwards, and a huge one would put every time past the range a trace
 * holds; the ticks are taken as nanoseconds instead, which keeps the
 * session's shape. */
static double welcome_timer_mul(model_t *m, double mul)
{
    if (isfinite(mul) && mul > 0 && mul <= TIMER_MUL_MAX) return mul;
    if (isfinite(mul) && mul > 0)
        model_failure(m, "the welcome's timer multiplier %g ns per tick is beyond any clock's (at most %g; ticks "
                      "taken as nanoseconds)", mul, TIMER_MUL_MAX);
    else
        model_failure(m, "the welcome's timer multiplier %g is not a finite positive number (ticks taken as "
                      "nanoseconds)", mul);
    return 1.0;
}

/* The welcome's timer resolution (ticks), as ns within the range of times. */
static int64_t welcome_resolution(model_t *m, uint64_t ticks)
{
    const double ns = (double)ticks * m->timer_mul;
    if (time_fits(ns)) return (int64_t)ns;
    const int64_t kept = time_clamp(ns);
    model_failure(m, "the welcome's timer resolution of %" PRIu64 " ticks converts to %.6g ns, " TIME_RANGE_TEXT
                  " (kept as %" PRId64 " ns)", ticks, ns, kept);
    return kept;
}

void model_welcome(model_t *m, const welcome_t *w)
{
    m->timer_mul = welcome_timer_mul(m, w->timer_mul);
    m->base_time = w->init_begin;
    m->resolution = welcome_resolution(m, w->resolution);
    m->delay_ns = time_clamp((double)w->delay * m->timer_mul);
    m->capture_time = w->capture_time;
    m->exec_time = w->exec_time;
    m->pid = w->pid;
    m->sampling_period = w->sampling_period;
    m->cpu_arch = w->cpu_arch;
    memcpy(m->cpu_manufacturer, w->cpu_manufacturer, sizeof m->cpu_manufacturer);
    m->cpu_id = w->cpu_id;
    m->capture_program = xstrdup(w->program);
    m->host_info = xstrdup(w->host_info);

    m->on_demand = w->on_demand;
    m->ignore_mem_free_faults = w->on_demand || w->ignore_mem_faults;
    m->ignore_mem_alloc_faults = m->rules.mem_alloc_twice_ok && w->ignore_mem_faults;
    m->ignore_frame_end_faults = m->rules.on_demand_ignores_frame_end && w->on_demand;
    m->code_transfer = w->code_transfer;
    m->combine_samples = w->combine_samples;
    m->identify_samples = w->identify_samples;

    /* "<program> @ <local time of epoch>", as upstream names a capture. */
    char date[64] = "";
    time_t epoch = (time_t)m->capture_time;
    struct tm lt;
    if (localtime_r(&epoch, &lt)) strftime(date, sizeof date, "%F %T", &lt);
    size_t len = strlen(m->capture_program) + strlen(date) + 4;
    m->capture_name = xmalloc(len);
    snprintf(m->capture_name, len, "%s @ %s", m->capture_program, date);

    /* The base frame set "Frame" exists from the start, with frames at 0
     * and at the end of the client's initialisation. */
    const int64_t end = model_time(m, w->init_end);
    model_base_frames(m, 0, end);
    m->last_time = end;
}

void model_on_demand(model_t *m, const on_demand_t *od)
{
    m->frame_offset = od->frame_offset;
    /* A third base frame at the connection time; it does not move the last
     * time (upstream appends it directly). */
    model_base_frames(m, model_time(m, od->connection_time), INT64_MIN);
}

/* ---- failures ------------------------------------------------------------- */

void model_failure(model_t *m, const char *fmt, ...)
{
    if (m->failures++ == 0) {
        int at = 0;
        if (m->frame_base && m->ev_at >= m->frame_base)
            at = snprintf(m->first_failure, sizeof m->first_failure,
                          "frame %llu at stream offset %llu, %s event at byte %zu of the decompressed frame: ",
                          (unsigned long long)m->at_frame_no, (unsigned long long)m->at_stream_offset,
                          m->event_names && m->event_names[*m->ev_at] ? m->event_names[*m->ev_at] : "an", (size_t)(m->ev_at - m->frame_base));
        if (at < 0 || (size_t)at >= sizeof m->first_failure) at = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->first_failure + at, sizeof m->first_failure - (size_t)at, fmt, ap);
        va_end(ap);
    }
}

int64_t model_time_outside(model_t *m, int64_t ticks, double ns)
{
    const int64_t kept = time_clamp(ns);
    model_failure(m, "a time of %" PRId64 " ticks converts to %.6g ns, " TIME_RANGE_TEXT " (kept as %" PRId64
                  " ns; the welcome's initBegin is %" PRId64 ", its timer multiplier %g)", ticks, ns, kept,
                  m->base_time, m->timer_mul);
    return kept;
}

/* ---- strings ------------------------------------------------------------ */

uint32_t model_store_string(model_t *m, const void *p, size_t n)
{
    return strtab_intern(&m->strings, p, n);
}

const char *model_ptr_string(const model_t *m, uint64_t ptr)
{
    uint64_t *v = hmap_get(&m->ptr_strings, ptr);
    return v && *v ? strtab_get(&m->strings, (uint32_t)(*v - 1)) : NULL;
}

/* CheckString: query a client string pointer the first time it is seen.
 * Returns true when the string is already known (or the pointer is 0). */
bool model_check_string(model_t *m, uint64_t ptr)
{
    if (ptr == 0) return true;
    bool fresh;
    hmap_put(&m->ptr_strings, ptr, 0, &fresh);
    if (!fresh) return true;
    m->pending_strings++;
    queryq_push(m->queries, SQ_STRING, ptr, 0);
    return false;
}

void model_string_data(model_t *m, uint64_t ptr, const uint8_t *p, size_t n)
{
    query_credit(m->queries);
    uint64_t *v = hmap_get(&m->ptr_strings, ptr);
    if (!v || *v) return;          /* an answer to no question: walk over it */
    m->pending_strings--;
    *v = (uint64_t)model_store_string(m, p, n) + 1;
    if (hmap_del(&m->pending_file_ptr, ptr)) model_cache_source_ptr(m, ptr);
}

void model_single_string(model_t *m, const uint8_t *p, size_t n)
{
    if (m->single_string >= 0) model_failure(m, "a staged string was never used");
    m->single_string = model_store_string(m, p, n);
}

void model_second_string(model_t *m, const uint8_t *p, size_t n)
{
    if (m->second_string >= 0) model_failure(m, "a staged second string was never used");
    m->second_string = model_store_string(m, p, n);
}

int64_t model_take_single_string(model_t *m)
{
    int64_t s = m->single_string;
    m->single_string = -1;
    return s;
}

int64_t model_take_second_string(model_t *m)
{
    int64_t s = m->second_string;
    m->second_string = -1;
    return s;
}

/* ---- threads -------------------------------------------------------------- */

thread_t *model_find_thread(const model_t *m, uint64_t id)
{
    uint64_t *v = hmap_get(&m->thread_map, id);
    return v ? m->threads[*v] : NULL;
}

thread_t *model_new_thread(model_t *m, uint64_t id, bool fiber, int32_t group_hint)
{
    thread_t *t = xcalloc(1, sizeof *t);
    t->id = id;
    t->pool = m->chunk_pool;
    t->is_fiber = fiber;
    t->group_hint = group_hint;
    if (m->nthreads == m->threads_cap)
        m->threads = grow_array(m->threads, sizeof *m->threads, &m->threads_cap, m->nthreads + 1);
    hmap_put(&m->thread_map, id, m->nthreads, NULL);
    m->threads[m->nthreads++] = t;
    if (m->cur_thread_id == id && !m->cur_thread) m->cur_thread = t;
    return t;
}

void model_check_thread_string(model_t *m, uint64_t id)
{
    bool fresh;
    hmap_put(&m->thread_names, id, 0, &fresh);
    if (!fresh) return;
    m->pending_thread_names++;
    queryq_push(m->queries, SQ_THREAD_STRING, id, 0);
}

/* NoticeThread: the thread record, created (and its name asked for) on
 * first use. */
thread_t *model_notice_thread(model_t *m, uint64_t id)
{
    if (m->last_thread && m->last_thread->id == id) return m->last_thread;
    thread_t *t = model_find_thread(m, id);
    if (!t) {
        model_check_thread_string(m, id);
        t = model_new_thread(m, id, false, 0);
    }
    m->last_thread = t;
    return t;
}

/* GetCurrentThreadData: the current thread, or the fiber it runs. */
thread_t *model_current_thread(model_t *m)
{
    if (!m->cur_thread) m->cur_thread = model_notice_thread(m, m->cur_thread_id);
    return m->cur_thread->fiber ? m->cur_thread->fiber : m->cur_thread;
}

void model_thread_context(model_t *m, uint64_t thread)
{
    if (m->cur_thread_id != thread || !m->cur_thread) {
        m->cur_thread_id = thread;
        m->cur_thread = model_find_thread(m, thread);
    }
}

/* CompressThread: the thread's number in the file's local thread table. */
uint16_t model_notice_compress_thread(model_t *m, uint64_t id)
{
    thread_t *t = model_notice_thread(m, id);
    if (!t->local_num) t->local_num = (uint16_t)(model_compress_thread(m, id) + 1);
    return (uint16_t)(t->local_num - 1);
}

uint16_t model_compress_thread(model_t *m, uint64_t id)
{
    if (m->last_local_num && m->last_local_id == id) return m->last_local_num;
    bool fresh;
    uint64_t *v = hmap_put(&m->local_thread_map, id, m->local_threads.n, &fresh);
    if (fresh) VEC_PUSH(m->local_threads, id);
    m->last_local_id = id;
    m->last_local_num = (uint16_t)*v;
    return (uint16_t)*v;
}

void model_thread_name(model_t *m, uint64_t id, const uint8_t *p, size_t n)
{
    query_credit(m->queries);
    uint64_t *v = hmap_get(&m->thread_names, id);
    if (!v || *v) return;
    m->pending_thread_names--;
    *v = (uint64_t)model_store_string(m, p, n) + 1;
}

void model_fiber_name(model_t *m, uint64_t fiber, const uint8_t *p, size_t n)
{
    query_credit(m->queries);
    uint64_t *tid = hmap_get(&m->fiber_map, fiber);
    if (!tid) return;
    uint64_t *v = hmap_get(&m->thread_names, *tid);
    if (!v || *v) return;
    m->pending_fibers--;
    *v = (uint64_t)model_store_string(m, p, n) + 1;
}

void model_thread_group_hint(model_t *m, uint32_t thread, int32_t hint)
{
    thread_t *t = model_find_thread(m, thread);
    if (!t) {
        model_failure(m, "group hint for unknown thread %u", thread);
        return;
    }
    t->group_hint = hint;
}

/* ---- source locations ----------------------------------------------------- */

/* CheckSourceLocation: ask for a static source location on first sight. */
void model_check_source_location(model_t *m, uint64_t ptr)
{
    if (hmap_get(&m->srcloc_map, ptr)) return;
    /* (64's server had no such limit and wrote a file no reader takes; the
     * limit holds for every protocol here) */
    if (m->srclocs.n >= SRCLOC_STATIC_MAX) {
        model_failure(m, "source location %#" PRIx64 " is one more than the %d static ones a trace holds",
                      ptr, SRCLOC_STATIC_MAX);
        return;
    }
    srcloc_static_t empty = {0};
    hmap_put(&m->srcloc_map, ptr, m->srclocs.n, NULL);
    VEC_PUSH(m->srclocs, empty);
    VEC_PUSH(m->srcloc_fifo, ptr);
    queryq_push(m->queries, SQ_SOURCE_LOCATION, ptr, 0);
}

/* ShrinkSourceLocation: the 16-bit id of a static source location, or 0
 * when the ids (1..SRCLOC_STATIC_MAX) are used up. */
int16_t model_shrink_srcloc(model_t *m, uint64_t ptr)
{
    uint64_t *v = hmap_get(&m->srcloc_shrink, ptr);
    if (v) return (int16_t)*v;
    if (m->srcloc_expand.n > SRCLOC_STATIC_MAX) return 0;
    int16_t id = (int16_t)m->srcloc_expand.n;
    VEC_PUSH(m->srcloc_expand, ptr);
    rhorder_insert(&m->srcloc_counts, (uint64_t)(int64_t)id, 0);
    hmap_put(&m->srcloc_shrink, ptr, (uint64_t)id, NULL);
    return id;
}

void model_source_location(model_t *m, uint64_t name, uint64_t function, uint64_t file,
                           uint32_t line, uint8_t r, uint8_t g, uint8_t b)
{
    query_credit(m->queries);
    if (m->srcloc_fifo_head == m->srcloc_fifo.n) {
        model_failure(m, "a source location answer arrived for no question");
        return;
    }
    uint64_t ptr = m->srcloc_fifo.v[m->srcloc_fifo_head++];
    if (m->srcloc_fifo_head == m->srcloc_fifo.n) m->srcloc_fifo.n = m->srcloc_fifo_head = 0;

    model_check_string(m, name);
    if (model_check_string(m, file)) {
        if (file && !hmap_get(&m->checked_file_ptr, file) && !hmap_get(&m->pending_file_ptr, file))
            model_cache_source_ptr(m, file);
    } else {
        hmap_put(&m->pending_file_ptr, file, 0, NULL);
    }
    model_check_string(m, function);

    srcloc_static_t *s = &m->srclocs.v[*hmap_get(&m->srcloc_map, ptr)];
    s->name = name;
    s->function = function;
    s->file = file;
    s->line = line;
    s->color = ((uint32_t)b << 16) | ((uint32_t)g << 8) | r;
    s->answered = true;
}

static uint64_t payload_hash(const model_t *m, const srcloc_payload_t *s)
{
    uint64_t k[5] = { (uint64_t)s->name, s->function, s->file, s->line, s->color };
    return hash_bytes(&m->content_key, k, sizeof k);
}

static bool payload_equal(const srcloc_payload_t *a, const srcloc_payload_t *b)
{
    return a->name == b->name && a->function == b->function && a->file == b->file &&
           a->line == b->line && a->color == b->color;
}

/* Look up (or add) a payload source location; chained by probing keys. */
static int64_t payload_find(model_t *m, const srcloc_payload_t *s, uint64_t *key_out)
{
    uint64_t key = payload_hash(m, s);
    for (;; key++) {
        uint64_t *v = hmap_get(&m->srcloc_payload_map, key);
        if (!v) break;
        if (payload_equal(&m->srcloc_payloads.v[*v], s)) return (int64_t)*v;
    }
    *key_out = key;
    return -1;
}

void model_source_location_payload(model_t *m, const uint8_t *p, size_t n)
{
    if (m->pending_payload_srcloc != 0) model_failure(m, "a staged source location was never used");
    if (n < 10) {
        model_failure(m, "source location payload of %zu bytes is too short", n);
        m->pending_payload_srcloc = 0;
        return;
    }
    uint32_t color = ld32(p), line = ld32(p + 4);
    const uint8_t *end = p + n, *fn = p + 8;
    const uint8_t *fn_end = memchr(fn, 0, (size_t)(end - fn));
    if (!fn_end) fn_end = end;
    const uint8_t *file = fn_end < end ? fn_end + 1 : end;
    const uint8_t *file_end = memchr(file, 0, (size_t)(end - file));
    if (!file_end) file_end = end;
    const uint8_t *name = file_end < end ? file_end + 1 : end;

    srcloc_payload_t s;
    s.function = model_store_string(m, fn, (size_t)(fn_end - fn));
    s.file = model_store_string(m, file, (size_t)(file_end - file));
    s.name = name < end ? (int64_t)model_store_string(m, name, (size_t)(end - name)) : -1;
    s.line = line;
    s.color = ((color & 0xFF0000) >> 16) | (color & 0xFF00) | ((color & 0xFF) << 16);

    uint64_t key = 0;
    int64_t idx = payload_find(m, &s, &key);
    if (idx >= 0) {
        m->pending_payload_srcloc = (int16_t)-(idx + 1);
        return;
    }
    if (m->srcloc_payloads.n + 1 > 32767) {
        model_failure(m, "more than 32767 dynamic source locations");
        return;
    }
    idx = (int64_t)m->srcloc_payloads.n;
    VEC_PUSH(m->srcloc_payloads, s);
    hmap_put(&m->srcloc_payload_map, key, (uint64_t)idx, NULL);
    m->pending_payload_srcloc = (int16_t)-(idx + 1);
    if (!hmap_get(&m->checked_file_idx, s.file)) model_cache_source_idx(m, s.file, 0);
    rhorder_insert(&m->srcloc_counts, (uint64_t)(int64_t)m->pending_payload_srcloc, 0);
}

/* ---- source files ---------------------------------------------------------- */

/* CacheSource: a source file name became known. We never read the
 * capturing machine's disk (its file may not be the client's); we ask the
 * client, as upstream does when it cannot read the file, provided the
 * client allows code transfer and knows its executable's time. */
/* A DataTransfer query and the parts carrying a NUL-terminated string, 12
 * bytes per part (protocol-82.md 4.5). */
static void query_data_transfer(model_t *m, const char *s)
{
    const size_t len = strlen(s) + 1;
    queryq_push(m->queries, SQ_DATA_TRANSFER, len, 0);
    for (size_t off = 0; off < len; off += 12) {
        uint8_t chunk[12] = {0};
        memcpy(chunk, s + off, len - off < 12 ? len - off : 12);
        queryq_push(m->queries, SQ_DATA_TRANSFER_PART, ld64(chunk), ld32(chunk + 8));
    }
}

/* CacheSource: a source file name became known. We never read the
 * capturing machine's disk (its file may not be the client's); we ask the
 * client, as upstream does when it cannot read the file, provided the
 * client knows its executable's time and (82; the releases before ask
 * regardless) allows code transfer. */
static void cache_source(model_t *m, uint32_t file, uint32_t image)
{
    if (hmap_get(&m->source_cache, file)) return;
    if (m->exec_time == 0 || (!m->code_transfer && m->rules.source_needs_code_transfer)) return;
    if (image) query_data_transfer(m, strtab_get(&m->strings, image - 1));
    query_data_transfer(m, strtab_get(&m->strings, file));
    hmap_put(&m->source_queries, m->next_source_query, file, NULL);
    queryq_push(m->queries, SQ_SOURCE_CODE, m->next_source_query, 0);
    m->next_source_query++;
}

void model_cache_source_ptr(model_t *m, uint64_t ptr)
{
    hmap_put(&m->checked_file_ptr, ptr, 0, NULL);
    /* A string still on its way reads "???" upstream, and is asked for by
     * that name; mirror it so request ids stay in step. */
    uint64_t *v = hmap_get(&m->ptr_strings, ptr);
    uint32_t name = v && *v ? (uint32_t)(*v - 1) : model_store_string(m, "???", 3);
    cache_source(m, name, 0);
}

void model_cache_source_idx(model_t *m, uint32_t idx, uint32_t image)
{
    hmap_put(&m->checked_file_idx, idx, 0, NULL);
    cache_source(m, idx, image);
}

void model_source_code(model_t *m, uint32_t id, const uint8_t *p, size_t n)
{
    query_credit(m->queries);
    uint64_t *v = hmap_get(&m->source_queries, id);
    if (!v) return;
    uint32_t file = (uint32_t)*v;
    hmap_del(&m->source_queries, id);
    bool fresh;
    hmap_put(&m->source_cache, file, m->source_names.n + 1, &fresh);
    if (!fresh) return;
    bytes_t data = {0};
    bytes_put(&data, p, n);
    model_block_resized(m, 0, data.cap);
    VEC_PUSH(m->source_names, file);
    VEC_PUSH(m->source_data, data);
}

void model_source_code_unavailable(model_t *m, uint32_t id)
{
    query_credit(m->queries);
    hmap_del(&m->source_queries, id);
}

void model_drop_chunk_pool(model_t *m)
{
    for (size_t i = 0; i < m->nthreads; i++) m->threads[i]->pool = NULL;
    chunkpool_free(m->chunk_pool);
    m->chunk_pool = NULL;
}

/* ---- counts ------------------------------------------------------------------ */

void model_count(const model_t *m, model_counts_t *c)
{
    *c = (model_counts_t){0};
    c->threads = m->nthreads;
    for (size_t i = 0; i < m->nthreads; i++) {
        const thread_t *t = m->threads[i];
        c->fibers += t->is_fiber;
        c->samples += t->samples.n;
        c->context_switch_samples += t->ctx_switch_samples.n;
    }
    c->zones = m->zone_count;
    c->zone_extras = m->zone_extras.n - 1;
    c->source_locations = m->srclocs.n + m->srcloc_payloads.n;
    c->strings = m->strings.n;
    c->frame_sets = m->frame_disc.order.n;
    for (size_t i = 0; i < m->frame_disc.order.n; i++) c->frames += m->framesets[m->frame_disc.order.v[i]]->frames.n;
    /* the base set's frames at 0, at the end of the client's start-up and,
     * on demand, at the connection */
    const uint64_t base = m->nframesets ? (m->on_demand ? 3 : 2) : 0;
    c->marked_frames = c->frames > base ? c->frames - base : 0;
    c->frame_images = m->images.n;
    c->messages = m->messages.n;
    c->app_info = m->app_info.n;
    c->params = m->params;
    c->plots = m->plot_disc.order.n;
    for (size_t i = 0; i < m->plot_disc.order.n; i++) c->plot_points += m->plots[m->plot_disc.order.v[i]]->points.n;
    for (size_t i = 0; i < m->plot_disc.order.n; i++) c->system_plots += m->plots[m->plot_disc.order.v[i]]->type != PLOT_USER;
    c->locks = m->locks.n;
    for (size_t i = 0; i < m->locks.n; i++) c->lock_events += m->locks.v[i].events.n;
    c->memory_pools = m->pools.n ? m->pools.n : 1;
    for (size_t i = 0; i < m->pools.n; i++) c->memory_events += memlog_count(&m->pools.v[i].events);
    c->gpu_contexts = m->gpu_order.n;
    for (size_t i = 0; i < m->gpu_order.n; i++) c->gpu_zones += m->gpu_order.v[i]->zones.n;
    c->callstacks = m->callstacks.n - 1;
    c->callstack_frames = m->frame_data.n;
    c->symbols = m->symbols.n;
    c->symbol_code = m->symbol_code.n;
    for (size_t i = 0; i < m->symbol_code.n; i++) c->symbol_code_bytes += m->symbol_code.v[i].n;
    c->source_files = m->source_data.n;
    for (size_t i = 0; i < m->source_data.n; i++) c->source_file_bytes += m->source_data.v[i].n;
    for (size_t i = 0; i < m->switches.n; i++) {
        const thread_t *t = model_find_thread(m, m->switches.v[i].thread);
        c->context_switches += m->switches.v[i].v.n;
        if (t && t->is_fiber) c->fiber_runs += m->switches.v[i].v.n;
    }
    for (int i = 0; i < 256; i++) c->cpu_context_switches += m->cpu_switches[i].n;
    for (size_t i = 0; i < m->hw.n; i++)
        for (int k = 0; k < 6; k++) c->hw_samples += m->hw.v[i].v[k].n;
    for (size_t i = 0; i < m->sections.n; i++) c->sections += m->sections.v[i].items.n;
    c->crashes = m->has_crash;
}

/* ---- end of session ------------------------------------------------------ */

static int cmp_point(const void *a, const void *b)
{
    const plot_point_t *x = a, *y = b;
    return x->time < y->time ? -1 : x->time > y->time;
}

static int cmp_sample(const void *a, const void *b)
{
    const sample_t *x = a, *y = b;
    return x->time < y->time ? -1 : x->time > y->time;
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sort an array by time unless it already is (qsort is not stable; equal
 * times keep no particular order, as with upstream's sorts). */
#define SORT_BY_TIME(v, n, cmp)                                             \
    do {                                                                    \
        bool sorted_ = true;                                                \
        for (size_t i_ = 1; i_ < (n) && sorted_; i_++)                      \
            sorted_ = cmp(&(v)[i_ - 1], &(v)[i_]) <= 0;                     \
        if (!sorted_) qsort((v), (n), sizeof *(v), cmp);                    \
    } while (0)

void model_finish(model_t *m)
{
    model_seal_logs(m);
    /* zones still open: their info slots get the figures so far, their
     * texts are interned */
    for (size_t i = 0; i < m->nthreads; i++) {
        const thread_t *t = m->threads[i];
        for (size_t k = 0; k < t->stack.n; k++) {
            open_zone_t *z = &t->stack.v[k];
            model_zone_text_close(m, z);
            if (!z->slot) continue;
            memcpy(z->slot, &z->nchild, 4);
            memcpy(z->slot + 4, &z->extra, 4);
        }
    }
    for (size_t i = 0; i < m->nplots; i++) SORT_BY_TIME(m->plots[i]->points.v, m->plots[i]->points.n, cmp_point);
    for (size_t i = 0; i < m->nthreads; i++) {
        thread_t *t = m->threads[i];
        SORT_BY_TIME(t->samples.v, t->samples.n, cmp_sample);
        SORT_BY_TIME(t->ctx_switch_samples.v, t->ctx_switch_samples.n, cmp_sample);
    }
    for (size_t i = 0; i < m->hw.n; i++)
        for (int k = 0; k < 6; k++) SORT_BY_TIME(m->hw.v[i].v[k].v, m->hw.v[i].v[k].n, cmp_i64);
}

bool model_pending_work(const model_t *m, bool check_zones, bool sync_only, char *why, size_t whylen)
{
    struct { uint64_t n; const char *what; bool async; } w[] = {
        { m->pending_strings, "strings", false },
        { m->pending_thread_names, "thread names", false },
        { m->srcloc_fifo.n - m->srcloc_fifo_head, "source locations", false },
        { m->pending_frames + m->pending_subframes, "call stack frames", true },
        { m->plot_disc.pending.n, "plot names", false },
        { m->pending_external_names, "external thread names", true },
        { m->pending_symbols.n, "symbols", true },
        { m->pending_symbol_code, "symbol code", true },
        { m->source_queries.n, "source files", true },
        { m->pending_fibers, "fiber names", false },
        { queryq_waiting(m->queries), "queries not yet sent", true },
        { m->pending_callstack != 0, "a staged call stack", false },
        { m->pending_payload_srcloc != 0, "a staged source location", false },
        { m->single_string >= 0, "a staged string", false },
        { m->second_string >= 0, "a staged second string", false },
    };
    size_t len = 0;
    bool pending = false;
    if (why && whylen) why[0] = '\0';
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        if (!w[i].n || (sync_only && w[i].async)) continue;
        pending = true;
        if (why && len < whylen)
            len += (size_t)snprintf(why + len, whylen - len, "%s%llu %s", len ? ", " : "",
                                    (unsigned long long)w[i].n, w[i].what);
    }
    if (check_zones) {
        uint64_t open = 0;
        for (size_t i = 0; i < m->nthreads; i++) open += m->threads[i]->stack.n;
        if (open) {
            pending = true;
            if (why && len < whylen)
                snprintf(why + len, whylen - len, "%s%llu open zones", len ? ", " : "",
                         (unsigned long long)open);
        }
    }
    return pending;
}
