/* writer.c - the .tracy payload writer (see writer.h). Sections are written
 * by one function each, in file order; writer_write_payload() lists them.
 * The few that differ between formats ask the format (file_format_t) at
 * the fields concerned; those --strip empties are written as tracy-update
 * writes them after a load without that data (strip.h). */
#include "writer.h"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strip.h"
#include "util.h"

/* ---- small encoders ---------------------------------------------------------- */

/* Delta-coded time: write t - ref, then ref = t (file spec section 4). */
static void put_time(tfile_t *f, int64_t *ref, int64_t t)
{
    tfile_i64(f, sub_wrap(t, *ref));
    *ref = t;
}

static void put_string(tfile_t *f, const char *s)
{
    uint64_t n = strlen(s);
    tfile_u64(f, n);
    tfile_write(f, s, n);
}

/* A byte blob the model may hold as NULL when empty (memcpy wants a pointer). */
static void put_blob(tfile_t *f, const void *p, size_t n)
{
    if (n) tfile_write(f, p, n);
}

enum { REF_NONE = 0, REF_PTR = 2, REF_IDX = 3 };

static void put_stringref(tfile_t *f, uint64_t value, uint8_t flags)
{
    tfile_u64(f, value);
    tfile_u8(f, flags);
}

/* Ids given to strings in the string table: index + 1 (unique, non-zero). */
static uint64_t string_id(uint32_t idx) { return (uint64_t)idx + 1; }

/* ---- sections ------------------------------------------------------------------- */

static void write_capture_info(const model_t *m, const file_format_t *fmt, tfile_t *f)
{
    const uint8_t header[8] = { 't', 'r', 'a', 'c', 'y', fmt->stamp[0], fmt->stamp[1], fmt->stamp[2] };
    tfile_write(f, header, sizeof header);
    if (fmt->delay) tfile_i64(f, m->delay_ns);
    tfile_i64(f, m->resolution);
    tfile_f64(f, m->timer_mul);
    tfile_i64(f, m->last_time);
    tfile_u64(f, m->frame_offset);
    tfile_u64(f, m->pid);
    tfile_i64(f, m->sampling_period);
    tfile_u8(f, m->cpu_arch);
    tfile_u32(f, m->cpu_id);
    tfile_write(f, m->cpu_manufacturer, 12);
    tfile_u8(f, m->on_demand);
    put_string(f, m->capture_name ? m->capture_name : "");
    put_string(f, m->capture_program ? m->capture_program : "");
    tfile_u64(f, m->capture_time);
    tfile_u64(f, m->exec_time);
    put_string(f, m->host_info ? m->host_info : "");
}

/* CPU topology: packages > dies > cores > logical CPUs, grouped from the
 * (package, die, core, thread) records in arrival order. A format without
 * dies groups by (package, core, thread): a package's cores of all its
 * dies, those with the same id on two dies merged into one, as the loaders
 * of those releases, which key cores by id, would merge them. */
typedef struct {
    const uint64_t *q;          /* the records, 4 values each */
    size_t n;
    const int *cols;            /* the record columns grouped by, outermost first */
    int ncols;
} topo_keys_t;

/* Whether records i and j agree on the first k grouping columns. */
static bool topo_same(const topo_keys_t *k, size_t i, size_t j, int depth)
{
    for (int c = 0; c < depth; c++)
        if (k->q[4 * i + k->cols[c]] != k->q[4 * j + k->cols[c]]) return false;
    return true;
}

/* Whether record i is the first of its group at `depth` columns. */
static bool topo_first(const topo_keys_t *k, size_t i, int depth)
{
    for (size_t j = 0; j < i; j++)
        if (topo_same(k, i, j, depth)) return false;
    return true;
}

/* The group of record p at `depth` (p its first record): its count of
 * members, then per member its id and, above the last level, its own
 * members. */
static void write_topology_level(const topo_keys_t *k, size_t p, int depth, tfile_t *f)
{
    const bool last = depth == k->ncols - 1;
    uint64_t n = 0;
    for (size_t i = p; i < k->n; i++) n += topo_same(k, i, p, depth) && (last || topo_first(k, i, depth + 1));
    tfile_u64(f, n);
    for (size_t i = p; i < k->n; i++) {
        if (!topo_same(k, i, p, depth) || (!last && !topo_first(k, i, depth + 1))) continue;
        tfile_u32(f, (uint32_t)k->q[4 * i + k->cols[depth]]);
        if (!last) write_topology_level(k, i, depth + 1, f);
    }
}

static void write_topology(const model_t *m, const file_format_t *fmt, tfile_t *f)
{
    static const int with_dies[] = { 0, 1, 2, 3 }, without_dies[] = { 0, 2, 3 };
    const topo_keys_t k = { m->topology.v, m->topology.n / 4, fmt->dies ? with_dies : without_dies,
                            fmt->dies ? 4 : 3 };
    write_topology_level(&k, 0, 0, f);
}

static void write_crash(const model_t *m, tfile_t *f)
{
    tfile_u64(f, m->has_crash ? m->crash_thread : 0);
    tfile_i64(f, m->has_crash ? m->crash_time : 0);
    tfile_u64(f, m->has_crash ? m->crash_message : 0);
    tfile_u32(f, m->has_crash ? m->crash_callstack : 0);
}

/* Frames; without their images (--strip i), as upstream's loader leaves
 * them, each with image -1. */
