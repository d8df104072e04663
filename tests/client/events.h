/* events.h - encoders for the events tracy-test-client sends (implemented
 * in events.c, events_gpu.c and events_sys.c), in the form of the
 * negotiated protocol (c->proto). Each function appends one complete wire
 * group (e.g. SingleString + ZoneText) to the pending frame. Times are
 * absolute client ticks (GPU times: GPU ticks); the encoders turn them into
 * the deltas and compact forms of spec §6. An event the protocol lacks
 * (proto_has false: sections, GPU annotations, GpuTimeSync, MemDiscard,
 * ThreadGroupHint) must not be asked for: the scenarios skip those
 * families, and an encoder asked anyway aborts. Fields a protocol lacks
 * (a fiber's group hint, a CPU's die, a context switch's priorities, a
 * message's severity) are left out by the encoder. */
#ifndef TC_EVENTS_H
#define TC_EVENTS_H

#include "client.h"

/* Forget the thread context and references (new session, §2.6). */
void ev_reset(struct tc_client *c);

/* --- per-thread events (emit ThreadContext when the thread changes) --- */
void ev_thread_context(struct tc_client *c, uint32_t tid);
void ev_zone_begin(struct tc_client *c, uint32_t tid, int64_t t, uint64_t srcloc);
void ev_zone_begin_callstack(struct tc_client *c, uint32_t tid, int64_t t, uint64_t srcloc,
                             const uint64_t *frames, size_t n_frames);
/* Allocated source location; n_frames > 0 selects the Callstack variant. */
void ev_zone_begin_alloc(struct tc_client *c, uint32_t tid, int64_t t,
                         const struct tc_srcloc_entry *loc, const uint64_t *frames,
                         size_t n_frames);
void ev_zone_end(struct tc_client *c, uint32_t tid, int64_t t);
void ev_zone_validation(struct tc_client *c, uint32_t tid, uint32_t id);
void ev_zone_text(struct tc_client *c, uint32_t tid, const char *text);
void ev_zone_name(struct tc_client *c, uint32_t tid, const char *text);
void ev_zone_color(struct tc_client *c, uint32_t tid, uint32_t rgb);
void ev_zone_value(struct tc_client *c, uint32_t tid, uint64_t value);

/* Messages; n_frames > 0 selects the Callstack variants. */
void ev_message(struct tc_client *c, uint32_t tid, int64_t t, const char *text, uint8_t meta,
                const uint64_t *frames, size_t n_frames);
void ev_message_color(struct tc_client *c, uint32_t tid, int64_t t, const char *text,
                      uint32_t rgb, uint8_t meta, const uint64_t *frames, size_t n_frames);
void ev_message_literal(struct tc_client *c, uint32_t tid, int64_t t, uint64_t text_ptr,
                        uint8_t meta, const uint64_t *frames, size_t n_frames);
void ev_message_literal_color(struct tc_client *c, uint32_t tid, int64_t t, uint64_t text_ptr,
                              uint32_t rgb, uint8_t meta, const uint64_t *frames,
                              size_t n_frames);

void ev_plot_int(struct tc_client *c, uint32_t tid, uint64_t name, int64_t t, int64_t v);
void ev_plot_float(struct tc_client *c, uint32_t tid, uint64_t name, int64_t t, float v);
void ev_plot_double(struct tc_client *c, uint32_t tid, uint64_t name, int64_t t, double v);

/* --- events independent of the thread context --- */
void ev_app_info(struct tc_client *c, int64_t t, const char *text);
void ev_frame_mark(struct tc_client *c, int64_t t, uint64_t name);
void ev_frame_mark_start(struct tc_client *c, int64_t t, uint64_t name);
void ev_frame_mark_end(struct tc_client *c, int64_t t, uint64_t name);
void ev_plot_config(struct tc_client *c, uint64_t name, uint8_t format, bool step, bool fill,
                    uint32_t color);

void ev_lock_announce(struct tc_client *c, uint32_t id, int64_t t, uint64_t srcloc,
                      uint8_t type);
