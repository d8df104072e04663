/* tfmodel: lifetime of the in-memory .tracy model and the lookups that
 * mirror how upstream's loader resolves strings, source locations and
 * thread numbers.  See tfmodel.h. */
#include "tfmodel.h"

#include <stdlib.h>
#include <string.h>

static const char UNKNOWN_TEXT[] = "???";

void tf_model_init(tf_model *m)
{
    memset(m, 0, sizeof *m);
    rhorder_init(&m->string_by_id);
    rhorder_init(&m->ptr_string);
    rhorder_init(&m->static_by_addr);
    rhorder_init(&m->loader_thread_index);
}

static void free_locks(tf_model *m)
{
    for (size_t i = 0; i < m->lock_count; i++) {
        free(m->locks[i].threads);
        free(m->locks[i].events);
    }
    free(m->locks);
}

static void free_gpu(tf_model *m)
{
    for (size_t i = 0; i < m->gpu_ctx_count; i++) {
        tf_gpu_ctx *c = &m->gpu_ctxs[i];
        free(c->note_names);
        free(c->timelines);
        for (size_t j = 0; j < c->note_query_count; j++)
            free(c->note_queries[j].notes);
        free(c->note_queries);
    }
    free(m->gpu_ctxs);
    free(m->gpu_zones);
}

static void free_threads(tf_model *m)
{
    for (size_t i = 0; i < m->thread_count; i++) {
        free(m->threads[i].ctx_samples);
        free(m->threads[i].samples);
    }
    free(m->threads);
    free(m->zones);
    free(m->thread_msg_ids);
}

static void free_misc_lists(tf_model *m)
{
    for (size_t i = 0; i < m->frameset_count; i++)
        free(m->framesets[i].frames);
    free(m->framesets);
    for (size_t i = 0; i < m->section_count; i++)
        free(m->sections[i].items);
    free(m->sections);
    for (size_t i = 0; i < m->plot_count; i++)
        free(m->plots[i].points);
    free(m->plots);
    for (size_t i = 0; i < m->pool_count; i++)
        free(m->pools[i].events);
    free(m->pools);
    for (size_t i = 0; i < m->ctx_thread_count; i++)
        free(m->ctx_threads[i].records);
    free(m->ctx_threads);
    for (size_t i = 0; i < 256; i++)
        free(m->cpu_switches[i].records);
    for (size_t i = 0; i < m->hw_sample_count; i++)
        for (int v = 0; v < TF_HW_VECTORS; v++)
            free(m->hw_samples[i].times[v]);
    free(m->hw_samples);
}

void tf_model_free(tf_model *m)
{
    free(m->capture_name);
    free(m->capture_program);
    free(m->host_info);
    free(m->topo);
    free(m->section_descs);
    free(m->str_pool);
    free(m->strings);
    free(m->ptr_map);
    free(m->thread_names);
    free(m->ext_names);
    free(m->local_threads);
    free(m->ext_threads);
    free(m->static_srclocs);
    free(m->expand);
    free(m->payload_srclocs);
    free(m->cpu_counts);
    free(m->gpu_counts);
    free_locks(m);
    free(m->messages);
    free(m->extras);
    free_threads(m);
    free_gpu(m);
    free_misc_lists(m);
    free(m->callstacks);
    free(m->cs_frame_ids);
    free(m->cs_frames);
    free(m->cs_frame_items);
    free(m->app_info);
    free(m->frame_images);
    free(m->tid_pid);
    free(m->cpu_thread_data);
    free(m->symbols);
    free(m->symbol_code);
    free(m->code_symbols);
    free(m->source_files);
    free(m->loader_threads);
    rhorder_free(&m->string_by_id);
    rhorder_free(&m->ptr_string);
    rhorder_free(&m->static_by_addr);
    rhorder_free(&m->loader_thread_index);
    memset(m, 0, sizeof *m);
}

static int build_string_lookups(tf_model *m)
{
    if (rhorder_reserve(&m->string_by_id, m->string_count) != 0)
        return -1;
    for (size_t i = 0; i < m->string_count; i++)
        if (rhorder_insert(&m->string_by_id, m->strings[i].id, i) < 0)
            return -1;
    for (size_t i = 0; i < m->ptr_map_count; i++) {
        const uint64_t *idx = rhorder_find(&m->string_by_id, m->ptr_map[i].b);
        if (idx && rhorder_insert(&m->ptr_string, m->ptr_map[i].a, *idx) < 0)
            return -1;
    }
    return 0;
}

static int build_srcloc_lookup(tf_model *m)
{
    for (size_t i = 0; i < m->static_srcloc_count; i++)
        if (rhorder_insert(&m->static_by_addr, m->static_srclocs[i].addr, i) < 0)
            return -1;
    return 0;
}

int tf_model_build_lookups(tf_model *m)
{
    if (build_string_lookups(m) != 0 || build_srcloc_lookup(m) != 0)
        return -1;
    return 0;
}

const char *tf_model_string_at(const tf_model *m, size_t idx)
{
    return m->str_pool + m->strings[idx].off;
}

const char *tf_model_pointer_text(const tf_model *m, uint64_t ptr)
{
    const uint64_t *idx = rhorder_find(&m->ptr_string, ptr);
    return idx ? tf_model_string_at(m, (size_t)*idx) : UNKNOWN_TEXT;
}

const char *tf_model_strref_text(const tf_model *m, tf_strref ref)
{
    if (ref.flags & TF_REF_IDX)
        return ref.value < m->string_count ? tf_model_string_at(m, (size_t)ref.value) : UNKNOWN_TEXT;
    if (ref.flags & TF_REF_ACTIVE)
        return tf_model_pointer_text(m, ref.value);
    return UNKNOWN_TEXT;
}

const char *tf_model_sidx_text(const tf_model *m, uint32_t sidx)
{
    if (sidx == 0 || sidx > m->string_count)
        return NULL;
    return tf_model_string_at(m, sidx - 1);
}

const tf_srcloc *tf_model_srcloc(const tf_model *m, int16_t id)
{
    static const tf_srcloc empty;
    if (id < 0) {
        size_t idx = (size_t)(-(int32_t)id - 1);
        return idx < m->payload_srcloc_count ? &m->payload_srclocs[idx] : NULL;
    }
    if (id == INT16_MAX)
        return &empty;
    if ((size_t)id >= m->expand_count)
        return NULL;
    const uint64_t *idx = rhorder_find(&m->static_by_addr, m->expand[id]);
    return idx ? &m->static_srclocs[*idx].loc : NULL;
}

uint16_t tf_model_thread_number(const tf_model *m, uint64_t tid)
{
    const uint64_t *idx = rhorder_find(&m->loader_thread_index, tid);
    return idx ? (uint16_t)*idx : 0;
}
