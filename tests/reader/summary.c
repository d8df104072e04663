/* summary: --summary output (see summary.h).  Counts are of what is stored
 * in the file; "zoneExtra" excludes the all-zero entry 0. */
#include "summary.h"

#include <inttypes.h>

static const char *string_by_id(const tf_model *m, uint64_t id)
{
    const uint64_t *idx = rhorder_find(&m->string_by_id, id);
    return idx ? tf_model_string_at(m, (size_t)*idx) : NULL;
}

static const char *thread_name(const tf_model *m, uint64_t tid)
{
    for (size_t i = 0; i < m->thread_name_count; i++)
        if (m->thread_names[i].a == tid) {
            const char *s = string_by_id(m, m->thread_names[i].b);
            if (s)
                return s;
        }
    for (size_t i = 0; i < m->ext_name_count; i++)
        if (m->ext_names[i].thread == tid) {
            const char *s = string_by_id(m, m->ext_names[i].name_str);
            if (s)
                return s;
        }
    return "???";
}

static const char *sidx_or_empty(const tf_model *m, uint32_t sidx)
{
    const char *s = tf_model_sidx_text(m, sidx);
    return s ? s : "";
}

static void write_header_lines(const tf_model *m, FILE *out)
{
    fprintf(out, "version: %u.%u.%u\n", m->version[0], m->version[1], m->version[2]);
    fprintf(out, "program: %s\n", m->capture_program);
    fprintf(out, "capture: %s\n", m->capture_name);
    fprintf(out, "pid: %" PRIu64 "\n", m->pid);
    fprintf(out, "cpuArch: %u\n", m->cpu_arch);
    fprintf(out, "manufacturer: %s\n", m->cpu_manufacturer);
    fprintf(out, "samplingPeriod: %" PRId64 "\n", m->sampling_period);
    fprintf(out, "resolution: %" PRId64 "\n", m->resolution);
    fprintf(out, "timerMul: %.17g\n", m->timer_mul);
    fprintf(out, "lastTime: %" PRId64 "\n", m->last_time);
    fprintf(out, "onDemand: %u\n", m->on_demand);
    fprintf(out, "captureTime: %" PRIu64 "\n", m->capture_time);
}

static void write_count_lines(const tf_model *m, FILE *out)
{
    uint64_t lock_events = 0, samples = 0, ctx = 0, cpu_ctx = 0, points = 0, mem = 0, hw = 0;
    for (size_t i = 0; i < m->lock_count; i++)
        lock_events += m->locks[i].event_count;
    for (size_t i = 0; i < m->thread_count; i++)
        samples += m->threads[i].sample_count;
    for (size_t i = 0; i < m->ctx_thread_count; i++)
        ctx += m->ctx_threads[i].count;
    for (size_t i = 0; i < 256; i++)
        cpu_ctx += m->cpu_switches[i].count;
    for (size_t i = 0; i < m->plot_count; i++)
        points += m->plots[i].count;
    for (size_t i = 0; i < m->pool_count; i++)
        mem += m->pools[i].count;
    for (size_t i = 0; i < m->hw_sample_count; i++)
        for (int v = 0; v < TF_HW_VECTORS; v++)
            hw += m->hw_samples[i].count[v];
    fprintf(out, "threads: %zu\n", m->thread_count);
    fprintf(out, "zones: %zu\n", m->zone_count);
    fprintf(out, "zoneExtra: %zu\n", m->extra_count ? m->extra_count - 1 : 0);
    fprintf(out, "gpuContexts: %zu\n", m->gpu_ctx_count);
    fprintf(out, "gpuZones: %zu\n", m->gpu_zone_count);
    fprintf(out, "srclocs: %zu\n", m->static_srcloc_count + m->payload_srcloc_count);
    fprintf(out, "srclocsStatic: %zu\n", m->static_srcloc_count);
    fprintf(out, "srclocsPayload: %zu\n", m->payload_srcloc_count);
    fprintf(out, "strings: %zu\n", m->string_count);
    fprintf(out, "messages: %zu\n", m->message_count);
    fprintf(out, "appInfo: %zu\n", m->app_info_count);
    fprintf(out, "locks: %zu\n", m->lock_count);
    fprintf(out, "lockEvents: %" PRIu64 "\n", lock_events);
    fprintf(out, "frameSets: %zu\n", m->frameset_count);
    fprintf(out, "plots: %zu\n", m->plot_count);
    fprintf(out, "plotPoints: %" PRIu64 "\n", points);
    fprintf(out, "memoryPools: %zu\n", m->pool_count);
    fprintf(out, "memoryEvents: %" PRIu64 "\n", mem);
    fprintf(out, "callstacks: %zu\n", m->callstack_count);
    fprintf(out, "callstackFrames: %zu\n", m->cs_frame_count);
    fprintf(out, "symbols: %zu\n", m->symbol_count);
    fprintf(out, "symbolCode: %zu\n", m->symbol_code_count);
    fprintf(out, "symbolCodeBytes: %" PRIu64 "\n", m->symbol_code_bytes);
    fprintf(out, "sourceFiles: %zu\n", m->source_file_count);
    fprintf(out, "sourceFileBytes: %" PRIu64 "\n", m->source_file_bytes);
    fprintf(out, "samples: %" PRIu64 "\n", samples);
    fprintf(out, "contextSwitches: %" PRIu64 "\n", ctx);
    fprintf(out, "ctxSwitchPerCpu: %" PRIu64 "\n", cpu_ctx);
    fprintf(out, "hwSamples: %" PRIu64 "\n", hw);
    fprintf(out, "frameImages: %zu\n", m->frame_image_count);
}

