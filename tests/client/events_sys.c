/* events_sys.c - encoders of the event families a client with
 * system tracing, fibers and the less common APIs sends, for
 * tracy-test-client: sampling (CallstackSample*, compact ctx-time forms),
 * scheduling (ContextSwitch, ThreadWakeup, CpuTopology), hardware samples,
 * system time and power reports, fibers, sections, frame images, memory
 * discards, lock marks, Lua-style allocated call stacks, crash reports and
 * the remaining control events (ParamSetup, FrameVsync). Layouts: spec
 * §5.2; sequences §5.6; time forms §6.3; the older protocols' layouts:
 * protocol-older.md §4. */
#include "events.h"

#include "evbuf.h"
#include "manifest.h"

/* ------------------------------------------------------------- sampling */

void ev_callstack_sample(struct tc_client *c, uint32_t thread, int64_t t, const uint64_t *frames,
                         size_t n, bool context_switch)
{
    evb_callstack_payload(c, frames, n);
    ev_callstack_sample_staged(c, thread, t, context_switch);
}

void ev_callstack_sample_staged(struct tc_client *c, uint32_t thread, int64_t t, bool context_switch)
{
    struct evb e = evb_compact_time(c, context_switch ? TC_EV_CALLSTACK_SAMPLE_CONTEXT_SWITCH
                                                      : TC_EV_CALLSTACK_SAMPLE,
                                    evb_ctx_delta(c, t));
    if (!proto_feature(&c->proto, TC_FEAT_SAMPLE_THREAD_FIRST)) {
        b_u32(&e, thread); /* before protocol 82: time, then thread */
        evb_emit(c, &e);
        return;
    }
    /* the thread field precedes the time: rebuild with it in place */
    struct evb out = evb_start(e.b[0]);
    b_u32(&out, thread);
    for (size_t i = 1; i < e.n; i++)
        b_u8(&out, e.b[i]);
    evb_emit(c, &out);
}

/* ----------------------------------------------------------- scheduling */

void ev_context_switch(struct tc_client *c, const struct tc_ctx_switch *s)
{
    struct evb e = evb_start(TC_EV_CONTEXT_SWITCH);
    b_i64(&e, evb_ctx_delta(c, s->time));
    b_u32(&e, s->old_thread);
    b_u32(&e, s->new_thread);
    b_u8(&e, s->cpu);
    b_u8(&e, s->wait_reason);
    b_u8(&e, s->state);
    if (proto_feature(&c->proto, TC_FEAT_SCHED_DETAILS)) {
        b_u8(&e, 0); /* previousCState */
        b_u8(&e, (uint8_t)s->new_priority);
        b_u8(&e, (uint8_t)s->old_priority);
    }
    evb_emit(c, &e);
}

void ev_thread_wakeup(struct tc_client *c, int64_t t, uint32_t thread, uint8_t cpu)
{
    struct evb e = evb_start(TC_EV_THREAD_WAKEUP);
    b_i64(&e, evb_ctx_delta(c, t));
    b_u32(&e, thread);
    if (proto_feature(&c->proto, TC_FEAT_SCHED_DETAILS)) {
        b_u8(&e, cpu);
        b_u8(&e, (uint8_t)-1); /* adjustReason: none on Linux */
        b_u8(&e, 0);           /* adjustIncrement */
    }
    evb_emit(c, &e);
}

void ev_cpu_topology(struct tc_client *c, uint32_t package, uint32_t die, uint32_t core,
                     uint32_t cpu)
{
    struct evb e = evb_start(TC_EV_CPU_TOPOLOGY);
    b_u32(&e, package);
    if (proto_feature(&c->proto, TC_FEAT_TOPOLOGY_DIE))
        b_u32(&e, die);
    b_u32(&e, core);
    b_u32(&e, cpu);
    evb_emit(c, &e);
}

/* ------------------------------------------------- hardware and system */

void ev_hw_sample(struct tc_client *c, enum tc_hw_kind kind, uint64_t ip, int64_t t)
{
    struct evb e = evb_start((uint8_t)(TC_EV_HW_SAMPLE_CPU_CYCLE + kind));
    b_u64(&e, ip);
    b_i64(&e, t);
    evb_emit(c, &e);
}

void ev_sys_time(struct tc_client *c, int64_t t, float percent)
{
    struct evb e = evb_start(TC_EV_SYS_TIME_REPORT);
    b_i64(&e, t);
    b_f32(&e, percent);
    evb_emit(c, &e);
}