static void write_frames(const model_t *m, bool images, tfile_t *f)
{
    tfile_u64(f, m->frame_disc.order.n);
    for (size_t i = 0; i < m->frame_disc.order.n; i++) {
        const frameset_t *fs = m->framesets[m->frame_disc.order.v[i]];
        int64_t ref = 0;
        tfile_u64(f, fs->name);
        tfile_u8(f, fs->continuous);
        tfile_u64(f, fs->frames.n);
        for (size_t k = 0; k < fs->frames.n; k++) {
            const frame_t *fr = &fs->frames.v[k];
            put_time(f, &ref, fr->start);
            if (!fs->continuous) put_time(f, &ref, fr->end);
            tfile_u32(f, images ? (uint32_t)fr->image : UINT32_MAX);
        }
    }
}

/* Int48: the low six bytes of a signed 64-bit value. */
static void put_int48(tfile_t *f, int64_t v)
{
    uint8_t b[8];
    memcpy(b, &v, 8);
    tfile_write(f, b, 6);
}

static void write_sections(const model_t *m, tfile_t *f)
{
    tfile_u64(f, m->sections.n);
    for (size_t i = 0; i < m->sections.n; i++) {
        const section_category_t *c = &m->sections.v[i];
        tfile_u16(f, c->category);
        tfile_u64(f, c->items.n);
        for (size_t k = 0; k < c->items.n; k++) {
            put_int48(f, c->items.v[k].start);
            put_int48(f, c->items.v[k].end);
            tfile_int24(f, c->items.v[k].text);
        }
    }
    tfile_u64(f, m->section_desc_order.n);
    for (size_t i = 0; i < m->section_desc_order.n; i++) {
        const uint16_t cat = m->section_desc_order.v[i];
        tfile_u16(f, cat);
        tfile_int24(f, (uint32_t)*hmap_get(&m->section_desc, cat));
    }
}

static void write_strings(const model_t *m, tfile_t *f)
{
    const strtab_t *s = &m->strings;
    tfile_u64(f, s->n);
    for (size_t i = 0; i < s->n; i++) {
        tfile_u64(f, string_id((uint32_t)i));
        /* Upstream writes strings up to their first NUL. */
        put_string(f, s->str[i]);
    }
}

/* Write the resolved entries of a pointer -> string index + 1 map. Maps
 * are written in key order: their own order changes from run to run
 * (hmap.h). */
static void write_name_map(const hmap_t *map, tfile_t *f)
{
    hmap_slot_t *e = hmap_sorted(map);
    uint64_t n = 0;
    for (size_t i = 0; i < map->n; i++) n += e[i].val != 0;
    tfile_u64(f, n);
    for (size_t i = 0; i < map->n; i++) {
        if (!e[i].val) continue;
        tfile_u64(f, e[i].key);
        tfile_u64(f, string_id((uint32_t)(e[i].val - 1)));
    }
    free(e);
}

/* A u64 -> u64 map as its count and pairs, in key order. */
static void write_pairs(const hmap_t *map, tfile_t *f)
{
    hmap_slot_t *e = hmap_sorted(map);
    tfile_u64(f, map->n);
    for (size_t i = 0; i < map->n; i++) {
        tfile_u64(f, e[i].key);
        tfile_u64(f, e[i].val);
    }
    free(e);
}

static void write_thread_tables(const model_t *m, tfile_t *f)
{
    write_name_map(&m->ptr_strings, f);
    write_name_map(&m->thread_names, f);
    /* external threads: only those whose both names arrived */
    hmap_slot_t *e = hmap_sorted(&m->external_names);
    uint64_t n = 0;
    for (size_t i = 0; i < m->external_names.n; i++)
        n += m->external_name_strs.v[2 * e[i].val] && m->external_name_strs.v[2 * e[i].val + 1];
    tfile_u64(f, n);
    for (size_t i = 0; i < m->external_names.n; i++) {
        const uint32_t proc = m->external_name_strs.v[2 * e[i].val], thr = m->external_name_strs.v[2 * e[i].val + 1];
        if (!proc || !thr) continue;
        tfile_u64(f, e[i].key);
        tfile_u64(f, string_id(proc - 1));
        tfile_u64(f, string_id(thr - 1));
    }
    free(e);
    tfile_u64(f, m->local_threads.n);
    for (size_t i = 0; i < m->local_threads.n; i++) tfile_u64(f, m->local_threads.v[i]);
    tfile_u64(f, m->external_threads.n);
    for (size_t i = 0; i < m->external_threads.n; i++) tfile_u64(f, m->external_threads.v[i]);
}

static void write_srcloc_base(tfile_t *f, uint64_t name, uint8_t nflag, uint64_t fn, uint8_t fflag,
                              uint64_t file, uint8_t fileflag, uint32_t line, uint32_t color)
{
    put_stringref(f, name, nflag);
    put_stringref(f, fn, fflag);
    put_stringref(f, file, fileflag);
    tfile_u32(f, line);
    tfile_u32(f, color);
}

/* Source-location ids with their zone counts, in upstream's map order. */
static void write_count_map(const rhorder *map, const uint64_t *counts, tfile_t *f)
{
    uint64_t key, val, n = 0;
    for (size_t i = 0; i < rhorder_slots(map); i++) n += rhorder_slot(map, i, &key, &val);
    tfile_u64(f, n);
    for (size_t i = 0; i < rhorder_slots(map); i++) {
        if (!rhorder_slot(map, i, &key, &val)) continue;
        tfile_u16(f, (uint16_t)key);
        tfile_u64(f, counts[(uint16_t)key]);
    }
}