static void write_item_lines(const tf_model *m, FILE *out)
{
    for (size_t i = 0; i < m->frameset_count; i++) {
        const tf_frameset *f = &m->framesets[i];
        fprintf(out, "frameset '%s': %zu frames, continuous=%u\n", tf_model_pointer_text(m, f->name), f->count,
                f->continuous);
    }
    for (size_t i = 0; i < m->thread_count; i++) {
        const tf_thread *t = &m->threads[i];
        fprintf(out, "thread %" PRIu64 " '%s': fiber=%u timeline=%u messages=%zu samples=%zu\n", t->id,
                thread_name(m, t->id), t->is_fiber, t->top_count, t->msg_num, t->sample_count);
    }
    for (size_t i = 0; i < m->lock_count; i++) {
        const tf_lock *k = &m->locks[i];
        fprintf(out, "lock %u: type=%u name='%s' events=%zu threads=%zu\n", k->id, k->type,
                sidx_or_empty(m, k->name_sidx), k->event_count, k->thread_count);
    }
    for (size_t i = 0; i < m->pool_count; i++) {
        const tf_mem_pool *p = &m->pools[i];
        fprintf(out, "mempool '%s': events=%zu active=%" PRIu64 "\n",
                p->name ? tf_model_pointer_text(m, p->name) : "(default)", p->count, p->active_count);
    }
    for (size_t i = 0; i < m->gpu_ctx_count; i++) {
        const tf_gpu_ctx *c = &m->gpu_ctxs[i];
        fprintf(out, "gpu ctx type=%u name='%s' count=%" PRIu64 " threads=%zu\n", c->type,
                sidx_or_empty(m, c->name_sidx), c->count, c->timeline_count);
    }
    for (size_t i = 0; i < m->plot_count; i++) {
        const tf_plot *p = &m->plots[i];
        fprintf(out, "plot '%s': type=%u format=%u points=%zu\n",
                p->name ? tf_model_pointer_text(m, p->name) : "(internal)", p->type, p->format, p->count);
    }
    for (size_t i = 0; i < m->app_info_count; i++)
        fprintf(out, "appinfo: %s\n", tf_model_strref_text(m, m->app_info[i]));
    for (size_t i = 0; i < m->section_count; i++)
        fprintf(out, "section category %u: %zu items\n", m->sections[i].category, m->sections[i].count);
    for (size_t i = 0; i < m->source_file_count; i++)
        fprintf(out, "source file cached: %s (%u bytes)\n", m->str_pool + m->source_files[i].name_off,
                m->source_files[i].data_len);
    if (m->crash.thread || m->crash.time || m->crash.message)
        fprintf(out, "crash: thread %" PRIu64 " time %" PRId64 " message '%s' callstack %u\n", m->crash.thread,
                m->crash.time, tf_model_pointer_text(m, m->crash.message), m->crash.callstack);
}

void summary_write(const tf_model *m, FILE *out)
{
    write_header_lines(m, out);
    write_count_lines(m, out);
    write_item_lines(m, out);
}
