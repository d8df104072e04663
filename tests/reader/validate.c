/* validate: the list of consistency checks run on a loaded model (see
 * validate.h).  Each check is a small function; CHECKS[] at the bottom is
 * the complete list, in section order. */
#include "validate.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tfload.h"

typedef struct vctx {
    const tf_model *m;
    FILE *report;
    long max_reports;
    long count;
    int oom;
} vctx;

static void violation(vctx *v, int section, const char *fmt, ...)
{
    v->count++;
    if (v->count > v->max_reports)
        return;
    fprintf(v->report, "validation: section %d (%s): ", section, load_section_name(section));
    va_list ap;
    va_start(ap, fmt);
    vfprintf(v->report, fmt, ap);
    va_end(ap);
    fputc('\n', v->report);
}

/* ---- shared predicates --------------------------------------------------- */

/* Times upstream keeps in 48-bit fields (tracy-file-0.14.md part 4). */
#define TIME48_MAX ((INT64_C(1) << 47) - 1)

static int time48_ok(int64_t t)
{
    return t >= -TIME48_MAX && t <= TIME48_MAX;
}

/* The deepest zone nesting a file may hold: upstream's loader reads the
 * zone tree recursively (Worker::ReadTimeline, about 136 bytes of stack
 * per level in a -O2 build: some 60,000 levels in 8 MB, 7,000 in the 1 MB
 * of a Windows or WebAssembly thread); tracy-capture drops zones deeper
 * than this. */
#define ZONE_DEPTH_MAX 4000

static int sidx_ok(const tf_model *m, uint32_t sidx)
{
    return sidx == 0 || sidx <= m->string_count;
}

static int callstack_ok(const tf_model *m, uint32_t cs)
{
    return cs <= m->callstack_count;
}

static int strref_ok(const tf_model *m, tf_strref r)
{
    if (r.flags == 0)
        return r.value == 0;
    if (r.flags == TF_REF_ACTIVE)
        return 1;
    if (r.flags == (TF_REF_ACTIVE | TF_REF_IDX))
        return r.value < m->string_count;
    return 0;
}

/* A source-location id that a zone, lock or GPU zone may use. */
static int srcloc_id_ok(const tf_model *m, int16_t id)
{
    return id != 0 && tf_model_srcloc(m, id) != NULL;
}

/* Insert key into a set; reports duplicates (returns 0) and OOM (-1). */
static int set_add(vctx *v, rhorder *set, uint64_t key)
{
    int rc = rhorder_insert(set, key, 0);
    if (rc < 0)
        v->oom = 1;
    return rc;
}

static void check_srcloc_strings(vctx *v, int section, const char *what, size_t i, const tf_srcloc *s)
{
    if (!strref_ok(v->m, s->name) || !strref_ok(v->m, s->function) || !strref_ok(v->m, s->file))
        violation(v, section, "%s %zu: bad string reference (flags %u/%u/%u)", what, i, s->name.flags,
                  s->function.flags, s->file.flags);
}

/* ---- §5.1 .. §5.6 -------------------------------------------------------- */

static void check_capture_strings(vctx *v)
{
    const tf_model *m = v->m;
    if (m->capture_name_len >= 1024 || m->capture_program_len >= 1024 || m->host_info_len >= 1024)
        violation(v, 1, "capture name/program/host info must be shorter than 1024 bytes "
                        "(%" PRIu64 "/%" PRIu64 "/%" PRIu64 ")",
                  m->capture_name_len, m->capture_program_len, m->host_info_len);
}

/* Report the first of arr[0..n) whose time `field` does not fit in 48 bits. */
#define CHECK_TIMES(v, section, what, arr, n, field)                                                      \
    do {                                                                                                  \
        for (size_t k_ = 0; k_ < (n); k_++)                                                               \
            if (!time48_ok((arr)[k_].field)) {                                                            \
                violation(v, section, "%s %zu: time %" PRId64 " does not fit in 48 bits", what, k_,     \
                          (int64_t)(arr)[k_].field);                                                      \
                break;                                                                                    \
            }                                                                                             \
    } while (0)

/* Times outside 48 bits: upstream's readers wrap them (zone and GPU zone
 * times fail the load already). */