static void write_source_locations(const model_t *m, tfile_t *f)
{
    tfile_u64(f, m->srclocs.n);
    hmap_slot_t *e = hmap_sorted(&m->srcloc_map);
    for (size_t i = 0; i < m->srcloc_map.n; i++) {
        const srcloc_static_t *s = &m->srclocs.v[e[i].val];
        tfile_u64(f, e[i].key);
        if (!s->answered) {
            write_srcloc_base(f, 0, REF_NONE, 0, REF_NONE, 0, REF_NONE, 0, 0);
            continue;
        }
        write_srcloc_base(f, s->name, s->name ? REF_PTR : REF_NONE, s->function, REF_PTR, s->file, REF_PTR,
                          s->line, s->color);
    }
    free(e);
    tfile_u64(f, m->srcloc_expand.n);
    for (size_t i = 0; i < m->srcloc_expand.n; i++) tfile_u64(f, m->srcloc_expand.v[i]);
    tfile_u64(f, m->srcloc_payloads.n);
    for (size_t i = 0; i < m->srcloc_payloads.n; i++) {
        const srcloc_payload_t *s = &m->srcloc_payloads.v[i];
        write_srcloc_base(f, s->name >= 0 ? (uint64_t)s->name : 0, s->name >= 0 ? REF_IDX : REF_NONE,
                          s->function, REF_IDX, s->file, REF_IDX, s->line, s->color);
    }
    write_count_map(&m->srcloc_counts, m->zone_counts, f);
    write_count_map(&m->gpu_srcloc_counts, m->gpu_zone_counts, f);
}

static void write_locks(const model_t *m, tfile_t *f)
{
    tfile_u64(f, m->locks.n);
    for (size_t i = 0; i < m->locks.n; i++) {
        const lock_t *l = &m->locks.v[i];
        tfile_u32(f, l->id);
        tfile_int24(f, l->custom_name);
        tfile_u16(f, (uint16_t)l->srcloc);
        tfile_u8(f, l->type);
        tfile_u8(f, 1);
        tfile_i64(f, l->time_announce);
        tfile_i64(f, l->time_terminate);
        tfile_u64(f, l->threads.n);
        for (size_t k = 0; k < l->threads.n; k++) tfile_u64(f, l->threads.v[k]);
        int64_t ref = l->time_announce;
        tfile_u64(f, l->events.n);
        for (size_t k = 0; k < l->events.n; k++) {
            const lock_event_t *e = &l->events.v[k];
            put_time(f, &ref, e->time);
            tfile_u16(f, (uint16_t)e->srcloc);
            tfile_u8(f, e->thread);
            tfile_u8(f, e->type);
        }
    }
}

static void write_messages(const model_t *m, const file_format_t *fmt, tfile_t *f)
{
    int64_t ref = 0;
    tfile_u64(f, m->message_order.n);
    for (size_t i = 0; i < m->message_order.n; i++) {
        const uint32_t id = m->message_order.v[i];
        const message_t *msg = &m->messages.v[id];
        tfile_u64(f, (uint64_t)id + 1);
        put_time(f, &ref, msg->time);
        put_stringref(f, msg->text, msg->text_ptr ? REF_PTR : REF_IDX);
        tfile_u32(f, msg->color);
        tfile_int24(f, msg->callstack);
        if (!fmt->msg_meta) continue;
        tfile_u8(f, msg->source);
        tfile_u8(f, msg->severity);
    }
}

static void write_zone_extras(const model_t *m, tfile_t *f)
{
    tfile_u64(f, m->zone_extras.n);
    for (size_t i = 0; i < m->zone_extras.n; i++) {
        const zone_extra_t *e = &m->zone_extras.v[i];
        tfile_int24(f, e->callstack);
        tfile_int24(f, e->text);
        tfile_int24(f, e->name);
        tfile_int24(f, e->color);
    }
}

/* ---- CPU zone timelines ------------------------------------------------------------ */

/* A thread's timeline in file order (file spec section 5.20), read from
 * its zone log in one pass: the log is already in depth-first order. */
static void write_timeline(const model_t *m, const thread_t *t, tfile_t *f)
{
    const uint32_t top = t->top_zones;
    size_t depth = 0;
    int64_t ref = 0;
    tfile_u32(f, top);
    zlog_reader_t r;
    zlog_rec_t rec = { 0 };
    zlog_reader_init(&r, t->log_head);
    while (zlog_next(&r, &rec)) {
        const int64_t time = model_time_kept(m, rec.time);
        if (rec.begin) {
            uint8_t spare[18], *b = tfile_room(f, sizeof spare);
            const int16_t sl = rec.srcloc;
            const int64_t d = sub_wrap(time, ref);
            if (!b) b = spare;
            memcpy(b, &sl, 2);
            memcpy(b + 2, &d, 8);
            memcpy(b + 10, &rec.extra, 4);
            memcpy(b + 14, &rec.nchild, 4);
            if (b == spare) tfile_write(f, spare, sizeof spare);
            ref = time;
            depth++;
        } else if (depth) {
            put_time(f, &ref, time);
            depth--;
        }
    }
    while (depth--) put_time(f, &ref, -1);   /* zones never ended */
}

/* A sample list (sorted by model_finish). */
static void write_samples(const sample_t *v, size_t n, tfile_t *f)
{
    int64_t ref = 0;
    tfile_u64(f, n);
    for (size_t i = 0; i < n; i++) {
        put_time(f, &ref, v[i].time);
        tfile_int24(f, v[i].callstack);
    }
}

/* Threads with their zones; their messages and samples unless stripped
 * (the kernel sample count stays, as upstream's loader keeps it). */