void ev_sys_power(struct tc_client *c, int64_t t, uint64_t delta_uj, uint64_t name)
{
    struct evb e = evb_start(TC_EV_SYS_POWER_REPORT);
    b_i64(&e, t);
    b_u64(&e, delta_uj);
    b_u64(&e, name);
    evb_emit(c, &e);
}

/* ---------------------------------------------------- fibers, sections */

void ev_fiber_enter(struct tc_client *c, uint32_t tid, int64_t t, uint64_t fiber,
                    int32_t group_hint)
{
    ev_thread_context(c, tid);
    struct evb e = evb_start(TC_EV_FIBER_ENTER);
    b_i64(&e, evb_thread_delta(c, t));
    b_u64(&e, fiber);
    b_u32(&e, tid);
    if (proto_feature(&c->proto, TC_FEAT_FIBER_GROUP_HINT))
        b_u32(&e, (uint32_t)group_hint);
    evb_emit(c, &e);
}

void ev_fiber_leave(struct tc_client *c, uint32_t tid, int64_t t)
{
    ev_thread_context(c, tid);
    struct evb e = evb_start(TC_EV_FIBER_LEAVE);
    b_i64(&e, evb_thread_delta(c, t));
    b_u32(&e, tid);
    evb_emit(c, &e);
}

void ev_section_setup(struct tc_client *c, uint16_t category, const char *description)
{
    if (description)
        evb_staged_string(c, false, description);
    struct evb e = evb_start(TC_EV_SECTION_SETUP);
    b_u16(&e, category);
    evb_emit(c, &e);
}

void ev_section_enter(struct tc_client *c, uint32_t tid, int64_t t, uint32_t id,
                      uint16_t category, const char *text)
{
    ev_thread_context(c, tid);
    evb_staged_string(c, false, text);
    struct evb e = evb_start(TC_EV_SECTION_ENTER);
    b_i64(&e, evb_thread_delta(c, t));
    b_u32(&e, id);
    b_u16(&e, category);
    evb_emit(c, &e);
}

void ev_section_leave(struct tc_client *c, uint32_t tid, int64_t t, uint32_t id)
{
    ev_thread_context(c, tid);
    struct evb e = evb_start(TC_EV_SECTION_LEAVE);
    b_i64(&e, evb_thread_delta(c, t));
    b_u32(&e, id);
    evb_emit(c, &e);
}

/* -------------------------------------------------------- frame images */

void ev_frame_image(struct tc_client *c, const void *blocks, uint32_t len, uint32_t frame,
                    uint16_t w, uint16_t h, bool flip)
{
    uint64_t ptr = 0x7c0000000000ull + 0x100 * c->ev.next_payload++;
    evb_long_transfer(c, TC_EV_FRAME_IMAGE_DATA, ptr, blocks, len);
    struct evb e = evb_start(TC_EV_FRAME_IMAGE);
    b_u32(&e, frame);
    b_u16(&e, w);
    b_u16(&e, h);
    b_u8(&e, flip);
    evb_emit(c, &e);
}

/* ------------------------------------------------------ memory, locks */

void ev_mem_discard(struct tc_client *c, uint32_t tid, int64_t t, uint64_t pool,
                    const uint64_t *frames, size_t n_frames)
{
    if (n_frames > 0)
        evb_serial_callstack(c, frames, n_frames);
    struct evb e = evb_start(n_frames > 0 ? TC_EV_MEM_DISCARD_CALLSTACK : TC_EV_MEM_DISCARD);
    b_i64(&e, evb_serial_delta(c, t));
    b_u32(&e, tid);
    b_u64(&e, pool);
    evb_emit(c, &e);
}

void ev_lock_mark(struct tc_client *c, uint32_t tid, uint32_t id, uint64_t srcloc)
{
    struct evb e = evb_start(TC_EV_LOCK_MARK);
    b_u32(&e, tid);
    b_u32(&e, id);
    b_u64(&e, srcloc);
    evb_emit(c, &e);
}

/* ---------------------------------------------- allocated call stacks */

static size_t put_counted(uint8_t *out, const char *s)
{
    size_t len = strlen(s);
    out[0] = (uint8_t)len;
    out[1] = (uint8_t)(len >> 8);
    memcpy(out + 2, s, len);
    return 2 + len;
}

/* The CallstackAllocPayload trailer of §5.5; returns its length. */
static size_t build_alloc_payload(uint8_t *out, size_t cap, const struct tc_alloc_frame *f,
                                  size_t n)
{
    size_t p = 0;
    out[p++] = (uint8_t)n;
    for (size_t i = 0; i < n; i++) {
        if (p + 8 + strlen(f[i].function) + strlen(f[i].source) > cap)
            return 0;
        for (int k = 0; k < 4; k++)
            out[p++] = (uint8_t)(f[i].line >> (8 * k));
        p += put_counted(out + p, f[i].function);
        p += put_counted(out + p, f[i].source);
    }
    return p;
}

