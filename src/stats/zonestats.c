/* stats: per-source-location statistics in upstream's map order.  See
 * stats.h; the counting rules are csvexport-and-fidelity.md §A.2. */
#include "zonestats.h"

#include <stdlib.h>
#include <string.h>

static void stats_init_record(srcloc_stats *r, int16_t id)
{
    memset(r, 0, sizeof *r);
    r->id = id;
    r->min = INT64_MAX;
    r->max = INT64_MIN;
    r->self_min = INT64_MAX;
    r->self_max = INT64_MIN;
}

static void stats_add(srcloc_stats *r, int64_t span, int64_t self)
{
    r->count++;
    if (r->min > span)
        r->min = span;
    if (r->max < span)
        r->max = span;
    r->total = (int64_t)((uint64_t)r->total + (uint64_t)span);
    r->sum_sq += (double)span * (double)span;
    if (r->self_min > self)
        r->self_min = self;
    if (r->self_max < self)
        r->self_max = self;
    r->self_total = (int64_t)((uint64_t)r->self_total + (uint64_t)self);
}

int64_t stats_child_time(const tf_model *m, size_t i, int clamp)
{
    int64_t sum = 0;
    size_t last = i + m->zones[i].ndesc;
    for (size_t c = i + 1; c <= last; c += (size_t)m->zones[c].ndesc + 1) {
        int64_t span = m->zones[c].end - tf_zone_start(&m->zones[c]);
        sum += clamp && span < 0 ? 0 : span;
    }
    return sum;
}

size_t stats_zone_thread(const tf_model *m, size_t i)
{
    size_t lo = 0, hi = m->thread_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->threads[mid].zone_first + m->threads[mid].zone_num > i)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Offsets of each record's slice of the zone list, in record order. */
static void assign_list_offsets(srcloc_stats *recs, size_t n)
{
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        recs[i].list_first = off;
        off += (size_t)recs[i].count;
    }
}

/* ---- CPU ------------------------------------------------------------------ */

static int create_cpu_records(tf_stats *s, const tf_model *m)
{
    if (rhorder_reserve(&s->cpu_map, m->expand_count + m->payload_srcloc_count) != 0)
        return -1;
    s->cpu = calloc(m->cpu_count_count + 1, sizeof *s->cpu);
    if (!s->cpu)
        return -1;
    for (size_t i = 0; i < m->cpu_count_count; i++) {
        int16_t id = m->cpu_counts[i].id;
        int rc = rhorder_insert(&s->cpu_map, rhorder_key_i16(id), s->cpu_count);
        if (rc < 0)
            return -1;
        if (rc == 1)
            stats_init_record(&s->cpu[s->cpu_count++], id);
    }
    return 0;
}

/* Record index of a counted zone, or SIZE_MAX if it is not counted. */
static size_t counted_cpu_record(const tf_stats *s, const tf_zone *z)
{
    if (z->end < 0 || z->end - tf_zone_start(z) <= 0)
        return SIZE_MAX;
    const uint64_t *idx = rhorder_find(&s->cpu_map, rhorder_key_i16(tf_zone_srcloc(z)));
    return idx ? (size_t)*idx : SIZE_MAX;
}

static int build_cpu(tf_stats *s, const tf_model *m)
{
    if (m->zone_count > UINT32_MAX || create_cpu_records(s, m) != 0)
        return -1;
    s->thread_number = calloc(m->thread_count + 1, sizeof *s->thread_number);
    if (!s->thread_number)
        return -1;
    for (size_t t = 0; t < m->thread_count; t++)
        s->thread_number[t] = model_thread_number(m, m->threads[t].id);
    for (size_t i = 0; i < m->zone_count; i++) {
        const tf_zone *z = &m->zones[i];
        size_t r = counted_cpu_record(s, z);
        if (r == SIZE_MAX)
            continue;
        int64_t span = z->end - tf_zone_start(z);
        stats_add(&s->cpu[r], span, span - stats_child_time(m, i, 1));
    }
    assign_list_offsets(s->cpu, s->cpu_count);
    size_t *fill = calloc(s->cpu_count + 1, sizeof *fill);
    s->cpu_list = malloc((m->zone_count + 1) * sizeof *s->cpu_list);
    if (!fill || !s->cpu_list) {
        free(fill);
        return -1;
    }
    for (size_t i = 0; i < m->zone_count; i++) {
        size_t r = counted_cpu_record(s, &m->zones[i]);
        if (r != SIZE_MAX)
            s->cpu_list[s->cpu[r].list_first + fill[r]++] = (uint32_t)i;
    }
    free(fill);
    return 0;
}

/* ---- GPU ------------------------------------------------------------------ */

/* Timelines in the loader's walk order: contexts in file order, inside a
 * context the robin-hood order of the thread keys (non-empty timelines,
 * inserted in file order, no reserve). */