static void check_times(vctx *v)
{
    const tf_model *m = v->m;
    if (m->resolution < 0 || m->resolution > TIME48_MAX)
        violation(v, 1, "timer resolution %" PRId64 " is not within 0..2^47", m->resolution);
    if (!time48_ok(m->last_time))
        violation(v, 1, "last time %" PRId64 " does not fit in 48 bits", m->last_time);
    CHECK_TIMES(v, 3, "crash", &m->crash, 1, time);
    for (size_t i = 0; i < m->frameset_count; i++) {
        CHECK_TIMES(v, 4, "frame start", m->framesets[i].frames, m->framesets[i].count, start);
        CHECK_TIMES(v, 4, "frame end", m->framesets[i].frames, m->framesets[i].count, end);
    }
    CHECK_TIMES(v, 17, "lock announce", m->locks, m->lock_count, announce);
    CHECK_TIMES(v, 17, "lock terminate", m->locks, m->lock_count, terminate);
    for (size_t i = 0; i < m->lock_count; i++)
        CHECK_TIMES(v, 17, "lock event", m->locks[i].events, m->locks[i].event_count, time);
    CHECK_TIMES(v, 18, "message", m->messages, m->message_count, time);
    for (size_t i = 0; i < m->thread_count; i++) {
        CHECK_TIMES(v, 20, "sample", m->threads[i].samples, m->threads[i].sample_count, time);
        CHECK_TIMES(v, 20, "context switch sample", m->threads[i].ctx_samples, m->threads[i].ctx_sample_count, time);
    }
    for (size_t i = 0; i < m->plot_count; i++)
        CHECK_TIMES(v, 22, "plot point", m->plots[i].points, m->plots[i].count, time);
    for (size_t i = 0; i < m->pool_count; i++)
        CHECK_TIMES(v, 23, "memory event", m->pools[i].events, m->pools[i].count, time_alloc);
    for (size_t i = 0; i < m->ctx_thread_count; i++) {
        CHECK_TIMES(v, 28, "context switch start", m->ctx_threads[i].records, m->ctx_threads[i].count, start);
        CHECK_TIMES(v, 28, "context switch end", m->ctx_threads[i].records, m->ctx_threads[i].count, end);
    }
    for (int i = 0; i < 256; i++)
        CHECK_TIMES(v, 29, "CPU context switch", m->cpu_switches[i].records, m->cpu_switches[i].count, start);
}

static void check_crash_event(vctx *v)
{
    if (!callstack_ok(v->m, v->m->crash.callstack))
        violation(v, 3, "crash callstack %u out of range", v->m->crash.callstack);
}

static void check_frame_set_order(vctx *v, size_t s, const tf_frameset *fs)
{
    for (size_t i = 0; i < fs->count; i++) {
        const tf_frame *f = &fs->frames[i];
        if (i > 0 && f->start < fs->frames[i - 1].start) {
            violation(v, 4, "frame set %zu frame %zu: start %" PRId64 " before previous frame", s, i, f->start);
            return;
        }
        if (!fs->continuous && f->end >= 0 && f->end < f->start) {
            violation(v, 4, "frame set %zu frame %zu: end before start", s, i);
            return;
        }
        if (!fs->continuous && f->end < 0 && i + 1 != fs->count) {
            violation(v, 4, "frame set %zu frame %zu: unfinished frame is not the last one", s, i);
            return;
        }
    }
}

static void check_frame_sets(vctx *v)
{
    const tf_model *m = v->m;
    if (m->frameset_count == 0 || m->framesets[0].name != 0) {
        violation(v, 4, "the first frame set must be the base set (name 0)");
        return;
    }
    for (size_t s = 0; s < m->frameset_count; s++)
        check_frame_set_order(v, s, &m->framesets[s]);
}

static void check_frame_images(vctx *v)
{
    const tf_model *m = v->m;
    for (size_t s = 0; s < m->frameset_count; s++) {
        const tf_frameset *fs = &m->framesets[s];
        for (size_t i = 0; i < fs->count; i++) {
            int32_t img = fs->frames[i].image;
            int bad = s == 0 ? img != -1 && (img < 0 || (size_t)img >= m->frame_image_count) : img != -1;
            if (bad) {
                violation(v, 4, "frame set %zu frame %zu: frame image %d invalid", s, i, img);
                return;
            }
        }
    }
    for (size_t i = 0; i < m->frame_image_count; i++)
        if (m->frame_images[i].w % 4 || m->frame_images[i].h % 4)
            violation(v, 27, "frame image %zu: size %ux%u not a multiple of 4", i, m->frame_images[i].w,
                      m->frame_images[i].h);
}

static void check_sections(vctx *v)
{
    const tf_model *m = v->m;
    rhorder described;
    rhorder_init(&described);
    for (size_t i = 0; i < m->section_desc_count; i++) {
        if (set_add(v, &described, m->section_descs[i].category) == 0)
            violation(v, 5, "description %zu: duplicate category %u", i, m->section_descs[i].category);
        if (!sidx_ok(m, m->section_descs[i].text_sidx))
            violation(v, 5, "description %zu: string index out of range", i);
    }
    for (size_t i = 0; i < m->section_count; i++) {
        const tf_section_cat *c = &m->sections[i];
        if (c->count > 0 && !rhorder_find(&described, c->category))
            violation(v, 5, "category %u has items but no description", c->category);
        for (size_t j = 0; j < c->count; j++)
            if (!sidx_ok(m, c->items[j].text_sidx)) {
                violation(v, 5, "category %u item %zu: string index out of range", c->category, j);
                break;
            }
    }
    rhorder_free(&described);
}