void ev_lock_terminate(struct tc_client *c, uint32_t id, int64_t t);
void ev_lock_name(struct tc_client *c, uint32_t id, const char *name);
void ev_lock_wait(struct tc_client *c, uint32_t tid, uint32_t id, int64_t t, bool shared);
void ev_lock_obtain(struct tc_client *c, uint32_t tid, uint32_t id, int64_t t, bool shared);
void ev_lock_release(struct tc_client *c, uint32_t tid, uint32_t id, int64_t t, bool shared);

/* Memory events; pool 0 = default pool, else MemNamePayload(pool). */
void ev_mem_alloc(struct tc_client *c, uint32_t tid, int64_t t, uint64_t ptr, uint64_t size,
                  uint64_t pool, const uint64_t *frames, size_t n_frames);
void ev_mem_free(struct tc_client *c, uint32_t tid, int64_t t, uint64_t ptr, uint64_t pool,
                 const uint64_t *frames, size_t n_frames);

void ev_keep_alive(struct tc_client *c);

/* Content identity of a call stack (what the manifest counts as one). */
uint64_t ev_frames_hash(const uint64_t *frames, size_t n);

/* Raw bytes as one "event" (garbage injection). */
void ev_raw(struct tc_client *c, const void *bytes, size_t len);
/* The protocol's type byte of a protocol-82 event id, for raw bytes. */
uint8_t ev_wire_type(const struct tc_client *c, uint8_t id);

/* --- GPU (events_gpu.c) --- */
struct tc_gpu_context {
    int64_t cpu_time, gpu_time;
    uint32_t thread;          /* 0: not bound to one thread */
    float period;             /* ns per GPU tick */
    uint8_t context, flags, type;
};
void ev_gpu_new_context(struct tc_client *c, const struct tc_gpu_context *g);
void ev_gpu_context_name(struct tc_client *c, uint8_t context, const char *name);
void ev_gpu_annotation_name(struct tc_client *c, uint8_t context, int64_t note,
                            const char *name);

/* A GPU zone begin: loc->addr == 0 selects the AllocSrcLoc forms,
 * n_frames > 0 the Callstack forms, serial the Serial forms. Non-serial
 * forms travel in the ThreadContext of `producer`. */
struct tc_gpu_begin {
    int64_t cpu_time;
    uint32_t producer, thread;
    uint16_t query;
    uint8_t context;
    bool serial;
    const struct tc_srcloc_entry *loc;
    const uint64_t *frames;
    size_t n_frames;
};
struct tc_gpu_end {
    int64_t cpu_time;
    uint32_t producer, thread;
    uint16_t query;
    uint8_t context;
    bool serial;
};
void ev_gpu_zone_begin(struct tc_client *c, const struct tc_gpu_begin *z);
void ev_gpu_zone_end(struct tc_client *c, const struct tc_gpu_end *z);
void ev_gpu_time(struct tc_client *c, int64_t gpu_ticks, uint16_t query, uint8_t context);
void ev_gpu_calibration(struct tc_client *c, int64_t gpu_ticks, int64_t cpu_time,
                        int64_t cpu_delta, uint8_t context);
void ev_gpu_time_sync(struct tc_client *c, int64_t gpu_ticks, int64_t cpu_time, uint8_t context);
void ev_gpu_zone_annotation(struct tc_client *c, int64_t note, double value, uint32_t thread,
                            uint16_t query, uint8_t context);

/* --- sampling, scheduling, system (events_sys.c) --- */
void ev_callstack_sample(struct tc_client *c, uint32_t thread, int64_t t, const uint64_t *frames,
                         size_t n, bool context_switch);
/* The sample alone, on the call stack a payload sent before staged. */
void ev_callstack_sample_staged(struct tc_client *c, uint32_t thread, int64_t t, bool context_switch);
struct tc_ctx_switch {
    int64_t time;
    uint32_t old_thread, new_thread; /* 0 = idle */
    uint8_t cpu, wait_reason, state;
    int8_t new_priority, old_priority;
};
void ev_context_switch(struct tc_client *c, const struct tc_ctx_switch *s);
void ev_thread_wakeup(struct tc_client *c, int64_t t, uint32_t thread, uint8_t cpu);
void ev_cpu_topology(struct tc_client *c, uint32_t package, uint32_t die, uint32_t core,
                     uint32_t cpu);