static void write_threads(const model_t *m, const file_format_t *fmt, unsigned strip, tfile_t *f)
{
    const bool messages = !(strip & STRIP_MESSAGES), samples = !(strip & STRIP_SAMPLES);
    tfile_u64(f, m->zone_count);
    tfile_u64(f, m->zone_parents);
    tfile_u64(f, m->nthreads);
    for (size_t i = 0; i < m->nthreads; i++) {
        const thread_t *t = m->threads[i];
        tfile_u64(f, t->id);
        tfile_u64(f, t->zone_count);
        tfile_u64(f, t->kernel_samples);
        tfile_u8(f, t->is_fiber);
        if (fmt->group_hint) tfile_u32(f, (uint32_t)t->group_hint);
        write_timeline(m, t, f);
        const size_t nmsg = messages ? t->messages.n : 0;
        tfile_u64(f, nmsg);
        for (size_t k = 0; k < nmsg; k++) tfile_u64(f, (uint64_t)t->messages.v[k] + 1);
        write_samples(t->ctx_switch_samples.v, samples ? t->ctx_switch_samples.n : 0, f);
        write_samples(t->samples.v, samples ? t->samples.n : 0, f);
    }
}

/* A GPU context's zones as children lists, from their parent links. */
typedef struct {
    const gpu_ctx_t *c;
    const uint32_t *first_child, *next_sibling;     /* 1-based, 0 = none */
    bool query_ids;             /* the format writes each zone's query id */
} gpu_tree_t;

/* One GPU timeline level: the sibling zones from `head` on. */
static void write_gpu_level(const gpu_tree_t *t, uint32_t head, int64_t *cpu_ref, int64_t *gpu_ref, tfile_t *f)
{
    const gpu_ctx_t *c = t->c;
    const uint32_t *next_sibling = t->next_sibling;
    uint64_t n = 0;
    for (uint32_t z = head; z; z = next_sibling[z - 1]) n++;
    tfile_u64(f, n);
    for (uint32_t z = head; z; z = next_sibling[z - 1]) {
        const gpu_zone_t *g = &c->zones.v[z - 1];
        put_time(f, cpu_ref, g->cpu_start);
        put_time(f, gpu_ref, g->gpu_start);
        tfile_u16(f, (uint16_t)g->srcloc);
        tfile_int24(f, g->callstack);
        tfile_u16(f, g->thread);
        write_gpu_level(t, t->first_child[z - 1], cpu_ref, gpu_ref, f);
        put_time(f, cpu_ref, g->cpu_end);
        put_time(f, gpu_ref, g->gpu_end);
        if (t->query_ids) tfile_u16(f, g->query_id);
    }
}

/* The notes of a context's queries, grouped by query id. */
static void write_gpu_notes(const gpu_ctx_t *c, tfile_t *f)
{
    uint64_t nq = 0;
    for (size_t i = 0; i < c->notes.n; i++) {
        bool first = true;
        for (size_t k = 0; k < i && first; k++) first = c->notes.v[k].query_id != c->notes.v[i].query_id;
        nq += first;
    }
    tfile_u64(f, nq);
    for (size_t i = 0; i < c->notes.n; i++) {
        bool first = true;
        for (size_t k = 0; k < i && first; k++) first = c->notes.v[k].query_id != c->notes.v[i].query_id;
        if (!first) continue;
        uint64_t cnt = 0;
        for (size_t k = i; k < c->notes.n; k++) cnt += c->notes.v[k].query_id == c->notes.v[i].query_id;
        tfile_u16(f, c->notes.v[i].query_id);
        tfile_u64(f, cnt);
        for (size_t k = i; k < c->notes.n; k++) {
            if (c->notes.v[k].query_id != c->notes.v[i].query_id) continue;
            tfile_i64(f, c->notes.v[k].note);
            tfile_f64(f, c->notes.v[k].value);
        }
    }
}

static void write_gpu_note_names(const gpu_ctx_t *c, tfile_t *f)
{
    tfile_u64(f, c->note_names.n);
    hmap_slot_t *notes = hmap_sorted(&c->note_names);
    for (size_t i = 0; i < c->note_names.n; i++) {
        tfile_i64(f, (int64_t)notes[i].key);
        tfile_int24(f, (uint32_t)notes[i].val);
    }
    free(notes);
}

static void write_gpu_context(const gpu_ctx_t *c, const file_format_t *fmt, tfile_t *f)
{
    tfile_u64(f, c->thread);
    tfile_u8(f, c->has_calibration);
    tfile_u64(f, c->count);
    tfile_write(f, &c->period, 4);
    tfile_u8(f, c->type);
    tfile_int24(f, c->name);
    tfile_u64(f, c->overflow);
    if (fmt->gpu_notes) write_gpu_note_names(c, f);
    /* Children lists from parent links, in begin order (1-based, 0 = none). */
    const size_t nz = c->zones.n;
    uint32_t *first_child = xcalloc(nz + 1, sizeof *first_child);
    uint32_t *next_sibling = xcalloc(nz + 1, sizeof *next_sibling);
    uint32_t *heads = xcalloc(c->timelines.n + 1, sizeof *heads);
    for (size_t i = nz; i-- > 0;) {
        const gpu_zone_t *g = &c->zones.v[i];
        uint32_t *head = g->parent < 0 ? &heads[g->timeline] : &first_child[g->parent];
        next_sibling[i] = *head;
        *head = (uint32_t)i + 1;
    }
    const gpu_tree_t tree = { c, first_child, next_sibling, fmt->gpu_notes };
    tfile_u64(f, c->timelines.n);
    for (size_t k = 0; k < c->timelines.n; k++) {
        int64_t cpu_ref = 0, gpu_ref = 0;
        tfile_u64(f, c->timelines.v[k].key);
        write_gpu_level(&tree, heads[k], &cpu_ref, &gpu_ref, f);
    }
    free(first_child);
    free(next_sibling);
    free(heads);
    if (fmt->gpu_notes) write_gpu_notes(c, f);
}