static void check_string_ids(vctx *v)
{
    const tf_model *m = v->m;
    rhorder ids;
    rhorder_init(&ids);
    for (size_t i = 0; i < m->string_count; i++) {
        if (set_add(v, &ids, m->strings[i].id) == 0)
            violation(v, 6, "string %zu: duplicate id 0x%" PRIx64, i, m->strings[i].id);
        if (strlen(tf_model_string_at(m, i)) != m->strings[i].len)
            violation(v, 6, "string %zu: contains a NUL byte", i);
    }
    rhorder_free(&ids);
}

/* ---- §5.10 .. §5.16 ------------------------------------------------------ */

static void check_local_thread_table(vctx *v)
{
    const tf_model *m = v->m;
    if (m->local_thread_count == 0 || m->local_threads[0] != 0)
        violation(v, 10, "entry 0 must be the placeholder thread id 0");
}

static void check_static_srclocs(vctx *v)
{
    const tf_model *m = v->m;
    rhorder keys;
    rhorder_init(&keys);
    for (size_t i = 0; i < m->static_srcloc_count; i++) {
        if (set_add(v, &keys, m->static_srclocs[i].addr) == 0)
            violation(v, 12, "entry %zu: duplicate address 0x%" PRIx64, i, m->static_srclocs[i].addr);
        check_srcloc_strings(v, 12, "entry", i, &m->static_srclocs[i].loc);
    }
    rhorder_free(&keys);
}

static void check_expand_table(vctx *v)
{
    const tf_model *m = v->m;
    if (m->expand_count == 0 || m->expand[0] != 0)
        violation(v, 13, "entry 0 must be the placeholder 0");
    if (m->expand_count > INT16_MAX)
        violation(v, 13, "%zu entries, more than ids can address", m->expand_count);
    for (size_t i = 1; i < m->expand_count; i++)
        if (!rhorder_find(&m->static_by_addr, m->expand[i]))
            violation(v, 13, "entry %zu: address 0x%" PRIx64 " not in the static source locations", i,
                      m->expand[i]);
}

static void check_payload_srclocs(vctx *v)
{
    for (size_t i = 0; i < v->m->payload_srcloc_count; i++)
        check_srcloc_strings(v, 14, "entry", i, &v->m->payload_srclocs[i]);
}

static void check_zone_count_list(vctx *v, int section, const tf_zone_count *list, size_t n)
{
    rhorder ids;
    rhorder_init(&ids);
    for (size_t i = 0; i < n; i++) {
        if (set_add(v, &ids, rhorder_key_i16(list[i].id)) == 0)
            violation(v, section, "entry %zu: duplicate source-location id %d", i, list[i].id);
        if (!srcloc_id_ok(v->m, list[i].id))
            violation(v, section, "entry %zu: source-location id %d does not resolve", i, list[i].id);
    }
    rhorder_free(&ids);
}

static void check_cpu_zone_counts(vctx *v)
{
    check_zone_count_list(v, 15, v->m->cpu_counts, v->m->cpu_count_count);
}

static void check_gpu_zone_counts(vctx *v)
{
    check_zone_count_list(v, 16, v->m->gpu_counts, v->m->gpu_count_count);
}

/* ---- §5.17 .. §5.19 ------------------------------------------------------ */

static void check_lock_events(vctx *v, const tf_lock *k)
{
    unsigned max_type = k->type == 0 ? 2 : 5;
    for (size_t j = 0; j < k->event_count; j++) {
        const tf_lock_event *e = &k->events[j];
        if (e->thread >= k->thread_count || e->type > max_type ||
            (e->srcloc != 0 && !srcloc_id_ok(v->m, e->srcloc)) ||
            (j > 0 && e->time < k->events[j - 1].time)) {
            violation(v, 17, "lock %u event %zu: bad thread %u, type %u, srcloc %d or time order", k->id, j,
                      e->thread, e->type, e->srcloc);
            return;
        }
    }
}

