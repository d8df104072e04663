/* event.c - decoding of the events of every supported protocol (see
 * event.h). A wire byte is translated to its canonical type (protocol 82's
 * numbering, the identity there) through the descriptor's table; the few
 * events whose layout changed between releases branch on the layout bits.
 *
 * To find how an event type is handled: its case in decode_one() below
 * names the model_* handler that keeps it. */
#include "event.h"

#include <stdbool.h>
#include <stdio.h>

#include "proto.h"
#include "zonerun.h"

/* Messages of protocols before 82 carry no metadata: source User,
 * severity Info, as v0.14.0's loader gives messages of older files. */
#define MSG_META_DEFAULT 0x20

void event_decoder_init(event_decoder_t *d, model_t *m, const proto_desc_t *desc)
{
    *d = (event_decoder_t){ .model = m, .layout = desc->layout };
    proto_tables_init(&d->t, desc);
    for (unsigned b = 0; b < 256; b++)
        d->names[b] = d->t.canon[b] != EV_NONE ? proto_event_name(d->t.canon[b]) : NULL;
    m->event_names = d->names;   /* the model's failure messages name events by it */
}

int64_t event_delta64(int64_t v)
{
    return v >= 0 ? add_wrap(v, PROTO_OFFSET_32BIT) : v;
}

/* abs = ref + delta; ref = abs */
static inline int64_t advance(int64_t *ref, int64_t delta)
{
    *ref = (int64_t)((uint64_t)*ref + (uint64_t)delta);
    return *ref;
}

/* Size of the event at p (header included), or 0 if it does not fit. */
static inline size_t size_at(const proto_tables_t *t, const uint8_t *p, size_t left, char *err, size_t errlen)
{
    const uint8_t type = p[0], ev = t->canon[type];
    size_t need;
    if (ev == EV_NONE) {
        snprintf(err, errlen, "event type %u is not a protocol-%u type", type, t->desc->version);
        return 0;
    }
    if (ev >= EV_STRING_DATA) {
        const bool wide = ev == EV_FRAME_IMAGE_DATA || ev == EV_SYMBOL_CODE || ev == EV_SOURCE_CODE;
        const size_t hdr = 9 + (wide ? 4 : 2);
        if (left < hdr) goto truncated;
        need = hdr + (wide ? ld32(p + 9) : ld16(p + 9));
    } else if (ev == EV_SINGLE_STRING_DATA || ev == EV_SECOND_STRING_DATA) {
        if (left < 3) goto truncated;
        need = 3 + (size_t)ld16(p + 1) + ((t->desc->layout & PL_STR16_MINUS256) ? PROTO_OFFSET_8BIT : 0);
    } else if (ev == EV_SINGLE_STRING_DATA8 || ev == EV_SECOND_STRING_DATA8) {
        if (left < 2) goto truncated;
        need = 2 + (size_t)p[1];
    } else {
        need = t->size[type];
    }
    if (need > left) {
        /* a length field past the frame (events never span frames) */
        snprintf(err, errlen, "%s event (type %u) is cut short: it claims %zu bytes, the frame ends %zu bytes after its start",
                 proto_event_name(ev), type, need, left);
        return 0;
    }
    return need;
truncated:
    snprintf(err, errlen, "%s event (type %u) is cut short: the frame ends %zu bytes after its start",
             proto_event_name(ev), type, left);
    return 0;
}

size_t event_size(const proto_tables_t *t, const uint8_t *p, size_t left, char *err, size_t errlen)
{
    return size_at(t, p, left, err, errlen);
}

/* A 64-bit zone or sample delta: protocol 82 offsets a non-negative one. */
static inline int64_t delta64(const event_decoder_t *d, int64_t v)
{
    return (d->layout & PL_COMPACT_TIMES) ? event_delta64(v) : v;
}

/* The metadata byte ending a message of 82, or the default before. */
static inline uint8_t msg_meta(const event_decoder_t *d, const uint8_t *at)
{
    return (d->layout & PL_MSG_META) ? *at : MSG_META_DEFAULT;
}

/* A literal message's text address and metadata: 82 tags the address
 * with the metadata byte, the earlier protocols send it plain. */
static void literal_message(event_decoder_t *d, const uint8_t *p, uint64_t tagged, uint32_t color, bool callstack)
{
    if (d->layout & PL_MSG_META)
        model_message(d->model, ldi64(p + 1), tagged >> 8, true, color, (uint8_t)tagged, callstack);
    else
        model_message(d->model, ldi64(p + 1), tagged, true, color, MSG_META_DEFAULT, callstack);
}