static void write_gpu(const model_t *m, const file_format_t *fmt, tfile_t *f)
{
    uint64_t total = 0, parents = 0;
    for (size_t i = 0; i < m->gpu_order.n; i++) {
        total += m->gpu_order.v[i]->count;
        parents += m->gpu_order.v[i]->zone_parents;
    }
    tfile_u64(f, total);
    tfile_u64(f, parents);
    tfile_u64(f, m->gpu_order.n);
    for (size_t i = 0; i < m->gpu_order.n; i++) write_gpu_context(m->gpu_order.v[i], fmt, f);
}

static void write_plots(const model_t *m, tfile_t *f)
{
    tfile_u64(f, m->plot_disc.order.n);
    for (size_t i = 0; i < m->plot_disc.order.n; i++) {
        const plot_t *p = m->plots[m->plot_disc.order.v[i]];
        tfile_u8(f, p->type);
        tfile_u8(f, p->format);
        tfile_u8(f, p->show_steps);
        tfile_u8(f, p->fill);
        tfile_u32(f, p->color);
        tfile_u64(f, p->name);
        tfile_f64(f, p->min);
        tfile_f64(f, p->max);
        tfile_f64(f, p->sum);
        int64_t ref = 0;
        tfile_u64(f, p->points.n);
        for (size_t k = 0; k < p->points.n; k++) {
            put_time(f, &ref, p->points.v[k].time);
            tfile_f64(f, p->points.v[k].val);
        }
    }
}

static void write_pool(const mem_pool_t *p, tfile_t *f)
{
    tfile_u64(f, p->name);
    const uint64_t n = memlog_count(&p->events);
    tfile_u64(f, n);
    tfile_u64(f, n - p->freed);
    tfile_u64(f, p->freed);
    int64_t ref = 0;
    memlog_reader_t r;
    mem_event_t ev;
    const mem_event_t *e = &ev;
    memlog_reader_init(&r, &p->events);
    /* One 42-byte record per event, built in place (tfile_room). */
    uint8_t spare[42];
    while (memlog_next(&r, &ev)) {
        const int64_t dt = sub_wrap(e->time_alloc, ref), life = e->time_free < 0 ? e->time_free : sub_wrap(e->time_free, e->time_alloc);
        ref = e->time_alloc;
        uint8_t *rec = tfile_room(f, sizeof spare);
        if (!rec) rec = spare;
        memcpy(rec, &e->ptr, 8);
        memcpy(rec + 8, &e->size, 8);
        memcpy(rec + 16, &e->cs_alloc, 3);   /* int24: the low 3 bytes (little-endian) */
        memcpy(rec + 19, &e->cs_free, 3);
        memcpy(rec + 22, &dt, 8);
        memcpy(rec + 30, &life, 8);
        memcpy(rec + 38, &e->thread_alloc, 2);
        memcpy(rec + 40, &e->thread_free, 2);
        if (rec == spare) tfile_write(f, spare, sizeof spare);
    }
    tfile_u64(f, p->high);
    tfile_u64(f, p->low);
    tfile_u64(f, p->usage);
    tfile_u64(f, p->name);
}

/* Memory pools, at least the default one: without memory (--strip M),
 * that one empty, as in a capture without memory events. (tracy-update -s M
 * writes no pool at all, which leaves the loader's default pool pointer
 * unset: tracy-file-0.14.md section 5.23.) */
static void write_memory(const model_t *m, bool memory, tfile_t *f)
{
    uint64_t total = 0;
    for (size_t i = 0; i < m->pools.n; i++) total += memlog_count(&m->pools.v[i].events);
    if (m->pools.n == 0 || !memory) {
        /* The default pool is always present. */
        mem_pool_t def = { .name = 0, .low = UINT64_MAX };
        tfile_u64(f, 1);
        tfile_u64(f, 0);
        write_pool(&def, f);
        return;
    }
    tfile_u64(f, m->pools.n);
    tfile_u64(f, total);
    for (size_t i = 0; i < m->pools.n; i++) write_pool(&m->pools.v[i], f);
}

static void write_callstacks(const model_t *m, tfile_t *f)
{
    tfile_u64(f, m->callstacks.n - 1);
    for (size_t i = 1; i < m->callstacks.n; i++) {
        const uint64_t *cs = m->callstacks.v[i];
        tfile_u16(f, (uint16_t)cs[0]);
        tfile_write(f, cs + 1, cs[0] * 8);
    }
    tfile_u64(f, m->frame_data.n);
    for (size_t i = 0; i < m->frame_data.n; i++) {
        const cs_frame_data_t *fd = &m->frame_data.v[i];
        tfile_u64(f, fd->id);
        tfile_u8(f, fd->size);
        tfile_int24(f, fd->image);
        for (uint8_t k = 0; k < fd->size; k++) {
            const cs_frame_t *fr = &fd->frames[k];
            tfile_int24(f, fr->name + 1);
            tfile_int24(f, fr->file + 1);
            tfile_u32(f, fr->line);
            tfile_u64(f, fr->sym_addr);
        }
    }
}

static void write_app_info_and_images(const model_t *m, bool images, tfile_t *f)
{
    tfile_u64(f, m->app_info.n);
    for (size_t i = 0; i < m->app_info.n; i++) put_stringref(f, m->app_info.v[i], REF_IDX);
    tfile_u32(f, 0);   /* no zstd dictionary */
    const size_t n = images ? m->images.n : 0;
    tfile_u64(f, n);
    for (size_t i = 0; i < n; i++) {
        const frame_image_t *img = &m->images.v[i];
        tfile_u16(f, img->w);
        tfile_u16(f, img->h);
        tfile_u8(f, img->flip);
        /* w*h/2 bytes of DXT1; the model keeps no image with less data */
        put_blob(f, img->data, (size_t)img->w * img->h / 2);
    }
}

/* Whether a thread's context switches are saved: upstream saves those of
 * threads with zones or samples (the samples it kept: none with --strip s). */