static void check_locks(vctx *v)
{
    const tf_model *m = v->m;
    rhorder ids;
    rhorder_init(&ids);
    for (size_t i = 0; i < m->lock_count; i++) {
        const tf_lock *k = &m->locks[i];
        if (set_add(v, &ids, k->id) == 0)
            violation(v, 17, "lock %zu: duplicate id %u", i, k->id);
        if (k->type > 1 || k->thread_count > 64 || !srcloc_id_ok(m, k->srcloc) || !sidx_ok(m, k->name_sidx))
            violation(v, 17, "lock %u: bad type %u, thread count %zu, srcloc %d or name", k->id, k->type,
                      k->thread_count, k->srcloc);
        check_lock_events(v, k);
    }
    rhorder_free(&ids);
}

static void check_messages(vctx *v)
{
    const tf_model *m = v->m;
    rhorder ids;
    rhorder_init(&ids);
    for (size_t i = 0; i < m->message_count; i++) {
        const tf_message *g = &m->messages[i];
        if (set_add(v, &ids, g->id) == 0)
            violation(v, 18, "message %zu: duplicate id 0x%" PRIx64, i, g->id);
        if (!strref_ok(m, g->text) || g->text.flags == 0 || !callstack_ok(m, g->callstack))
            violation(v, 18, "message %zu: bad text reference or callstack", i);
        if (i > 0 && g->time < m->messages[i - 1].time)
            violation(v, 18, "message %zu: time %" PRId64 " before previous message", i, g->time);
    }
    rhorder_free(&ids);
}

static void check_zone_extras(vctx *v)
{
    const tf_model *m = v->m;
    if (m->extra_count == 0) {
        violation(v, 19, "the table must hold at least the zero entry 0");
        return;
    }
    const tf_zone_extra *e0 = &m->extras[0];
    if (e0->callstack || e0->text_sidx || e0->name_sidx || e0->color)
        violation(v, 19, "entry 0 must be all zero");
    for (size_t i = 1; i < m->extra_count; i++) {
        const tf_zone_extra *e = &m->extras[i];
        if (!sidx_ok(m, e->text_sidx) || !sidx_ok(m, e->name_sidx) || !callstack_ok(m, e->callstack)) {
            violation(v, 19, "entry %zu: string index or callstack out of range", i);
            return;
        }
    }
}

/* ---- §5.20 ---------------------------------------------------------------- */

static void check_thread_messages(vctx *v)
{
    const tf_model *m = v->m;
    rhorder msg_index;          /* id -> message index */
    rhorder_init(&msg_index);
    unsigned char *seen = calloc(m->message_count + 1, 1);
    if (!seen) {
        v->oom = 1;
        return;
    }
    for (size_t i = 0; i < m->message_count; i++)
        if (rhorder_insert(&msg_index, m->messages[i].id, i) < 0)
            v->oom = 1;
    for (size_t t = 0; t < m->thread_count; t++) {
        const tf_thread *th = &m->threads[t];
        int64_t prev = INT64_MIN;
        for (size_t j = 0; j < th->msg_num; j++) {
            uint64_t id = m->thread_msg_ids[th->msg_first + j];
            const uint64_t *idx = rhorder_find(&msg_index, id);
            if (!idx) {
                violation(v, 20, "thread %" PRIu64 " message ref %zu: unknown id 0x%" PRIx64, th->id, j, id);
                continue;
            }
            if (seen[*idx]++)
                violation(v, 20, "thread %" PRIu64 ": message %" PRIu64 " referenced more than once", th->id, *idx);
            if (m->messages[*idx].time < prev)
                violation(v, 20, "thread %" PRIu64 " message ref %zu: not in time order", th->id, j);
            prev = m->messages[*idx].time;
        }
    }
    for (size_t i = 0; i < m->message_count; i++)
        if (!seen[i])
            violation(v, 18, "message %zu: not referenced by any thread", i);
    free(seen);
    rhorder_free(&msg_index);
}

static void check_thread_counts(vctx *v)
{
    const tf_model *m = v->m;
    rhorder ids;
    rhorder_init(&ids);
    uint64_t total = 0;
    for (size_t t = 0; t < m->thread_count; t++) {
        const tf_thread *th = &m->threads[t];
        if (set_add(v, &ids, th->id) == 0)
            violation(v, 20, "thread %zu: duplicate thread id %" PRIu64, t, th->id);
        if (th->zone_count != th->zone_num)
            violation(v, 20, "thread %" PRIu64 ": zoneCount %" PRIu64 " but %zu zones in its timeline", th->id,
                      th->zone_count, th->zone_num);
        total += th->zone_count;
    }
    if (total != m->total_zone_count)
        violation(v, 20, "total zone count %" PRIu64 " != sum of thread zone counts %" PRIu64,
                  m->total_zone_count, total);
    if (m->child_vector_count < m->zones_with_children)
        violation(v, 20, "childVectorCount %" PRIu64 " < %zu zones with children", m->child_vector_count,
                  m->zones_with_children);
    rhorder_free(&ids);
}