/* CallstackSample forms: 82 sends the thread first, the others the time. */
static void callstack_sample64(event_decoder_t *d, const uint8_t *p, bool ctx_switch)
{
    if (d->layout & PL_COMPACT_TIMES)
        model_callstack_sample(d->model, ld32(p + 1), advance(&d->ref_ctx, event_delta64(ldi64(p + 5))), ctx_switch);
    else
        model_callstack_sample(d->model, ld32(p + 9), advance(&d->ref_ctx, ldi64(p + 1)), ctx_switch);
}

static void decode_one(event_decoder_t *d, uint8_t type, const uint8_t *p, size_t size, bool numbered)
{
    model_t *m = d->model;
    switch (type) {
    /* ---- zones ---- */
    case EV_ZONE_BEGIN:
    case EV_ZONE_BEGIN_CALLSTACK:
        model_zone_begin(m, advance(&d->ref_thread, delta64(d, ldi64(p + 1))), ld64(p + 9),
                         type == EV_ZONE_BEGIN_CALLSTACK);
        break;
    case EV_ZONE_BEGIN32:
    case EV_ZONE_BEGIN_CALLSTACK32:
        model_zone_begin(m, advance(&d->ref_thread, (int64_t)ld32(p + 1) + PROTO_OFFSET_16BIT), ld64(p + 5),
                         type == EV_ZONE_BEGIN_CALLSTACK32);
        break;
    case EV_ZONE_BEGIN16:
    case EV_ZONE_BEGIN_CALLSTACK16:
        model_zone_begin(m, advance(&d->ref_thread, ld16(p + 1)), ld64(p + 3), type == EV_ZONE_BEGIN_CALLSTACK16);
        break;
    case EV_ZONE_BEGIN_ALLOC_SRCLOC:
    case EV_ZONE_BEGIN_ALLOC_SRCLOC_CALLSTACK:
        model_zone_begin_alloc(m, advance(&d->ref_thread, ldi64(p + 1)), type == EV_ZONE_BEGIN_ALLOC_SRCLOC_CALLSTACK);
        break;
    case EV_ZONE_END:
        model_zone_end(m, advance(&d->ref_thread, delta64(d, ldi64(p + 1))));
        break;
    case EV_ZONE_END32:
        model_zone_end(m, advance(&d->ref_thread, (int64_t)ld32(p + 1) + PROTO_OFFSET_16BIT));
        break;
    case EV_ZONE_END16:
        model_zone_end(m, advance(&d->ref_thread, ld16(p + 1)));
        break;
    case EV_ZONE_VALIDATION: model_zone_validation(m, ld32(p + 1)); break;
    case EV_ZONE_TEXT: model_zone_text(m); break;
    case EV_ZONE_NAME: model_zone_name(m); break;
    case EV_ZONE_COLOR: model_zone_color(m, p[3], p[2], p[1]); break;
    case EV_ZONE_VALUE: model_zone_value(m, ld64(p + 1)); break;
    case EV_THREAD_CONTEXT:
        d->ref_thread = 0;
        model_thread_context(m, ld32(p + 1));
        break;

    /* ---- strings, names and payloads ---- */
    case EV_SINGLE_STRING_DATA: model_single_string(m, p + 3, size - 3); break;
    case EV_SECOND_STRING_DATA: model_second_string(m, p + 3, size - 3); break;
    case EV_SINGLE_STRING_DATA8: model_single_string(m, p + 2, size - 2); break;
    case EV_SECOND_STRING_DATA8: model_second_string(m, p + 2, size - 2); break;
    case EV_STRING_DATA: model_string_data(m, ld64(p + 1), p + 11, size - 11); break;
    case EV_THREAD_NAME: model_thread_name(m, ld64(p + 1), p + 11, size - 11); break;
    case EV_PLOT_NAME: model_plot_name(m, ld64(p + 1), p + 11, size - 11); break;
    case EV_FRAME_NAME: model_frame_name(m, ld64(p + 1), p + 11, size - 11); break;
    case EV_FIBER_NAME: model_fiber_name(m, ld64(p + 1), p + 11, size - 11); break;
    case EV_EXTERNAL_NAME: model_external_name(m, ld64(p + 1), p + 11, size - 11, false); break;
    case EV_EXTERNAL_THREAD_NAME: model_external_name(m, ld64(p + 1), p + 11, size - 11, true); break;
    case EV_SOURCE_LOCATION_PAYLOAD: model_source_location_payload(m, p + 11, size - 11); break;
    case EV_CALLSTACK_PAYLOAD:
        if (numbered) model_callstack_payload_seen(m, ld64(p + 1), p + 11, size - 11);
        else model_callstack_payload(m, p + 11, size - 11);
        break;
    case EV_CALLSTACK_ALLOC_PAYLOAD: model_callstack_alloc_payload(m, p + 11, size - 11); break;
    case EV_FRAME_IMAGE_DATA: model_frame_image_data(m, p + 13, size - 13); break;
    case EV_SYMBOL_CODE: model_symbol_code(m, ld64(p + 1), p + 13, size - 13); break;
    case EV_SOURCE_CODE: model_source_code(m, (uint32_t)ld64(p + 1), p + 13, size - 13); break;
    case EV_SOURCE_LOCATION:
        model_source_location(m, ld64(p + 1), ld64(p + 9), ld64(p + 17), ld32(p + 25), p[31], p[30], p[29]);
        break;

    /* ---- frames ---- */
    case EV_FRAME_MARK_MSG: model_frame_mark(m, ldi64(p + 1), ld64(p + 9)); break;
    case EV_FRAME_MARK_MSG_START: model_frame_mark_start(m, ldi64(p + 1), ld64(p + 9)); break;
    case EV_FRAME_MARK_MSG_END: model_frame_mark_end(m, ldi64(p + 1), ld64(p + 9)); break;
    case EV_FRAME_VSYNC: model_frame_vsync(m, ldi64(p + 1), ld32(p + 9)); break;
    case EV_FRAME_IMAGE: model_frame_image(m, ld32(p + 1), ld16(p + 5), ld16(p + 7), p[9]); break;

    /* ---- messages ---- */
    case EV_MESSAGE:
    case EV_MESSAGE_CALLSTACK:
        model_message(m, ldi64(p + 1), 0, false, 0xFFFFFFFF, msg_meta(d, p + 9), type == EV_MESSAGE_CALLSTACK);
        break;
    case EV_MESSAGE_COLOR:
    case EV_MESSAGE_COLOR_CALLSTACK:
        model_message(m, ldi64(p + 1), 0, false, 0xFF000000u | ((uint32_t)p[9] << 16) | ((uint32_t)p[10] << 8) | p[11],
                      msg_meta(d, p + 12), type == EV_MESSAGE_COLOR_CALLSTACK);
        break;
    case EV_MESSAGE_LITERAL:
    case EV_MESSAGE_LITERAL_CALLSTACK:
        literal_message(d, p, ld64(p + 9), 0xFFFFFFFF, type == EV_MESSAGE_LITERAL_CALLSTACK);
        break;
    case EV_MESSAGE_LITERAL_COLOR:
    case EV_MESSAGE_LITERAL_COLOR_CALLSTACK:
        literal_message(d, p, ld64(p + 12), 0xFF000000u | ((uint32_t)p[9] << 16) | ((uint32_t)p[10] << 8) | p[11],
                        type == EV_MESSAGE_LITERAL_COLOR_CALLSTACK);
        break;
    case EV_MESSAGE_APP_INFO: model_app_info(m, ldi64(p + 1)); break;

    /* ---- plots ---- */
    case EV_PLOT_DATA_INT:
        model_plot_data(m, ld64(p + 1), advance(&d->ref_thread, ldi64(p + 9)), (double)ldi64(p + 17));
        break;
    case EV_PLOT_DATA_FLOAT:
        model_plot_data(m, ld64(p + 1), advance(&d->ref_thread, ldi64(p + 9)), (double)ldf32(p + 17));
        break;
    case EV_PLOT_DATA_DOUBLE:
        model_plot_data(m, ld64(p + 1), advance(&d->ref_thread, ldi64(p + 9)), ldf64(p + 17));
        break;
    case EV_PLOT_CONFIG: model_plot_config(m, ld64(p + 1), p[9], p[10], p[11], ld32(p + 12)); break;
    case EV_SYS_TIME_REPORT: model_sys_time(m, ldi64(p + 1), ldf32(p + 9)); break;
    case EV_SYS_POWER_REPORT: model_sys_power(m, ldi64(p + 1), ld64(p + 9), ld64(p + 17)); break;

    /* ---- call stacks, symbols, code ---- */
    case EV_CALLSTACK:
    case EV_CALLSTACK_ALLOC: model_callstack(m); break;
    case EV_CALLSTACK_SERIAL: model_callstack_serial(m); break;
    case EV_CALLSTACK_SAMPLE:
    case EV_CALLSTACK_SAMPLE_CTX_SWITCH:
        callstack_sample64(d, p, type == EV_CALLSTACK_SAMPLE_CTX_SWITCH);
        break;
    case EV_CALLSTACK_SAMPLE32:
    case EV_CALLSTACK_SAMPLE_CTX_SWITCH32:
        model_callstack_sample(m, ld32(p + 1), advance(&d->ref_ctx, (int64_t)ld32(p + 5) + PROTO_OFFSET_16BIT),
                               type == EV_CALLSTACK_SAMPLE_CTX_SWITCH32);
        break;
    case EV_CALLSTACK_SAMPLE16:
    case EV_CALLSTACK_SAMPLE_CTX_SWITCH16:
        model_callstack_sample(m, ld32(p + 1), advance(&d->ref_ctx, ld16(p + 5)),
                               type == EV_CALLSTACK_SAMPLE_CTX_SWITCH16);
        break;
    case EV_CALLSTACK_FRAME_SIZE: model_callstack_frame_size(m, ld64(p + 1), p[9]); break;
    case EV_CALLSTACK_FRAME: model_callstack_frame(m, ld32(p + 1), ld64(p + 5), ld32(p + 13)); break;
    case EV_SYMBOL_INFORMATION: model_symbol_information(m, ld32(p + 1), ld64(p + 5)); break;
    case EV_ACK_SYMBOL_CODE_NOT_AVAILABLE: model_symbol_code_unavailable(m); break;
    case EV_ACK_SOURCE_CODE_NOT_AVAILABLE: model_source_code_unavailable(m, ld32(p + 1)); break;
    case EV_ACK_SERVER_QUERY_NOOP: query_credit(m->queries); break;

    /* ---- locks ---- */
    case EV_LOCK_ANNOUNCE: model_lock_announce(m, ld32(p + 1), ldi64(p + 5), ld64(p + 13), p[21]); break;
    case EV_LOCK_TERMINATE: model_lock_terminate(m, ld32(p + 1), ldi64(p + 5)); break;
    case EV_LOCK_WAIT: model_lock_event(m, ld32(p + 5), ld32(p + 1), advance(&d->ref_serial, ldi64(p + 9)), 0, true); break;
    case EV_LOCK_OBTAIN: model_lock_event(m, ld32(p + 5), ld32(p + 1), advance(&d->ref_serial, ldi64(p + 9)), 1, true); break;
    case EV_LOCK_RELEASE: model_lock_event(m, ld32(p + 1), 0, advance(&d->ref_serial, ldi64(p + 5)), 2, false); break;
    case EV_LOCK_SHARED_WAIT: model_lock_event(m, ld32(p + 5), ld32(p + 1), advance(&d->ref_serial, ldi64(p + 9)), 3, true); break;
    case EV_LOCK_SHARED_OBTAIN: model_lock_event(m, ld32(p + 5), ld32(p + 1), advance(&d->ref_serial, ldi64(p + 9)), 4, true); break;
    case EV_LOCK_SHARED_RELEASE: model_lock_event(m, ld32(p + 1), ld32(p + 13), advance(&d->ref_serial, ldi64(p + 5)), 5, true); break;
    case EV_LOCK_MARK: model_lock_mark(m, ld32(p + 5), ld32(p + 1), ld64(p + 9)); break;
    case EV_LOCK_NAME: model_lock_name(m, ld32(p + 1)); break;

    /* ---- memory ---- */
    case EV_MEM_NAME_PAYLOAD: model_mem_name_payload(m, ld64(p + 1)); break;
    case EV_MEM_ALLOC:
    case EV_MEM_ALLOC_NAMED:
    case EV_MEM_ALLOC_CALLSTACK:
    case EV_MEM_ALLOC_CALLSTACK_NAMED: {
        const uint64_t size = ld32(p + 21) | ((uint64_t)ld16(p + 25) << 32);
        model_mem_alloc(m, advance(&d->ref_serial, ldi64(p + 1)), ld32(p + 9), ld64(p + 13), size,
                        type == EV_MEM_ALLOC_NAMED || type == EV_MEM_ALLOC_CALLSTACK_NAMED,
                        type == EV_MEM_ALLOC_CALLSTACK || type == EV_MEM_ALLOC_CALLSTACK_NAMED);
        break;
    }
    case EV_MEM_FREE:
    case EV_MEM_FREE_NAMED:
    case EV_MEM_FREE_CALLSTACK:
    case EV_MEM_FREE_CALLSTACK_NAMED:
        model_mem_free(m, advance(&d->ref_serial, ldi64(p + 1)), ld32(p + 9), ld64(p + 13),
                       type == EV_MEM_FREE_NAMED || type == EV_MEM_FREE_CALLSTACK_NAMED,
                       type == EV_MEM_FREE_CALLSTACK || type == EV_MEM_FREE_CALLSTACK_NAMED);
        break;
    case EV_MEM_DISCARD:
    case EV_MEM_DISCARD_CALLSTACK:
        model_mem_discard(m, advance(&d->ref_serial, ldi64(p + 1)), ld32(p + 9), ld64(p + 13),
                          type == EV_MEM_DISCARD_CALLSTACK);
        break;

    /* ---- GPU ---- */
    case EV_GPU_NEW_CONTEXT:
        model_gpu_new_context(m, ldi64(p + 1), ldi64(p + 9), ld32(p + 17), ldf32(p + 21), p[25], p[26], p[27]);
        break;
    case EV_GPU_ZONE_BEGIN:
    case EV_GPU_ZONE_BEGIN_CALLSTACK:
        model_gpu_zone_begin(m, advance(&d->ref_thread, ldi64(p + 1)), ld32(p + 9), ld16(p + 13), p[15],
                             ld64(p + 16), false, type == EV_GPU_ZONE_BEGIN_CALLSTACK, false);
        break;
    case EV_GPU_ZONE_BEGIN_SERIAL:
    case EV_GPU_ZONE_BEGIN_CALLSTACK_SERIAL:
        model_gpu_zone_begin(m, advance(&d->ref_serial, ldi64(p + 1)), ld32(p + 9), ld16(p + 13), p[15],
                             ld64(p + 16), false, type == EV_GPU_ZONE_BEGIN_CALLSTACK_SERIAL, true);
        break;
    case EV_GPU_ZONE_BEGIN_ALLOC_SRCLOC:
    case EV_GPU_ZONE_BEGIN_ALLOC_SRCLOC_CALLSTACK:
        model_gpu_zone_begin(m, advance(&d->ref_thread, ldi64(p + 1)), ld32(p + 9), ld16(p + 13), p[15], 0,
                             true, type == EV_GPU_ZONE_BEGIN_ALLOC_SRCLOC_CALLSTACK, false);
        break;
    case EV_GPU_ZONE_BEGIN_ALLOC_SRCLOC_SERIAL:
    case EV_GPU_ZONE_BEGIN_ALLOC_SRCLOC_CALLSTACK_SERIAL:
        model_gpu_zone_begin(m, advance(&d->ref_serial, ldi64(p + 1)), ld32(p + 9), ld16(p + 13), p[15], 0,
                             true, type == EV_GPU_ZONE_BEGIN_ALLOC_SRCLOC_CALLSTACK_SERIAL, true);
        break;
    case EV_GPU_ZONE_END:
        model_gpu_zone_end(m, advance(&d->ref_thread, ldi64(p + 1)), ld32(p + 9), ld16(p + 13), p[15]);
        break;
    case EV_GPU_ZONE_END_SERIAL:
        model_gpu_zone_end(m, advance(&d->ref_serial, ldi64(p + 1)), ld32(p + 9), ld16(p + 13), p[15]);
        break;
    case EV_GPU_TIME: model_gpu_time(m, advance(&d->ref_gpu, ldi64(p + 1)), ld16(p + 9), p[11]); break;
    case EV_GPU_CALIBRATION: model_gpu_calibration(m, ldi64(p + 1), ldi64(p + 9), ldi64(p + 17), p[25]); break;
    case EV_GPU_TIME_SYNC: model_gpu_time_sync(m, ldi64(p + 1), ldi64(p + 9), p[17]); break;
    case EV_GPU_CONTEXT_NAME: model_gpu_context_name(m, p[1]); break;
    case EV_GPU_ANNOTATION_NAME: model_gpu_annotation_name(m, ldi64(p + 1), p[9]); break;
    case EV_GPU_ZONE_ANNOTATION:
        model_gpu_zone_annotation(m, ldi64(p + 1), ldf64(p + 9), ld32(p + 17), ld16(p + 21), p[23]);
        break;

    /* ---- scheduling, system, hardware ---- */
    case EV_CONTEXT_SWITCH:
        model_context_switch(m, advance(&d->ref_ctx, ldi64(p + 1)), ld32(p + 9), ld32(p + 13), p[17], p[18], p[19]);
        break;
    case EV_THREAD_WAKEUP:   /* 64-72: no cpu (0, as their server's record has) */
        model_thread_wakeup(m, advance(&d->ref_ctx, ldi64(p + 1)), ld32(p + 9), (d->layout & PL_WAKEUP_CPU) ? p[13] : 0);
        break;
    case EV_TID_TO_PID: model_tid_to_pid(m, ld64(p + 1), ld64(p + 9)); break;
    case EV_HW_SAMPLE_CPU_CYCLE:
    case EV_HW_SAMPLE_INSTRUCTION_RETIRED:
    case EV_HW_SAMPLE_CACHE_REFERENCE:
    case EV_HW_SAMPLE_CACHE_MISS:
    case EV_HW_SAMPLE_BRANCH_RETIRED:
    case EV_HW_SAMPLE_BRANCH_MISS:
        model_hw_sample(m, type - EV_HW_SAMPLE_CPU_CYCLE, ld64(p + 1), ldi64(p + 9));
        break;
    case EV_CPU_TOPOLOGY:
        if (d->layout & PL_TOPO_DIE) model_cpu_topology(m, ld32(p + 1), ld32(p + 5), ld32(p + 9), ld32(p + 13));
        else model_cpu_topology(m, ld32(p + 1), 0, ld32(p + 5), ld32(p + 9));
        break;
    case EV_PARAM_SETUP: model_param_setup(m, ld32(p + 1), ld64(p + 5), p[13], (int32_t)ld32(p + 14)); break;
    case EV_THREAD_GROUP_HINT: model_thread_group_hint(m, ld32(p + 1), (int32_t)ld32(p + 5)); break;

    /* ---- fibers and sections ---- */
    case EV_FIBER_ENTER:
        model_fiber_enter(m, advance(&d->ref_thread, ldi64(p + 1)), ld64(p + 9), ld32(p + 17),
                          (d->layout & PL_FIBER_GROUP) ? (int32_t)ld32(p + 21) : 0);
        break;
    case EV_FIBER_LEAVE: model_fiber_leave(m, advance(&d->ref_thread, ldi64(p + 1)), ld32(p + 9)); break;
    case EV_SECTION_ENTER: model_section_enter(m, advance(&d->ref_thread, ldi64(p + 1)), ld32(p + 9), ld16(p + 13)); break;
    case EV_SECTION_LEAVE: model_section_leave(m, advance(&d->ref_thread, ldi64(p + 1)), ld32(p + 9)); break;
    case EV_SECTION_SETUP: model_section_setup(m, ld16(p + 1)); break;

    /* ---- session control ---- */
    case EV_TERMINATE: m->terminate = true; break;
    case EV_KEEP_ALIVE: break;
    case EV_CRASH: m->crashed = true; break;
    case EV_CRASH_REPORT: model_crash_report(m, ldi64(p + 1), ld64(p + 9)); break;
    default: break;   /* unreachable: event_size() rejected it */
    }
}

int event_decode_frame(event_decoder_t *d, const uint8_t *p, size_t n, size_t *where,
                       char *err, size_t errlen)
{
    size_t off = 0;
    while (off < n) {
        const uint8_t type = d->t.canon[p[off]];
        d->model->ev_at = p + off;
        if ((type >= EV_ZONE_BEGIN && type <= EV_ZONE_BEGIN16) || (type >= EV_ZONE_END && type <= EV_ZONE_END16)) {
            const size_t used = (d->layout & PL_COMPACT_TIMES)
                                    ? zone_run(d->model, p + off, n - off, &d->ref_thread)
                                    : zone_run_wide(d->model, p + off, n - off, &d->ref_thread,
                                                    d->t.wire[EV_ZONE_BEGIN], d->t.wire[EV_ZONE_END]);
            if (used) {
                off += used;
                continue;
            }
        }
        size_t size = d->t.fixed[p[off]];
        if (size == 0 || size > n - off) size = size_at(&d->t, p + off, n - off, err, errlen);
        if (size == 0) {
            *where = off;
            return -1;
        }
        decode_one(d, type, p + off, size, off < d->numbered_until);
        off += size;
    }
    return 0;
}