static bool switches_saved(const model_t *m, uint64_t thread, bool samples)
{
    const thread_t *t = model_find_thread(m, thread);
    return t && (t->zone_count > 0 || (samples && t->samples.n > 0));
}

/* Context switches, per thread and per CPU (none with --strip c), then the
 * thread-to-process map and CPU statistics, which upstream keeps. */
static void write_scheduling(const model_t *m, const file_format_t *fmt, unsigned strip, tfile_t *f)
{
    const bool switches = !(strip & STRIP_CONTEXT_SWITCHES), samples = !(strip & STRIP_SAMPLES);
    uint64_t n = 0;
    for (size_t i = 0; i < m->switches.n && switches; i++) n += switches_saved(m, m->switches.v[i].thread, samples);
    tfile_u64(f, n);
    for (size_t i = 0; i < m->switches.n && switches; i++) {
        const thread_switches_t *ts = &m->switches.v[i];
        if (!switches_saved(m, ts->thread, samples)) continue;
        tfile_u64(f, ts->thread);
        tfile_u64(f, ts->v.n);
        int64_t ref = 0;
        for (size_t k = 0; k < ts->v.n; k++) {
            const ctx_switch_t *c = &ts->v.v[k];
            put_time(f, &ref, c->wakeup);
            put_time(f, &ref, c->start);
            put_time(f, &ref, c->end);
            tfile_u8(f, c->cpu);
            tfile_u8(f, (uint8_t)c->reason);
            tfile_u8(f, (uint8_t)c->state);
            tfile_u64(f, c->thread);
            if (fmt->wakeup_cpu) tfile_u8(f, c->wakeup_cpu);
        }
    }
    uint64_t total = 0;
    for (int i = 0; i < 256 && switches; i++) total += m->cpu_switches[i].n;
    tfile_u64(f, total);
    for (int i = 0; i < 256; i++) {
        const size_t ncpu = switches ? m->cpu_switches[i].n : 0;
        tfile_u64(f, ncpu);
        int64_t ref = 0;
        for (size_t k = 0; k < ncpu; k++) {
            put_time(f, &ref, m->cpu_switches[i].v[k].start);
            put_time(f, &ref, m->cpu_switches[i].v[k].end);
            tfile_u16(f, m->cpu_switches[i].v[k].thread);
        }
    }
    write_pairs(&m->tid_to_pid, f);
    tfile_u64(f, m->cpu_stats.n);
    for (size_t i = 0; i < m->cpu_stats.n; i++) {
        tfile_u64(f, m->cpu_stats_threads.v[i]);
        tfile_i64(f, m->cpu_stats.v[i].running_time);
        tfile_u32(f, m->cpu_stats.v[i].regions);
        tfile_u32(f, m->cpu_stats.v[i].migrations);
    }
}

static void write_hw_samples(const model_t *m, tfile_t *f)
{
    tfile_u64(f, m->hw.n);
    for (size_t i = 0; i < m->hw.n; i++) {
        const hw_samples_t *h = &m->hw.v[i];
        tfile_u64(f, h->ip);
        for (int k = 0; k < 6; k++) {
            int64_t ref = 0;
            tfile_u64(f, h->v[k].n);
            for (size_t j = 0; j < h->v[k].n; j++) put_time(f, &ref, h->v[k].v[j]);
        }
    }
}

/* Symbols, their code (none with --strip C; the code-to-symbol map
 * stays, as upstream keeps it) and hardware samples. */
static void write_symbols(const model_t *m, bool code, tfile_t *f)
{
    uint64_t inl = 0;
    for (size_t i = 0; i < m->symbols.n; i++) inl += m->symbols.v[i].is_inline;
    tfile_u64(f, m->symbols.n - inl);
    tfile_u64(f, inl + 1);
    tfile_u64(f, m->symbols.n);
    for (size_t i = 0; i < m->symbols.n; i++) {
        const symbol_t *s = &m->symbols.v[i];
        tfile_u64(f, m->symbol_addrs.v[i]);
        tfile_int24(f, s->name);
        tfile_int24(f, s->file);
        tfile_u32(f, s->line);
        tfile_int24(f, s->image);
        tfile_int24(f, s->call_file);
        tfile_u32(f, s->call_line);
        tfile_u8(f, s->is_inline);
        tfile_int24(f, s->size);
    }
    const size_t ncode = code ? m->symbol_code.n : 0;
    tfile_u64(f, ncode);
    for (size_t i = 0; i < ncode; i++) {
        tfile_u64(f, m->symbol_code_addrs.v[i]);
        tfile_u32(f, (uint32_t)m->symbol_code.v[i].n);
        put_blob(f, m->symbol_code.v[i].p, m->symbol_code.v[i].n);
    }
    write_pairs(&m->code_symbol_map, f);
    write_hw_samples(m, f);
}

static void write_source_files(const model_t *m, bool sources, tfile_t *f)
{
    const size_t n = sources ? m->source_names.n : 0;
    tfile_u64(f, n);
    for (size_t i = 0; i < n; i++) {
        const char *name = strtab_get(&m->strings, m->source_names.v[i]);
        uint32_t len = (uint32_t)strlen(name);
        tfile_u32(f, len);
        tfile_write(f, name, len);
        tfile_u32(f, (uint32_t)m->source_data.v[i].n);
        put_blob(f, m->source_data.v[i].p, m->source_data.v[i].n);
    }
}