/* One zone against its srcloc list, extras and parent; 0 if fine. */
static int check_zone(vctx *v, const rhorder *listed, size_t i, size_t parent, size_t prev_sibling)
{
    const tf_model *m = v->m;
    const tf_zone *z = &m->zones[i];
    int16_t id = tf_zone_srcloc(z);
    const char *problem = NULL;
    if (!rhorder_find(listed, rhorder_key_i16(id)))
        problem = "source-location id not listed in section 15";
    else if (!srcloc_id_ok(m, id))
        problem = "source-location id does not resolve";
    else if (z->extra >= m->extra_count)
        problem = "zone-extra index out of range";
    else if (z->end >= 0 && z->end < tf_zone_start(z))
        problem = "ends before it starts";
    else if (prev_sibling != SIZE_MAX && (tf_zone_start(z) < tf_zone_start(&m->zones[prev_sibling]) ||
                                          m->zones[prev_sibling].end < 0 ||
                                          m->zones[prev_sibling].end > tf_zone_start(z)))
        problem = "starts before its previous sibling ended (or that one never ended)";
    else if (parent != SIZE_MAX && (tf_zone_start(z) < tf_zone_start(&m->zones[parent]) ||
                                    (m->zones[parent].end >= 0 &&
                                     (z->end < 0 || z->end > m->zones[parent].end))))
        problem = "lies outside its parent";
    if (!problem)
        return 0;
    violation(v, 20, "zone %zu (srcloc %d, start %" PRId64 "): %s", i, id, tf_zone_start(z), problem);
    return -1;
}

/* An ancestor of the zone being checked and the last child seen under it. */
typedef struct open_zone {
    size_t zone, last_child;
} open_zone;

/* Walk one thread's zones in pre-order, keeping the chain of ancestors so
 * each zone is checked against its parent and its previous sibling. */
static void check_thread_timeline(vctx *v, const rhorder *listed, const tf_thread *th)
{
    const tf_model *m = v->m;
    open_zone *stack = NULL;
    size_t depth = 0, cap = 0, last_top = SIZE_MAX;
    int too_deep = 0;
    for (size_t i = th->zone_first; i < th->zone_first + th->zone_num; i++) {
        while (depth > 0 && i > stack[depth - 1].zone + m->zones[stack[depth - 1].zone].ndesc)
            depth--;
        if (depth + 1 > ZONE_DEPTH_MAX && !too_deep) {
            too_deep = 1;
            violation(v, 20, "thread %" PRIu64 " zone %zu: nested %zu deep, more than the %d levels upstream's "
                      "recursive loader reads safely", th->id, i, depth + 1, ZONE_DEPTH_MAX);
        }
        size_t parent = depth > 0 ? stack[depth - 1].zone : SIZE_MAX;
        size_t *prev = depth > 0 ? &stack[depth - 1].last_child : &last_top;
        if (check_zone(v, listed, i, parent, *prev) != 0 && v->count > v->max_reports)
            break;
        *prev = i;
        if (m->zones[i].ndesc == 0)
            continue;
        if (depth == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            open_zone *p = realloc(stack, ncap * sizeof *p);
            if (!p) {
                v->oom = 1;
                break;
            }
            stack = p;
            cap = ncap;
        }
        stack[depth].zone = i;
        stack[depth].last_child = SIZE_MAX;
        depth++;
    }
    free(stack);
}

static void check_zone_timelines(vctx *v)
{
    const tf_model *m = v->m;
    rhorder listed;
    rhorder_init(&listed);
    for (size_t i = 0; i < m->cpu_count_count; i++)
        if (rhorder_insert(&listed, rhorder_key_i16(m->cpu_counts[i].id), 0) < 0)
            v->oom = 1;
    for (size_t t = 0; t < m->thread_count; t++)
        check_thread_timeline(v, &listed, &m->threads[t]);
    rhorder_free(&listed);
}

static void check_sample_list(vctx *v, uint64_t tid, const char *what, const tf_sample *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((i > 0 && s[i].time < s[i - 1].time) || !callstack_ok(v->m, s[i].callstack)) {
            violation(v, 20, "thread %" PRIu64 " %s %zu: out of time order or bad callstack", tid, what, i);
            return;
        }
}

static void check_samples(vctx *v)
{
    for (size_t t = 0; t < v->m->thread_count; t++) {
        const tf_thread *th = &v->m->threads[t];
        check_sample_list(v, th->id, "context-switch sample", th->ctx_samples, th->ctx_sample_count);
        check_sample_list(v, th->id, "sample", th->samples, th->sample_count);
    }
}

/* ---- §5.21 .. §5.23 ------------------------------------------------------ */