static int gpu_walk_order(const tf_model *m, const tf_gpu_timeline ***out, size_t *count)
{
    size_t total = 0;
    for (size_t c = 0; c < m->gpu_ctx_count; c++)
        total += m->gpu_ctxs[c].timeline_count;
    const tf_gpu_timeline **order = calloc(total + 1, sizeof *order);
    if (!order)
        return -1;
    size_t n = 0;
    for (size_t c = 0; c < m->gpu_ctx_count; c++) {
        const tf_gpu_ctx *ctx = &m->gpu_ctxs[c];
        rhorder keys;
        rhorder_init(&keys);
        for (size_t t = 0; t < ctx->timeline_count; t++)
            if (ctx->timelines[t].zone_num > 0 && rhorder_insert(&keys, ctx->timelines[t].key, t) < 0) {
                rhorder_free(&keys);
                free(order);
                return -1;
            }
        uint64_t t;
        for (size_t slot = 0; slot < rhorder_slots(&keys); slot++)
            if (rhorder_slot(&keys, slot, NULL, &t))
                order[n++] = &ctx->timelines[t];
        rhorder_free(&keys);
    }
    *out = order;
    *count = n;
    return 0;
}

static int gpu_zone_counted(const tf_gpu_zone *z)
{
    return z->gpu_end >= 0 && z->gpu_end - z->gpu_start > 0;
}

/* Record for a GPU srcloc id, appending one if the id is new. */
static size_t gpu_record(tf_stats *s, int16_t id)
{
    const uint64_t *idx = rhorder_find(&s->gpu_map, rhorder_key_i16(id));
    if (idx)
        return (size_t)*idx;
    if (s->gpu_count == s->gpu_cap) {
        size_t cap = s->gpu_cap ? s->gpu_cap * 2 : 16;
        srcloc_stats *p = realloc(s->gpu, cap * sizeof *p);
        if (!p)
            return SIZE_MAX;
        s->gpu = p;
        s->gpu_cap = cap;
    }
    if (rhorder_insert(&s->gpu_map, rhorder_key_i16(id), s->gpu_count) < 0)
        return SIZE_MAX;
    stats_init_record(&s->gpu[s->gpu_count], id);
    return s->gpu_count++;
}

static int build_gpu(tf_stats *s, const tf_model *m)
{
    if (m->gpu_zone_count > UINT32_MAX)
        return -1;
    for (size_t i = 0; i < m->gpu_count_count; i++)
        if (gpu_record(s, m->gpu_counts[i].id) == SIZE_MAX)
            return -1;
    const tf_gpu_timeline **order;
    size_t n;
    if (gpu_walk_order(m, &order, &n) != 0)
        return -1;
    for (size_t k = 0; k < n; k++)
        for (size_t i = order[k]->zone_first; i < order[k]->zone_first + order[k]->zone_num; i++) {
            const tf_gpu_zone *z = &m->gpu_zones[i];
            if (!gpu_zone_counted(z))
                continue;
            size_t r = gpu_record(s, z->srcloc);
            if (r == SIZE_MAX) {
                free(order);
                return -1;
            }
            int64_t span = z->gpu_end - z->gpu_start;
            stats_add(&s->gpu[r], span, span);
        }
    assign_list_offsets(s->gpu, s->gpu_count);
    size_t *fill = calloc(s->gpu_count + 1, sizeof *fill);
    s->gpu_list = malloc((m->gpu_zone_count + 1) * sizeof *s->gpu_list);
    if (!fill || !s->gpu_list) {
        free(fill);
        free(order);
        return -1;
    }
    for (size_t k = 0; k < n; k++)
        for (size_t i = order[k]->zone_first; i < order[k]->zone_first + order[k]->zone_num; i++) {
            const tf_gpu_zone *z = &m->gpu_zones[i];
            if (!gpu_zone_counted(z))
                continue;
            size_t r = (size_t)*rhorder_find(&s->gpu_map, rhorder_key_i16(z->srcloc));
            s->gpu_list[s->gpu[r].list_first + fill[r]++] = (uint32_t)i;
        }
    free(fill);
    free(order);
    return 0;
}

int stats_build(tf_stats *s, const tf_model *m)
{
    memset(s, 0, sizeof *s);
    rhorder_init(&s->cpu_map);
    rhorder_init(&s->gpu_map);
    if (build_cpu(s, m) != 0 || build_gpu(s, m) != 0)
        return -1;
    return 0;
}

void stats_free(tf_stats *s)
{
    rhorder_free(&s->cpu_map);
    rhorder_free(&s->gpu_map);
    free(s->cpu);
    free(s->cpu_list);
    free(s->thread_number);
    free(s->gpu);
    free(s->gpu_list);
    memset(s, 0, sizeof *s);
}