void writer_write_payload(const model_t *m, const file_format_t *fmt, unsigned strip, tfile_t *f)
{
    /* the model must have been finished (model_finish): lists sorted, as
     * every release's loader expects */
    write_capture_info(m, fmt, f);
    write_topology(m, fmt, f);
    write_crash(m, f);
    write_frames(m, !(strip & STRIP_FRAME_IMAGES), f);
    if (fmt->sections) write_sections(m, f);
    write_strings(m, f);
    write_thread_tables(m, f);
    write_source_locations(m, f);
    if (strip & STRIP_LOCKS) tfile_u64(f, 0);
    else write_locks(m, f);
    if (strip & STRIP_MESSAGES) tfile_u64(f, 0);
    else write_messages(m, fmt, f);
    write_zone_extras(m, f);
    write_threads(m, fmt, strip, f);
    write_gpu(m, fmt, f);
    if (strip & STRIP_PLOTS) tfile_u64(f, 0);
    else write_plots(m, f);
    write_memory(m, !(strip & STRIP_MEMORY), f);
    write_callstacks(m, f);
    write_app_info_and_images(m, !(strip & STRIP_FRAME_IMAGES), f);
    write_scheduling(m, fmt, strip, f);
    write_symbols(m, !(strip & STRIP_SYMBOL_CODE), f);
    write_source_files(m, !(strip & STRIP_SOURCE_CACHE), f);
}

void writer_write_trace(const model_t *m, const file_format_t *fmt, tfile_t *f)
{
    writer_write_payload(m, fmt, 0, f);
}

/* ---- saving ----------------------------------------------------------------------------- */

/* The file the trace is written to before it takes its name. Where the
 * file system allows, it has no name at all (O_TMPFILE) until it is
 * complete, so a process killed while saving leaves nothing behind;
 * elsewhere it is a named temporary beside the output (*named set). */
static int open_unfinished(const char *path, char *tmp, bool *named)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd;
#ifdef O_TMPFILE
    fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd >= 0) {
        /* naming it later goes through /proc: without /proc, use a name now */
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        if (access(proc, F_OK) == 0) {
            *named = false;
            return fd;
        }
        close(fd);
    }
#endif
    fd = mkstemp(tmp);
    if (fd < 0) return -1;
    *named = true;
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    return fd;
}

/* Give the finished unnamed file fd the temporary name tmp (a fresh one
 * if taken), so that rename() can put it in place. */
static int name_finished(int fd, char *tmp, size_t len)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    for (int tries = 0; tries < 100; tries++) {
        snprintf(tmp + len, 16, ".tmp.%06x", (unsigned)(rand() ^ (tries * 0x9E37)) & 0xFFFFFF);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0) return 0;
        if (errno != EEXIST) return -1;
    }
    return -1;
}

/* An error that says "this file system (or sandbox) cannot do that",
 * as opposed to one about the names involved. */
static bool unsupported(int e)
{
    return e == EINVAL || e == ENOSYS || e == EPERM || e == EOPNOTSUPP || e == ENOTSUP;
}

/* Give the finished file tmp the name path unless something took that
 * name meanwhile (-1 with EEXIST). The kernel does it in one step where it
 * can (renameat2 RENAME_NOREPLACE); elsewhere a hard link, which fails on
 * an existing name too; where neither is supported, a look and a rename. */
int place_without_replacing(const char *tmp, const char *path)
{
#ifdef HAVE_RENAMEAT2
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0) return 0;
    if (!unsupported(errno)) return -1;
#endif
    if (link(tmp, path) == 0) {
        unlink(tmp);            /* the trace is in place either way */
        return 0;
    }
    if (!unsupported(errno)) return -1;
    struct stat st;
    if (lstat(path, &st) == 0) {
        errno = EEXIST;
        return -1;
    }
    if (errno != ENOENT) return -1;
    return rename(tmp, path);
}

/* The output's name was taken during the capture, and it is not ours to
 * replace: the finished trace goes to the first free name NAME-1.tracy,
 * NAME-2.tracy... beside it (PATH-1, PATH-2... if the output does not end
 * in .tracy), said in s->saved_as. On failure, s->err says why and that
 * the trace is left in tmp. */
static int place_beside(const char *tmp, const char *path, save_opts_t *s)
{
    const size_t len = strlen(path), ext = strlen(".tracy");
    const bool dotted = len > ext && strcmp(path + len - ext, ".tracy") == 0 && path[len - ext - 1] != '/';
    const int stem = (int)(dotted ? len - ext : len);
    int err = EEXIST;
    for (int n = 1; n < 1000 && err == EEXIST; n++) {
        snprintf(s->saved_as, sizeof s->saved_as, "%.*s-%d%s", stem, path, n, dotted ? ".tracy" : "");
        if (place_without_replacing(tmp, s->saved_as) == 0) return 0;
        err = errno;
    }
    if (err == EEXIST)
        snprintf(s->err, sizeof s->err, "%s appeared during the capture, and the names up to %s are taken too: "
                 "the trace is left in %s", path, s->saved_as, tmp);
    else
        snprintf(s->err, sizeof s->err, "%s appeared during the capture, and saving the trace as %s failed (%s): "
                 "it is left in %s", path, s->saved_as, strerror(err), tmp);
    s->saved_as[0] = 0;
    return -1;
}

/* The trace into fp in format fmt as s says, compressed in `streams`
 * streams (one in a legacy container); 0, or -1 with tf->err and
 * tf->err_what saying what failed. */
static int write_container(const model_t *m, const file_format_t *fmt, FILE *fp, const save_opts_t *s,
                           int streams, tfile_t *tf)
{
    const int one = streams < 1 ? 1 : streams;
    /* The daemon's saves (this_thread) share the cores with other
     * clients' decoding, and a save that waits for its disk leaves its
     * core to them: they write around the page cache, and take a second
     * thread only while the pool has one idle. */
    const tfile_params_t p = { .codec = s->codec, .level = s->level, .streams = streams, .legacy = fmt->legacy,
                               .workers = s->this_thread ? 0 : tfile_workers_for(fmt->legacy ? 1 : one),
                               .direct = s->this_thread, .spare = s->spare };
    if (tfile_open_with(tf, fp, &p) < 0) {
        tf->err = errno;
        tf->err_what = "opening the file";
        return -1;
    }
    writer_write_payload(m, fmt, s->strip, tf);
    return tfile_close(tf);
}