/* How deep GPU zone i of a pre-order run nests, given the last zone under
 * each open ancestor in ends[0..*depth) (grown as needed); 0 if out of memory. */
static size_t gpu_zone_depth(vctx *v, const tf_gpu_zone *z, size_t i, size_t **ends, size_t *depth, size_t *cap)
{
    while (*depth > 0 && i > (*ends)[*depth - 1])
        (*depth)--;
    const size_t d = *depth + 1;
    if (z->ndesc == 0)
        return d;
    if (*depth == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        size_t *p = realloc(*ends, ncap * sizeof *p);
        if (!p) {
            v->oom = 1;
            return 0;
        }
        *ends = p;
        *cap = ncap;
    }
    (*ends)[(*depth)++] = i + z->ndesc;
    return d;
}

static void check_gpu_zone_range(vctx *v, size_t c, const tf_gpu_timeline *tl, uint64_t *started)
{
    const tf_model *m = v->m;
    size_t *ends = NULL, depth = 0, cap = 0;
    int too_deep = 0;
    for (size_t i = tl->zone_first; i < tl->zone_first + tl->zone_num; i++) {
        const tf_gpu_zone *z = &m->gpu_zones[i];
        const size_t d = gpu_zone_depth(v, z, i, &ends, &depth, &cap);
        if (d == 0)
            break;
        if (d > ZONE_DEPTH_MAX && !too_deep) {
            too_deep = 1;
            violation(v, 21, "context %zu GPU zone %zu: nested %zu deep, more than the %d levels upstream's "
                      "recursive loader reads safely", c, i, d, ZONE_DEPTH_MAX);
        }
        if (z->gpu_start >= 0)
            (*started)++;
        if (!srcloc_id_ok(m, z->srcloc) || z->thread >= m->local_thread_count || !callstack_ok(m, z->callstack)) {
            violation(v, 21, "context %zu GPU zone %zu: bad srcloc %d, thread %u or callstack", c, i, z->srcloc,
                      z->thread);
            break;
        }
    }
    free(ends);
}

static void check_gpu(vctx *v)
{
    const tf_model *m = v->m;
    uint64_t total = 0;
    if (m->gpu_child_vector_count < m->gpu_zones_with_children)
        violation(v, 21, "gpuChildVectorCount %" PRIu64 " < %zu GPU zones with children",
                  m->gpu_child_vector_count, m->gpu_zones_with_children);
    for (size_t c = 0; c < m->gpu_ctx_count; c++) {
        const tf_gpu_ctx *ctx = &m->gpu_ctxs[c];
        rhorder keys;
        rhorder_init(&keys);
        uint64_t started = 0;
        total += ctx->count;
        if (!sidx_ok(m, ctx->name_sidx) || ctx->type > 10)
            violation(v, 21, "context %zu: bad name or type %u", c, ctx->type);
        for (size_t t = 0; t < ctx->timeline_count; t++) {
            if (ctx->timelines[t].zone_num > 0 && set_add(v, &keys, ctx->timelines[t].key) == 0)
                violation(v, 21, "context %zu: duplicate thread timeline %" PRIu64, c, ctx->timelines[t].key);
            check_gpu_zone_range(v, c, &ctx->timelines[t], &started);
        }
        if (started != ctx->count)
            violation(v, 21, "context %zu: zone count %" PRIu64 " but %" PRIu64 " zones have a GPU start", c,
                      ctx->count, started);
        for (size_t i = 0; i < ctx->note_name_count; i++)
            if (!sidx_ok(m, ctx->note_names[i].name_sidx))
                violation(v, 21, "context %zu note name %zu: string index out of range", c, i);
        rhorder_free(&keys);
    }
    if (total != m->total_gpu_zone_count)
        violation(v, 21, "total GPU zone count %" PRIu64 " != sum of context counts %" PRIu64,
                  m->total_gpu_zone_count, total);
}

static void check_plots(vctx *v)
{
    const tf_model *m = v->m;
    for (size_t i = 0; i < m->plot_count; i++) {
        const tf_plot *p = &m->plots[i];
        if (p->type == 1 || p->type > 3 || p->format > 3)
            violation(v, 22, "plot %zu: bad type %u or format %u", i, p->type, p->format);
        for (size_t j = 1; j < p->count; j++)
            if (p->points[j].time < p->points[j - 1].time) {
                violation(v, 22, "plot %zu point %zu: out of time order", i, j);
                break;
            }
    }
}

static int mem_event_ok(const tf_model *m, const tf_mem_event *e, const tf_mem_event *prev)
{
    return (!prev || e->time_alloc >= prev->time_alloc) && e->thread_alloc < m->local_thread_count &&
           e->thread_free < m->local_thread_count && callstack_ok(m, e->cs_alloc) && callstack_ok(m, e->cs_free);
}

