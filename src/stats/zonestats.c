/* zonestats: per-source-location statistics in upstream's map order,
 * the CPU ones filled while the file is read.  See zonestats.h; the
 * counting rules are csvexport-and-fidelity.md §A.2. */
#include "zonestats.h"

#include <stdlib.h>
#include <string.h>

/* Room for need elements of size elem in *p (capacity *cap); 0 or -1. */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need)
        ncap *= 2;
    void *q = realloc(*p, ncap * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = ncap;
    return 0;
}

static void stats_init_record(srcloc_stats *r, int16_t id)
{
    memset(r, 0, sizeof *r);
    r->id = id;
    r->min = INT64_MAX;
    r->max = INT64_MIN;
    r->self_min = INT64_MAX;
    r->self_max = INT64_MIN;
}

static void free_record(srcloc_stats *r)
{
    free(r->pending);
    free(r->rows);
    free(r->values);
}

static void stats_add(srcloc_stats *r, int64_t span, int64_t self)
{
    r->count++;
    if (r->min > span)
        r->min = span;
    if (r->max < span)
        r->max = span;
    r->total = (int64_t)((uint64_t)r->total + (uint64_t)span);
    if (r->self_min > self)
        r->self_min = self;
    if (r->self_max < self)
        r->self_max = self;
    r->self_total = (int64_t)((uint64_t)r->self_total + (uint64_t)self);
}

void stats_init(tf_stats *s, const stats_options *o)
{
    memset(s, 0, sizeof *s);
    s->opt = *o;
    rhorder_init(&s->cpu_map);
    rhorder_init(&s->gpu_map);
}

void stats_free(tf_stats *s)
{
    for (size_t i = 0; i < s->cpu_count; i++)
        free_record(&s->cpu[i]);
    rhorder_free(&s->cpu_map);
    rhorder_free(&s->gpu_map);
    free(s->cpu);
    free(s->cpu_of_id);
    free(s->open);
    free(s->gpu);
    free(s->gpu_list);
    memset(s, 0, sizeof *s);
}

/* ---- CPU, while reading -------------------------------------------------- */

/* The map as the loader makes it while reading §5.15: reserved for the
 * expand table and the payload srclocs, one record per listed id. */
static int on_timelines(void *ctx, const tf_model *m)
{
    tf_stats *s = ctx;
    if (rhorder_reserve(&s->cpu_map, m->expand_count + m->payload_srcloc_count) != 0)
        return -1;
    s->cpu = calloc(m->cpu_count_count + 1, sizeof *s->cpu);
    s->cpu_of_id = malloc(65536 * sizeof *s->cpu_of_id);
    if (!s->cpu || !s->cpu_of_id)
        return -1;
    memset(s->cpu_of_id, 0xff, 65536 * sizeof *s->cpu_of_id);
    for (size_t i = 0; i < m->cpu_count_count; i++) {
        int16_t id = m->cpu_counts[i].id;
        int rc = rhorder_insert(&s->cpu_map, rhorder_key_i16(id), s->cpu_count);
        if (rc < 0)
            return -1;
        if (rc == 1) {
            s->cpu_of_id[(uint16_t)id] = (int32_t)s->cpu_count;
            stats_init_record(&s->cpu[s->cpu_count++], id);
        }
    }
    return 0;
}

static int on_thread(void *ctx, size_t index, uint16_t number)
{
    (void)index;
    ((tf_stats *)ctx)->thread = number;
    return 0;
}

static int on_zone_begin(void *ctx, int16_t srcloc, int64_t start, uint32_t extra)
{
    tf_stats *s = ctx;
    if (grow((void **)&s->open, &s->open_cap, s->open_n + 1, sizeof *s->open) != 0)
        return -1;
    open_zone *z = &s->open[s->open_n++];
    *z = (open_zone){ .start = start, .rec = SIZE_MAX, .pending = SIZE_MAX, .row = SIZE_MAX };
    const int32_t idx = s->cpu_of_id[(uint16_t)srcloc];
    if (idx < 0)
        return 0;   /* an id §5.15 does not list: never counted */
    srcloc_stats *r = &s->cpu[idx];
    z->rec = (size_t)idx;
    if (r->open++ > 0) {
        if (grow((void **)&r->pending, &r->pending_cap, r->pending_n + 1, sizeof *r->pending) != 0)
            return -1;
        z->pending = r->pending_n;
        r->pending[r->pending_n++] = 0;
    }
    if (s->opt.keep_rows) {
        if (grow((void **)&r->rows, &r->row_cap, r->row_n + 1, sizeof *r->rows) != 0)
            return -1;
        z->row = r->row_n;
        r->rows[r->row_n++] = (zone_row){ .start = start, .extra = extra, .thread = s->thread, .dropped = 1 };
    }
    return 0;
}

/* sumSq in walk order: the outermost zone of its srcloc first, then the
 * ones nested in it, in the order they began. */
static void add_squares(srcloc_stats *r, const open_zone *z, int64_t counted_span)
{
    if (z->pending != SIZE_MAX) {
        r->pending[z->pending] = counted_span;
        return;
    }
    if (counted_span)
        r->sum_sq += (double)counted_span * (double)counted_span;
    for (size_t i = 0; i < r->pending_n; i++)
        if (r->pending[i])
            r->sum_sq += (double)r->pending[i] * (double)r->pending[i];
    r->pending_n = 0;
}

/* The zone's -u row: filled if counted, else given up (or marked so). */
static void finish_row(srcloc_stats *r, const open_zone *z, int counted, int64_t exec)
{
    if (z->row == SIZE_MAX)
        return;
    if (counted) {
        r->rows[z->row].exec = exec;
        r->rows[z->row].dropped = 0;
    } else if (z->row + 1 == r->row_n) {
        r->row_n--;
    }
}

static int on_zone_end(void *ctx, int64_t end)
{
    tf_stats *s = ctx;
    const open_zone z = s->open[--s->open_n];
    const int64_t span = (int64_t)((uint64_t)end - (uint64_t)z.start);
    if (s->open_n > 0) {
        open_zone *parent = &s->open[s->open_n - 1];
        parent->child_clamped += span < 0 ? 0 : span;
        parent->child_raw += span;
    }
    if (z.rec == SIZE_MAX)
        return 0;
    srcloc_stats *r = &s->cpu[z.rec];
    r->open--;
    const int counted = end >= 0 && span > 0;
    const int64_t exec = s->opt.self_rows ? span - z.child_raw : span;
    if (counted)
        stats_add(r, span, span - z.child_clamped);
    add_squares(r, &z, counted ? span : 0);
    finish_row(r, &z, counted, exec);
    if (counted && s->opt.keep_values) {
        if (grow((void **)&r->values, &r->value_cap, r->value_n + 1, sizeof *r->values) != 0)
            return -1;
        r->values[r->value_n++] = exec;
    }
    return 0;
}

load_sink stats_sink(tf_stats *s)
{
    return (load_sink){ .ctx = s, .on_timelines = on_timelines, .on_thread = on_thread,
                        .on_zone_begin = on_zone_begin, .on_zone_end = on_zone_end };
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

int stats_build_gpu(tf_stats *s, const tf_model *m)
{
    if (m->gpu_zone_count > UINT32_MAX || (m->gpu_zone_count && !m->gpu_zones))
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

