/* events_gpu.c - encoders of the GPU event family for tracy-test-client
 * (the same layouts in all protocols; GpuTimeSync exists from 66, the
 * annotations from 76): contexts and their names, GPU zones in all eight
 * begin forms (thread or serial time reference, static or allocated source
 * location, with or without call stack) and both end forms, GPU time
 * stamps against the GPU reference shared by all contexts, calibration,
 * time sync and zone annotations (spec §5.2 types 45-54, 60-62, 76-77, 95,
 * 118 in protocol 82's numbering; sequences §5.6; semantics §9.8). */
#include "events.h"

#include "evbuf.h"

void ev_gpu_new_context(struct tc_client *c, const struct tc_gpu_context *g)
{
    struct evb e = evb_start(TC_EV_GPU_NEW_CONTEXT);
    b_i64(&e, g->cpu_time);
    b_i64(&e, g->gpu_time);
    b_u32(&e, g->thread);
    b_f32(&e, g->period);
    b_u8(&e, g->context);
    b_u8(&e, g->flags);
    b_u8(&e, g->type);
    evb_emit(c, &e);
}

void ev_gpu_context_name(struct tc_client *c, uint8_t context, const char *name)
{
    evb_staged_string(c, false, name);
    struct evb e = evb_start(TC_EV_GPU_CONTEXT_NAME);
    b_u8(&e, context);
    evb_emit(c, &e);
}

void ev_gpu_annotation_name(struct tc_client *c, uint8_t context, int64_t note,
                            const char *name)
{
    evb_staged_string(c, false, name);
    struct evb e = evb_start(TC_EV_GPU_ANNOTATION_NAME);
    b_i64(&e, note);
    b_u8(&e, context);
    evb_emit(c, &e);
}

/* Thread-referenced forms take their time from the producer's context;
 * serial forms from the serial reference. */
static int64_t gpu_cpu_delta(struct tc_client *c, bool serial, uint32_t producer, int64_t t)
{
    if (serial)
        return evb_serial_delta(c, t);
    ev_thread_context(c, producer);
    return evb_thread_delta(c, t);
}

void ev_gpu_zone_begin(struct tc_client *c, const struct tc_gpu_begin *z)
{
    bool alloc = z->loc->addr == 0;
    bool callstack = z->n_frames > 0;
    if (!z->serial)
        ev_thread_context(c, z->producer);
    if (callstack && z->serial)
        evb_serial_callstack(c, z->frames, z->n_frames);
    else if (callstack)
        evb_thread_callstack(c, z->frames, z->n_frames);
    if (alloc)
        evb_srcloc_payload(c, z->loc);
    uint8_t type = (uint8_t)((z->serial ? TC_EV_GPU_ZONE_BEGIN_SERIAL : TC_EV_GPU_ZONE_BEGIN) +
                             (alloc ? 2 : 0) + (callstack ? 1 : 0));
    struct evb e = evb_start(type);
    b_i64(&e, gpu_cpu_delta(c, z->serial, z->producer, z->cpu_time));
    b_u32(&e, z->thread);
    b_u16(&e, z->query);
    b_u8(&e, z->context);
    if (!alloc)
        b_u64(&e, z->loc->addr);
    evb_emit(c, &e);
}

void ev_gpu_zone_end(struct tc_client *c, const struct tc_gpu_end *z)
{
    struct evb e = evb_start(z->serial ? TC_EV_GPU_ZONE_END_SERIAL : TC_EV_GPU_ZONE_END);
    b_i64(&e, gpu_cpu_delta(c, z->serial, z->producer, z->cpu_time));
    b_u32(&e, z->thread);
    b_u16(&e, z->query);
    b_u8(&e, z->context);
    evb_emit(c, &e);
}

void ev_gpu_time(struct tc_client *c, int64_t gpu_ticks, uint16_t query, uint8_t context)
{
    struct evb e = evb_start(TC_EV_GPU_TIME);
    b_i64(&e, evb_gpu_delta(c, gpu_ticks));
    b_u16(&e, query);
    b_u8(&e, context);
    evb_emit(c, &e);
}

void ev_gpu_calibration(struct tc_client *c, int64_t gpu_ticks, int64_t cpu_time,
                        int64_t cpu_delta, uint8_t context)
{
    struct evb e = evb_start(TC_EV_GPU_CALIBRATION);
    b_i64(&e, gpu_ticks);
    b_i64(&e, cpu_time);
    b_i64(&e, cpu_delta);
    b_u8(&e, context);
    evb_emit(c, &e);
}

void ev_gpu_time_sync(struct tc_client *c, int64_t gpu_ticks, int64_t cpu_time, uint8_t context)
{
    struct evb e = evb_start(TC_EV_GPU_TIME_SYNC);
    b_i64(&e, gpu_ticks);
    b_i64(&e, cpu_time);
    b_u8(&e, context);
    evb_emit(c, &e);
}

void ev_gpu_zone_annotation(struct tc_client *c, int64_t note, double value, uint32_t thread,
                            uint16_t query, uint8_t context)
{
    struct evb e = evb_start(TC_EV_GPU_ZONE_ANNOTATION);
    b_i64(&e, note);
    b_f64(&e, value);
    b_u32(&e, thread);
    b_u16(&e, query);
    b_u8(&e, context);
    evb_emit(c, &e);
}