static void check_memory_pool(vctx *v, size_t i, const tf_mem_pool *p)
{
    uint64_t freed = 0;
    for (size_t j = 0; j < p->count; j++) {
        if (p->events[j].free_offset >= 0)
            freed++;
        if (!mem_event_ok(v->m, &p->events[j], j ? &p->events[j - 1] : NULL)) {
            violation(v, 23, "pool %zu event %zu: out of order, bad thread or bad callstack", i, j);
            return;
        }
    }
    if (freed != p->freed_count)
        violation(v, 23, "pool %zu: freedCount %" PRIu64 " but %" PRIu64 " events are freed", i, p->freed_count,
                  freed);
    if (p->name2 != p->name)
        violation(v, 23, "pool %zu: trailing name differs from the leading one", i);
}

static void check_memory(vctx *v)
{
    const tf_model *m = v->m;
    rhorder names;
    rhorder_init(&names);
    uint64_t total = 0;
    for (size_t i = 0; i < m->pool_count; i++) {
        if (set_add(v, &names, m->pools[i].name) == 0)
            violation(v, 23, "pool %zu: duplicate name 0x%" PRIx64, i, m->pools[i].name);
        check_memory_pool(v, i, &m->pools[i]);
        total += m->pools[i].count;
    }
    if (!rhorder_find(&names, 0))
        violation(v, 23, "the default pool (name 0) is missing");
    if (total != m->mem_total_events)
        violation(v, 23, "total event count %" PRIu64 " != sum over pools %" PRIu64, m->mem_total_events, total);
    rhorder_free(&names);
}

/* ---- §5.24 .. §5.36 ------------------------------------------------------ */

static void check_callstacks(vctx *v)
{
    const tf_model *m = v->m;
    for (size_t i = 0; i < m->cs_frame_id_count; i++)
        if (m->cs_frame_ids[i] >> 63) {
            violation(v, 24, "frame id %zu has the in-memory 'custom' bit set", i);
            return;
        }
}

/* A call stack of no frame: upstream's tracy-csvexport -u crashes on a
 * sample of it. */
static void check_callstack_sizes(vctx *v)
{
    const tf_model *m = v->m;
    for (size_t i = 0; i < m->callstack_count; i++)
        if (m->callstacks[i].count == 0) {
            violation(v, 24, "call stack %zu has no frame", i + 1);
            return;
        }
}

static void check_callstack_frames(vctx *v)
{
    const tf_model *m = v->m;
    rhorder ids;
    rhorder_init(&ids);
    for (size_t i = 0; i < m->cs_frame_count; i++) {
        const tf_cs_frame_data *d = &m->cs_frames[i];
        if (set_add(v, &ids, d->id) == 0)
            violation(v, 25, "entry %zu: duplicate frame id 0x%" PRIx64, i, d->id);
        int ok = sidx_ok(m, d->image_sidx);
        for (unsigned j = 0; j < d->count; j++) {
            const tf_cs_frame *f = &m->cs_frame_items[d->first + j];
            ok = ok && sidx_ok(m, f->name_sidx) && sidx_ok(m, f->file_sidx);
        }
        if (!ok)
            violation(v, 25, "entry %zu: string index out of range", i);
    }
    rhorder_free(&ids);
}

static void check_app_info(vctx *v)
{
    const tf_model *m = v->m;
    for (size_t i = 0; i < m->app_info_count; i++)
        if (!strref_ok(m, m->app_info[i]) || m->app_info[i].flags == 0)
            violation(v, 26, "entry %zu: bad string reference", i);
}

static void check_thread_ctx_switches(vctx *v)
{
    const tf_model *m = v->m;
    rhorder ids;
    rhorder_init(&ids);
    for (size_t i = 0; i < m->ctx_thread_count; i++)
        if (set_add(v, &ids, m->ctx_threads[i].thread) == 0)
            violation(v, 28, "entry %zu: duplicate thread %" PRIu64, i, m->ctx_threads[i].thread);
    rhorder_free(&ids);
}

static void check_cpu_ctx_switches(vctx *v)
{
    const tf_model *m = v->m;
    uint64_t total = 0;
    for (int cpu = 0; cpu < 256; cpu++) {
        const tf_cpu_switches *c = &m->cpu_switches[cpu];
        total += c->count;
        for (size_t j = 0; j < c->count; j++)
            if (c->records[j].thread >= m->ext_thread_count) {
                violation(v, 29, "CPU %d record %zu: thread %u not in the external thread table", cpu, j,
                          c->records[j].thread);
                break;
            }
    }
    if (total != m->cpu_switch_total)
        violation(v, 29, "total %" PRIu64 " != sum over CPUs %" PRIu64, m->cpu_switch_total, total);
}

