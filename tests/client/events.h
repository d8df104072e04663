/* events.h - encoders for the protocol-82 events tracy-test-client sends.
 * Each function appends one complete wire group (e.g. SingleString +
 * ZoneText) to the pending frame. Times are absolute client ticks; the
 * encoders turn them into the deltas and compact forms of spec §6. */
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

/* Raw bytes as one "event" (garbage injection). */
void ev_raw(struct tc_client *c, const void *bytes, size_t len);

/* --- query answers (§4.2) --- */
void ev_string_transfer(struct tc_client *c, uint8_t type, uint64_t ptr, const char *text);
void ev_source_location(struct tc_client *c, uint64_t name, uint64_t function, uint64_t file,
                        uint32_t line, uint32_t rgb);
void ev_ack(struct tc_client *c, uint8_t type);
void ev_ack_source_code(struct tc_client *c, uint32_t id);
void ev_callstack_frame_answer(struct tc_client *c, uint64_t addr, const char *image,
                               const char *function, const char *file, uint32_t line,
                               uint64_t sym_addr, uint32_t sym_len);
void ev_symbol_answer(struct tc_client *c, uint64_t sym_addr, const char *file, uint32_t line);

#endif