void ev_hw_sample(struct tc_client *c, enum tc_hw_kind kind, uint64_t ip, int64_t t);
void ev_sys_time(struct tc_client *c, int64_t t, float percent);
void ev_sys_power(struct tc_client *c, int64_t t, uint64_t delta_uj, uint64_t name);

/* --- fibers, sections, frame images, memory, locks, misc (events_sys.c) --- */
void ev_fiber_enter(struct tc_client *c, uint32_t tid, int64_t t, uint64_t fiber,
                    int32_t group_hint);
void ev_fiber_leave(struct tc_client *c, uint32_t tid, int64_t t);
/* description NULL: the on-demand replay form without its string (§2.6) */
void ev_section_setup(struct tc_client *c, uint16_t category, const char *description);
void ev_section_enter(struct tc_client *c, uint32_t tid, int64_t t, uint32_t id,
                      uint16_t category, const char *text);
void ev_section_leave(struct tc_client *c, uint32_t tid, int64_t t, uint32_t id);
void ev_frame_image(struct tc_client *c, const void *blocks, uint32_t len, uint32_t frame,
                    uint16_t w, uint16_t h, bool flip);
void ev_mem_discard(struct tc_client *c, uint32_t tid, int64_t t, uint64_t pool,
                    const uint64_t *frames, size_t n_frames);
void ev_lock_mark(struct tc_client *c, uint32_t tid, uint32_t id, uint64_t srcloc);

/* One frame of a Lua-style allocated call stack (§5.5). */
struct tc_alloc_frame {
    uint32_t line;
    const char *function, *source;
};
/* [CallstackPayload(native),] CallstackAllocPayload, CallstackAlloc. */
void ev_callstack_alloc(struct tc_client *c, uint32_t tid, const uint64_t *native,
                        size_t n_native, const struct tc_alloc_frame *frames, size_t n);
/* SourceLocationPayload + ZoneBeginAllocSrcLocCallstack / SingleString +
 * MessageCallstack taking the call stack ev_callstack_alloc staged. */
void ev_zone_begin_alloc_staged(struct tc_client *c, uint32_t tid, int64_t t,
                                const struct tc_srcloc_entry *loc);
void ev_message_staged(struct tc_client *c, uint32_t tid, int64_t t, const char *text,
                       uint8_t meta);
/* CallstackPayload, Callstack, CrashReport (§8.4); then ev_crash. */
void ev_crash_report(struct tc_client *c, uint32_t tid, int64_t t, uint64_t text,
                     const uint64_t *frames, size_t n_frames);
void ev_crash(struct tc_client *c);
void ev_param_setup(struct tc_client *c, uint32_t idx, uint64_t name, uint8_t type, int32_t val);
void ev_frame_vsync(struct tc_client *c, int64_t t, uint32_t id);

/* --- query answers (§4.2) --- */
void ev_string_transfer(struct tc_client *c, uint8_t type, uint64_t ptr, const char *text);
void ev_source_location(struct tc_client *c, uint64_t name, uint64_t function, uint64_t file,
                        uint32_t line, uint32_t rgb);
void ev_ack(struct tc_client *c, uint8_t type);
void ev_ack_source_code(struct tc_client *c, uint32_t id);
/* n entries of the inline chain of addr, innermost first. */
void ev_callstack_frame_answer(struct tc_client *c, uint64_t addr, const char *image,
                               const struct tc_inline_entry *entries, int n);
void ev_symbol_answer(struct tc_client *c, uint64_t sym_addr, const char *file, uint32_t line);
void ev_symbol_code(struct tc_client *c, uint64_t sym_addr, const void *code, uint32_t len);
void ev_source_code(struct tc_client *c, uint32_t id, const void *text, uint32_t len);
void ev_tid_to_pid(struct tc_client *c, uint64_t tid, uint64_t pid);
void ev_thread_group_hint(struct tc_client *c, uint32_t tid, int32_t hint);

#endif
