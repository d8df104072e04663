/* fields: --format-fields output (see fields.h). */
#include "fields.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int topo_cmp(const void *pa, const void *pb)
{
    const tf_topo_thread *a = pa, *b = pb;
    const uint32_t ka[4] = { a->thread, a->package, a->die, a->core };
    const uint32_t kb[4] = { b->thread, b->package, b->die, b->core };
    for (int i = 0; i < 4; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

/* One line per logical CPU, by CPU number: the writers' orders of
 * packages and cores are their hash maps', not the data's. */
static int write_topology(const tf_model *m, FILE *out)
{
    tf_topo_thread *t = malloc((m->topo_count ? m->topo_count : 1) * sizeof *t);
    if (!t)
        return -1;
    if (m->topo_count)
        memcpy(t, m->topo, m->topo_count * sizeof *t);
    qsort(t, m->topo_count, sizeof *t, topo_cmp);
    fprintf(out, "topology: %zu cpus\n", m->topo_count);
    for (size_t i = 0; i < m->topo_count; i++)
        fprintf(out, "cpu %u: package %u die %u core %u\n", t[i].thread, t[i].package, t[i].die, t[i].core);
    free(t);
    return 0;
}

static void write_sections(const tf_model *m, FILE *out)
{
    fprintf(out, "section categories: %zu\n", m->section_count);
    for (size_t i = 0; i < m->section_count; i++)
        fprintf(out, "section category %u: %zu items\n", m->sections[i].category, m->sections[i].count);
    fprintf(out, "section descriptions: %zu\n", m->section_desc_count);
    for (size_t i = 0; i < m->section_desc_count; i++) {
        const char *s = tf_model_sidx_text(m, m->section_descs[i].text_sidx);
        fprintf(out, "section description %u: '%s'\n", m->section_descs[i].category, s ? s : "");
    }
}

/* How many messages have each source and each severity value. */
static void write_messages(const tf_model *m, FILE *out)
{
    size_t source[256] = { 0 }, severity[256] = { 0 };
    for (size_t i = 0; i < m->message_count; i++) {
        source[m->messages[i].source]++;
        severity[m->messages[i].severity]++;
    }
    fprintf(out, "messages: %zu\n", m->message_count);
    for (int v = 0; v < 256; v++)
        if (source[v])
            fprintf(out, "message source %d: %zu\n", v, source[v]);
    for (int v = 0; v < 256; v++)
        if (severity[v])
            fprintf(out, "message severity %d: %zu\n", v, severity[v]);
}

static void write_group_hints(const tf_model *m, FILE *out)
{
    for (size_t i = 0; i < m->thread_count; i++)
        fprintf(out, "thread %" PRIu64 " groupHint: %" PRId32 "\n", m->threads[i].id, m->threads[i].group_hint);
}

static int ctx_thread_cmp(const void *pa, const void *pb)
{
    const tf_thread_ctx_switches *a = *(const tf_thread_ctx_switches *const *)pa;
    const tf_thread_ctx_switches *b = *(const tf_thread_ctx_switches *const *)pb;
    return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/* Per thread (by id: the writers' order is their hash map's): the
 * records, the sum of their CPUs and of their wake-up CPUs, and how many
 * wake up on another CPU than they run on. */
static int write_wakeup_cpus(const tf_model *m, FILE *out)
{
    const tf_thread_ctx_switches **by_id = malloc((m->ctx_thread_count ? m->ctx_thread_count : 1) * sizeof *by_id);
    if (!by_id)
        return -1;
    for (size_t i = 0; i < m->ctx_thread_count; i++)
        by_id[i] = &m->ctx_threads[i];
    qsort(by_id, m->ctx_thread_count, sizeof *by_id, ctx_thread_cmp);
    for (size_t i = 0; i < m->ctx_thread_count; i++) {
        const tf_thread_ctx_switches *t = by_id[i];
        uint64_t cpu = 0, wakeup = 0, differ = 0;
        for (size_t k = 0; k < t->count; k++) {
            cpu += t->records[k].cpu;
            wakeup += t->records[k].wakeup_cpu;
            differ += t->records[k].cpu != t->records[k].wakeup_cpu;
        }
        fprintf(out, "context switches of thread %" PRIu64 ": %zu, cpu sum %" PRIu64 ", wakeupCpu sum %" PRIu64
                ", wakeupCpu != cpu: %" PRIu64 "\n", t->thread, t->count, cpu, wakeup, differ);
    }
    free(by_id);
    return 0;
}

static void write_gpu_notes(const tf_model *m, FILE *out)
{
    for (size_t i = 0; i < m->gpu_ctx_count; i++) {
        const tf_gpu_ctx *c = &m->gpu_ctxs[i];
        uint64_t notes = 0, with_query = 0, query_sum = 0;
        for (size_t q = 0; q < c->note_query_count; q++)
            notes += c->note_queries[q].count;
        for (size_t t = 0; t < c->timeline_count; t++)
            for (size_t z = 0; z < c->timelines[t].zone_num; z++) {
                const uint16_t id = m->gpu_zones[c->timelines[t].zone_first + z].query;
                with_query += id != 0;
                query_sum += id;
            }
        fprintf(out, "gpu ctx %zu: type %u, note names %zu, noted queries %zu, notes %" PRIu64
                ", zones with a query id %" PRIu64 ", query id sum %" PRIu64 "\n", i, c->type,
                c->note_name_count, c->note_query_count, notes, with_query, query_sum);
    }
}

int fields_write(const tf_model *m, FILE *out)
{
    fprintf(out, "version: %u.%u.%u\n", m->version[0], m->version[1], m->version[2]);
    if (m->has_delay)
        fprintf(out, "delay: %" PRId64 "\n", m->delay);
    else
        fprintf(out, "delay: none\n");
    if (write_topology(m, out) != 0)
        return -1;
    write_sections(m, out);
    write_messages(m, out);
    write_group_hints(m, out);
    if (write_wakeup_cpus(m, out) != 0)
        return -1;
    write_gpu_notes(m, out);
    return 0;
}