static void check_symbols(vctx *v)
{
    const tf_model *m = v->m;
    uint64_t inl = 0, non_inline = 0;
    rhorder addrs;
    rhorder_init(&addrs);
    for (size_t i = 0; i < m->symbol_count; i++) {
        const tf_symbol *s = &m->symbols[i];
        if (s->is_inline)
            inl++;
        else
            non_inline++;
        if (set_add(v, &addrs, s->address) == 0)
            violation(v, 32, "symbol %zu: duplicate address 0x%" PRIx64, i, s->address);
        if (!sidx_ok(m, s->name_sidx) || !sidx_ok(m, s->file_sidx) || !sidx_ok(m, s->image_sidx) ||
            !sidx_ok(m, s->call_file_sidx))
            violation(v, 32, "symbol %zu: string index out of range", i);
    }
    if (m->symbol_slots < non_inline || m->inline_symbol_slots < inl)
        violation(v, 32, "slot counts %" PRIu64 "/%" PRIu64 " smaller than %" PRIu64 " non-inline / %" PRIu64
                         " inline symbols",
                  m->symbol_slots, m->inline_symbol_slots, non_inline, inl);
    rhorder_free(&addrs);
}

static void check_hw_samples(vctx *v)
{
    const tf_model *m = v->m;
    for (size_t i = 0; i < m->hw_sample_count; i++)
        for (int k = 0; k < TF_HW_VECTORS; k++)
            for (size_t j = 1; j < m->hw_samples[i].count[k]; j++)
                if (m->hw_samples[i].times[k][j] < m->hw_samples[i].times[k][j - 1]) {
                    violation(v, 35, "address 0x%" PRIx64 " vector %d: not sorted", m->hw_samples[i].address, k);
                    break;
                }
}

/* ---- the list ------------------------------------------------------------ */

typedef void (*check_fn)(vctx *v);

static const check_fn CHECKS[] = {
    check_capture_strings,      /* §5.1  strings < 1024 bytes */
    check_times,                /* §4    times in 48 bits (zones and GPU zones: when loaded) */
    check_crash_event,          /* §5.3  callstack index */
    check_frame_sets,           /* §5.4  base set first, frames ordered */
    check_frame_images,         /* §5.4/§5.27 image indices, DXT1 sizes */
    check_sections,             /* §5.5  descriptions, string indices */
    check_string_ids,           /* §5.6  unique ids, no NUL bytes */
    check_local_thread_table,   /* §5.10 placeholder entry 0 */
    check_static_srclocs,       /* §5.12 unique addresses, string refs */
    check_expand_table,         /* §5.13 placeholder, every entry resolves */
    check_payload_srclocs,      /* §5.14 string refs */
    check_cpu_zone_counts,      /* §5.15 unique, resolvable ids */
    check_gpu_zone_counts,      /* §5.16 unique, resolvable ids */
    check_locks,                /* §5.17 ids, thread lists, event sequences */
    check_messages,             /* §5.18 unique ids, refs, time order */
    check_zone_extras,          /* §5.19 zero entry 0, indices */
    check_thread_messages,      /* §5.20 each message owned by exactly one thread */
    check_thread_counts,        /* §5.20 zoneCount, totals, childVectorCount */
    check_zone_timelines,       /* §5.20 srcloc in §5.15, extras, nesting, order */
    check_samples,              /* §5.20 sample order, callstacks */
    check_gpu,                  /* §5.21 counts, child vectors, indices */
    check_plots,                /* §5.22 types, point order */
    check_memory,               /* §5.23 default pool, freedCount, order, threads */
    check_callstacks,           /* §5.24 frame ids */
    check_callstack_sizes,      /* §5.24 no empty call stack */
    check_callstack_frames,     /* §5.25 unique ids, string indices */
    check_app_info,             /* §5.26 string refs */
    check_thread_ctx_switches,  /* §5.28 unique threads */
    check_cpu_ctx_switches,     /* §5.29 total, external thread indices */
    check_symbols,              /* §5.32 slot counts, unique addresses */
    check_hw_samples,           /* §5.35 sorted vectors */
};

long validate_model(const tf_model *m, FILE *report, long max_reports)
{
    vctx v = { .m = m, .report = report, .max_reports = max_reports };
    for (size_t i = 0; i < sizeof CHECKS / sizeof CHECKS[0]; i++)
        CHECKS[i](&v);
    if (v.count > v.max_reports)
        fprintf(report, "validation: %ld more violations not shown\n", v.count - v.max_reports);
    return v.oom ? -1 : v.count;
}