/* Start a regular file over: empty, written from its start. */
static bool start_over(FILE *fp)
{
    return fflush(fp) == 0 && ftruncate(fileno(fp), 0) == 0 && fseeko(fp, 0, SEEK_SET) == 0;
}

/* Write the whole trace into fp (regular: a file of our own, which is
 * then synced to the disk); 0, or -1 with tf->err and tf->err_what saying
 * what failed. Compressors that ran out of memory (ulimit -v) leave a
 * regular file to be written once more with one stream and no threads,
 * which need the least (s->one_stream says so). */
static int write_file(const model_t *m, FILE *fp, save_opts_t *s, bool regular, tfile_t *tf)
{
    const file_format_t *fmt = s->format ? s->format : file_format_default();
    int err = write_container(m, fmt, fp, s, s->streams, tf);
    if (err && tf->err == ENOMEM && regular && s->streams != 0 && start_over(fp)) {
        err = write_container(m, fmt, fp, s, 0, tf);
        s->one_stream = err == 0;
    }
    if (err == 0 && (fflush(fp) != 0 || (regular && fsync(fileno(fp)) != 0))) {
        tf->err = errno;
        tf->err_what = "flushing the file";
        err = -1;
    }
    return err;
}

/* What failed in writing `file`, into s->err: memory that ran out (a
 * compressor's, under ulimit -v) is said as such, with the limit. */
static void say_write_failure(save_opts_t *s, const tfile_t *tf, const char *file)
{
    char why[160];
    if (tf->err == ENOMEM)
        snprintf(s->err, sizeof s->err, "memory ran out while %s for %s: %s", tf->err_what, file,
                 strerror_limit(tf->err, why, sizeof why));
    else
        snprintf(s->err, sizeof s->err, "%s failed for %s: %s", tf->err_what, file, strerror(tf->err));
}

/* A device or FIFO at the output (-f): written in place, as
 * upstream's capture does (-o /dev/null discards); no temporary file, and
 * no rename over it. */
static int save_in_place(const model_t *m, const char *path, save_opts_t *s)
{
    const int fd = open(path, O_WRONLY | O_CLOEXEC);
    FILE *fp = fd < 0 ? NULL : fdopen(fd, "wb");
    if (!fp) {
        snprintf(s->err, sizeof s->err, "cannot open %s: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    tfile_t tf = {0};
    int err = write_file(m, fp, s, false, &tf);
    if (fclose(fp) != 0 && err == 0) {
        tf.err = errno;
        tf.err_what = "closing the file";
        err = -1;
    }
    if (err) {
        say_write_failure(s, &tf, path);
        return -1;
    }
    snprintf(s->saved_as, sizeof s->saved_as, "%s", path);
    s->file_bytes = tf.file_bytes;
    s->payload_bytes = tf.payload_bytes;
    return 0;
}

/* Write to a temporary file beside path, then give it the name. */
static int save_beside_and_rename(const model_t *m, const char *path, save_opts_t *s)
{
    size_t len = strlen(path);
    char *tmp = xmalloc(len + 16);
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    bool named;
    int fd = open_unfinished(path, tmp, &named);
    if (fd < 0) {
        snprintf(s->err, sizeof s->err, "cannot create a temporary file beside %s: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    if (named && s->tmp_path) *s->tmp_path = tmp;
    const char *what = named ? tmp : "the temporary file";
    FILE *fp = fdopen(fd, "wb");
    tfile_t tf = {0};
    int rc = -1;
    if (!fp) {
        snprintf(s->err, sizeof s->err, "cannot write %s: %s", what, strerror(errno));
        close(fd);
        if (named) unlink(tmp);
        goto out;
    }
    int cerr = write_file(m, fp, s, true, &tf);
    if (cerr == 0 && !named) {
        if (name_finished(fileno(fp), tmp, len) != 0) {
            tf.err = errno;
            tf.err_what = "naming the finished file";
            cerr = -1;
        } else {
            named = true;
            if (s->tmp_path) *s->tmp_path = tmp;
        }
    }
    if (fclose(fp) != 0 && cerr == 0) {
        tf.err = errno;
        tf.err_what = "closing the file";
        cerr = -1;
    }
    if (cerr) {
        say_write_failure(s, &tf, named ? tmp : what);
        if (named) unlink(tmp);
        goto out;
    }
    if (s->replace ? rename(tmp, path) : place_without_replacing(tmp, path)) {
        if (!s->replace && errno == EEXIST) {
            rc = place_beside(tmp, path, s) == 0 ? 1 : -1;
            goto done;
        }
        /* the finished trace stays where it is, named in the message */
        snprintf(s->err, sizeof s->err, "cannot rename %s to %s: %s; the trace is left in %s", tmp, path,
                 strerror(errno), tmp);
        goto out;
    }
    snprintf(s->saved_as, sizeof s->saved_as, "%s", path);
    rc = 0;
done:
    s->file_bytes = tf.file_bytes;
    s->payload_bytes = tf.payload_bytes;
out:
    if (s->tmp_path) *s->tmp_path = NULL;
    free(tmp);
    return rc;
}

bool writer_writes_in_place(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode));
}

int writer_save(const model_t *m, const char *path, save_opts_t *s)
{
    if (s->replace && writer_writes_in_place(path)) return save_in_place(m, path, s);
    return save_beside_and_rename(m, path, s);
}