static uint64_t bytes_hash(uint64_t h, const void *data, size_t len)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* Record what the server interns: each allocated frame, and the whole
 * stack (allocated frames prepended to the native ones). */
static void note_alloc_stack(struct tc_client *c, const uint8_t *payload, size_t len,
                             const struct tc_alloc_frame *f, size_t n, const uint64_t *native,
                             size_t n_native)
{
    const uint64_t basis = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = bytes_hash(basis, &f[i].line, sizeof(f[i].line));
        h = bytes_hash(h, f[i].function, strlen(f[i].function) + 1);
        manifest_alloc_frame(c, bytes_hash(h, f[i].source, strlen(f[i].source) + 1));
    }
    uint64_t stack = bytes_hash(basis ^ 0x5a, payload, len);
    manifest_callstack(c, bytes_hash(stack, native, n_native * sizeof(*native)));
}

void ev_callstack_alloc(struct tc_client *c, uint32_t tid, const uint64_t *native,
                        size_t n_native, const struct tc_alloc_frame *frames, size_t n)
{
    uint8_t payload[2048];
    size_t len = build_alloc_payload(payload, sizeof(payload), frames, n);
    ev_thread_context(c, tid);
    if (n_native > 0)
        evb_callstack_payload(c, native, n_native);
    struct evb p = evb_start(TC_EV_CALLSTACK_ALLOC_PAYLOAD);
    b_u64(&p, 0x7b0000000000ull + 0x100 * c->ev.next_payload++);
    b_u16(&p, (uint16_t)len);
    evb_emit_trailer(c, &p, payload, len);
    struct evb e = evb_start(TC_EV_CALLSTACK_ALLOC);
    evb_emit(c, &e);
    note_alloc_stack(c, payload, len, frames, n, native, n_native);
}

/* Consumers of the per-thread slot that ev_callstack_alloc filled. */
void ev_zone_begin_alloc_staged(struct tc_client *c, uint32_t tid, int64_t t,
                                const struct tc_srcloc_entry *loc)
{
    ev_thread_context(c, tid);
    evb_srcloc_payload(c, loc);
    struct evb e = evb_start(TC_EV_ZONE_BEGIN_ALLOC_SRCLOC_CALLSTACK);
    b_i64(&e, evb_thread_delta(c, t));
    evb_emit(c, &e);
}

void ev_message_staged(struct tc_client *c, uint32_t tid, int64_t t, const char *text,
                       uint8_t meta)
{
    ev_thread_context(c, tid);
    evb_staged_string(c, false, text);
    struct evb e = evb_start(TC_EV_MESSAGE_CALLSTACK);
    b_i64(&e, t);
    evb_message_meta(c, &e, meta);
    evb_emit(c, &e);
}

/* -------------------------------------------------------------- crash */

void ev_crash_report(struct tc_client *c, uint32_t tid, int64_t t, uint64_t text,
                     const uint64_t *frames, size_t n_frames)
{
    ev_thread_context(c, tid);
    evb_thread_callstack(c, frames, n_frames);
    struct evb e = evb_start(TC_EV_CRASH_REPORT);
    b_i64(&e, t);
    b_u64(&e, text);
    evb_emit(c, &e);
}

void ev_crash(struct tc_client *c)
{
    struct evb e = evb_start(TC_EV_CRASH);
    evb_emit(c, &e);
}

/* --------------------------------------------------------------- misc */

/* Before protocol 82 the type byte is a bool flag: Integer 0 and Boolean
 * 1 keep their value, a Trigger is not asked for (TC_FEAT_PARAM_TRIGGER). */
void ev_param_setup(struct tc_client *c, uint32_t idx, uint64_t name, uint8_t type, int32_t val)
{
    struct evb e = evb_start(TC_EV_PARAM_SETUP);
    b_u32(&e, idx);
    b_u64(&e, name);
    b_u8(&e, type);
    b_u32(&e, (uint32_t)val);
    evb_emit(c, &e);
}

void ev_frame_vsync(struct tc_client *c, int64_t t, uint32_t id)
{
    struct evb e = evb_start(TC_EV_FRAME_VSYNC);
    b_i64(&e, t);
    b_u32(&e, id);
    evb_emit(c, &e);
}
