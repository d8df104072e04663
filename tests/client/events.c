/* events.c - byte-exact encoders of the events used by tracy-test-client
 * (protocol-82 layouts: spec §5.2, trailers §5.3, payloads §5.5, composite
 * sequences §5.6, time forms §6.3; the older protocols' forms of the same
 * events as protocols.h names them, spec protocol-older.md §4). Every event is built in a
 * small little-endian buffer and handed whole to the frame buffer, so an
 * event never straddles two LZ4 frames. The encoder also keeps the thread
 * context and the thread/serial reference times exactly like a client. */
#include "events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evbuf.h"
#include "manifest.h"
#include "wire.h"

/* The event is built with its protocol-82 id in b[0]; the negotiated
 * protocol's type byte goes on the wire. An event of another size than
 * the protocol's is a bug of its encoder. */
void evb_emit_trailer(struct tc_client *c, const struct evb *e, const void *trailer,
                      size_t trailer_len)
{
    const uint8_t id = e->b[0];
    const uint8_t type = proto_wire(&c->proto, id);
    if (e->n != proto_built_size(&c->proto, id)) {
        fprintf(stderr, "tracy-test-client: bug: event %u of %zu bytes, protocol %u wants %u\n",
                id, e->n, c->proto.version, proto_built_size(&c->proto, id));
        abort();
    }
    wire_reserve(c, e->n + trailer_len);
    wire_put(c, &type, 1);
    wire_put(c, e->b + 1, e->n - 1);
    if (trailer_len)
        wire_put(c, trailer, trailer_len);
    c->ev.sent[type]++;
}

uint8_t ev_wire_type(const struct tc_client *c, uint8_t id)
{
    return proto_wire(&c->proto, id);
}

void evb_emit(struct tc_client *c, const struct evb *e)
{
    evb_emit_trailer(c, e, NULL, 0);
}

void ev_reset(struct tc_client *c)
{
    c->ev.have_thread = false;
    c->ev.thread = 0;
    c->ev.ref_thread = 0;
    c->ev.ref_serial = 0;
    c->ev.ref_ctx = 0;
    c->ev.ref_gpu = 0;
}

void ev_raw(struct tc_client *c, const void *bytes, size_t len)
{
    wire_reserve(c, len);
    wire_put(c, bytes, len);
}

void ev_keep_alive(struct tc_client *c)
{
    struct evb e = evb_start(TC_EV_KEEP_ALIVE);
    evb_emit(c, &e);
}

/* ---------------------------------------------------------------- strings */

static size_t clamp_len(const char *text, size_t max)
{
    size_t len = strlen(text);
    return len > max ? max : len;
}

/* SingleStringData8 / SingleStringData (or the Second* pair): the 8-bit form
 * for up to 255 bytes, else the 16-bit form carrying len - 256; before
 * protocol 82 only the 16-bit form, carrying len. */
void evb_staged_string(struct tc_client *c, bool second, const char *text)
{
    size_t len = clamp_len(text, 65535);
    struct evb e;
    if (!proto_feature(&c->proto, TC_FEAT_SHORT_STRINGS)) {
        e = evb_start(second ? TC_EV_SECOND_STRING_DATA : TC_EV_SINGLE_STRING_DATA);
        b_u16(&e, (uint16_t)len);
    } else if (len <= 255) {
        e = evb_start(second ? TC_EV_SECOND_STRING_DATA8 : TC_EV_SINGLE_STRING_DATA8);
        b_u8(&e, (uint8_t)len);
    } else {
        e = evb_start(second ? TC_EV_SECOND_STRING_DATA : TC_EV_SINGLE_STRING_DATA);
        b_u16(&e, (uint16_t)(len - TC_OFFSET_8BIT));
    }
    evb_emit_trailer(c, &e, text, len);
}

void ev_string_transfer(struct tc_client *c, uint8_t type, uint64_t ptr, const char *text)
{
    size_t len = clamp_len(text, 65535);
    struct evb e = evb_start(type);
    b_u64(&e, ptr);
    b_u16(&e, (uint16_t)len);
    evb_emit_trailer(c, &e, text, len);
}

/* ------------------------------------------------------- thread context */

void ev_thread_context(struct tc_client *c, uint32_t tid)
{
    if (c->ev.have_thread && c->ev.thread == tid)
        return;
    struct evb e = evb_start(TC_EV_THREAD_CONTEXT);
    b_u32(&e, tid);
    evb_emit(c, &e);
    c->ev.have_thread = true;
    c->ev.thread = tid;
    c->ev.ref_thread = 0;
}

static int64_t advance(int64_t *ref, int64_t t)
{
    int64_t d = t - *ref;
    *ref = t;
    return d;
}

int64_t evb_thread_delta(struct tc_client *c, int64_t t) { return advance(&c->ev.ref_thread, t); }
int64_t evb_serial_delta(struct tc_client *c, int64_t t) { return advance(&c->ev.ref_serial, t); }
int64_t evb_ctx_delta(struct tc_client *c, int64_t t) { return advance(&c->ev.ref_ctx, t); }
int64_t evb_gpu_delta(struct tc_client *c, int64_t t) { return advance(&c->ev.ref_gpu, t); }

/* Pick the 16/32/64-bit form of a ZoneBegin / ZoneEnd family (type64 is
 * the 64-bit member, +1 the 32-bit one, +2 the 16-bit one) and write the
 * time field; §6.3. Before protocol 82: the 64-bit form, delta as it is. */
struct evb evb_compact_time(const struct tc_client *c, uint8_t type64, int64_t d)
{
    struct evb e;
    if (!proto_feature(&c->proto, TC_FEAT_COMPACT_TIMES)) {
        e = evb_start(type64);
        b_i64(&e, d);
    } else if (d >= 0 && d < TC_OFFSET_16BIT) {
        e = evb_start((uint8_t)(type64 + 2));
        b_u16(&e, (uint16_t)d);
    } else if (d >= 0 && d < TC_OFFSET_32BIT) {
        e = evb_start((uint8_t)(type64 + 1));
        b_u32(&e, (uint32_t)(d - TC_OFFSET_16BIT));
    } else {
        e = evb_start(type64);
        b_i64(&e, d >= 0 ? d - TC_OFFSET_32BIT : d);
    }
    return e;
}

/* ------------------------------------------------------------ callstacks */

/* FNV-1a over the frame addresses: identity of a call stack's content. */
uint64_t ev_frames_hash(const uint64_t *frames, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 8; k++)
            h = (h ^ ((frames[i] >> (8 * k)) & 0xFF)) * 1099511628211ull;
    return h;
}

void evb_callstack_payload(struct tc_client *c, const uint64_t *frames, size_t n)
{
    uint8_t data[8 * 64];
    if (n > 64)
        n = 64;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 8; k++)
            data[8 * i + (size_t)k] = (uint8_t)(frames[i] >> (8 * k));
    struct evb e = evb_start(TC_EV_CALLSTACK_PAYLOAD);
    b_u64(&e, 0x7e0000000000ull + 0x100 * c->ev.next_payload++);
    b_u16(&e, (uint16_t)(8 * n));
    evb_emit_trailer(c, &e, data, 8 * n);
    manifest_callstack(c, ev_frames_hash(frames, n));
}

void evb_thread_callstack(struct tc_client *c, const uint64_t *frames, size_t n)
{
    evb_callstack_payload(c, frames, n);
    struct evb e = evb_start(TC_EV_CALLSTACK);
    evb_emit(c, &e);
}

void evb_serial_callstack(struct tc_client *c, const uint64_t *frames, size_t n)
{
    evb_callstack_payload(c, frames, n);
    struct evb e = evb_start(TC_EV_CALLSTACK_SERIAL);
    evb_emit(c, &e);
}

/* ------------------------------------------------------------------ zones */

static void emit_zone_begin_form(struct tc_client *c, uint8_t type64, int64_t t, uint64_t srcloc)
{
    struct evb e = evb_compact_time(c, type64, evb_thread_delta(c, t));
    b_u64(&e, srcloc);
    evb_emit(c, &e);
}

void ev_zone_begin(struct tc_client *c, uint32_t tid, int64_t t, uint64_t srcloc)
{
    ev_thread_context(c, tid);
    emit_zone_begin_form(c, TC_EV_ZONE_BEGIN, t, srcloc);
}

void ev_zone_begin_callstack(struct tc_client *c, uint32_t tid, int64_t t, uint64_t srcloc,
                             const uint64_t *frames, size_t n_frames)
{
    ev_thread_context(c, tid);
    evb_thread_callstack(c, frames, n_frames);
    emit_zone_begin_form(c, TC_EV_ZONE_BEGIN_CALLSTACK, t, srcloc);
}

/* SourceLocationPayload trailer: color, line, function\0, file\0, [name]. */
static size_t build_srcloc_payload(uint8_t *out, size_t cap, const struct tc_srcloc_entry *loc)
{
    size_t fn = strlen(loc->function), fl = strlen(loc->file);
    size_t nm = loc->name ? strlen(loc->name) : 0;
    if (8 + fn + 1 + fl + 1 + nm > cap)
        return 0;
    size_t p = 0;
    for (int k = 0; k < 4; k++)
        out[p++] = (uint8_t)(loc->color >> (8 * k));
    for (int k = 0; k < 4; k++)
        out[p++] = (uint8_t)(loc->line >> (8 * k));
    memcpy(out + p, loc->function, fn + 1);
    p += fn + 1;
    memcpy(out + p, loc->file, fl + 1);
    p += fl + 1;
    memcpy(out + p, loc->name ? loc->name : "", nm);
    return p + nm;
}

void evb_srcloc_payload(struct tc_client *c, const struct tc_srcloc_entry *loc)
{
    uint8_t payload[1024];
    size_t len = build_srcloc_payload(payload, sizeof(payload), loc);
    struct evb p = evb_start(TC_EV_SOURCE_LOCATION_PAYLOAD);
    b_u64(&p, 0x7d0000000000ull + 0x100 * c->ev.next_payload++);
    b_u16(&p, (uint16_t)len);
    evb_emit_trailer(c, &p, payload, len);
}

void ev_zone_begin_alloc(struct tc_client *c, uint32_t tid, int64_t t,
                         const struct tc_srcloc_entry *loc, const uint64_t *frames,
                         size_t n_frames)
{
    ev_thread_context(c, tid);
    if (n_frames > 0)
        evb_thread_callstack(c, frames, n_frames);
    evb_srcloc_payload(c, loc);
    struct evb e = evb_start(n_frames > 0 ? TC_EV_ZONE_BEGIN_ALLOC_SRCLOC_CALLSTACK
                                          : TC_EV_ZONE_BEGIN_ALLOC_SRCLOC);
    b_i64(&e, evb_thread_delta(c, t));
    evb_emit(c, &e);
}

void ev_zone_end(struct tc_client *c, uint32_t tid, int64_t t)
{
    ev_thread_context(c, tid);
    struct evb e = evb_compact_time(c, TC_EV_ZONE_END, evb_thread_delta(c, t));
    evb_emit(c, &e);
}

void ev_zone_validation(struct tc_client *c, uint32_t tid, uint32_t id)
{
    ev_thread_context(c, tid);
    struct evb e = evb_start(TC_EV_ZONE_VALIDATION);
    b_u32(&e, id);
    evb_emit(c, &e);
}

static void emit_zone_string(struct tc_client *c, uint32_t tid, uint8_t type, const char *text)
{
    ev_thread_context(c, tid);
    evb_staged_string(c, false, text);
    struct evb e = evb_start(type);
    evb_emit(c, &e);
}

void ev_zone_text(struct tc_client *c, uint32_t tid, const char *text)
{
    emit_zone_string(c, tid, TC_EV_ZONE_TEXT, text);
}

void ev_zone_name(struct tc_client *c, uint32_t tid, const char *text)
{
    emit_zone_string(c, tid, TC_EV_ZONE_NAME, text);
}

void ev_zone_color(struct tc_client *c, uint32_t tid, uint32_t rgb)
{
    ev_thread_context(c, tid);
    struct evb e = evb_start(TC_EV_ZONE_COLOR);
    b_bgr(&e, rgb);
    evb_emit(c, &e);
}

void ev_zone_value(struct tc_client *c, uint32_t tid, uint64_t value)
{
    ev_thread_context(c, tid);
    struct evb e = evb_start(TC_EV_ZONE_VALUE);
    b_u64(&e, value);
    evb_emit(c, &e);
}

/* --------------------------------------------------------------- messages */

void ev_message(struct tc_client *c, uint32_t tid, int64_t t, const char *text, uint8_t meta,
                const uint64_t *frames, size_t n_frames)
{
    ev_thread_context(c, tid);
    if (n_frames > 0)
        evb_thread_callstack(c, frames, n_frames);
    evb_staged_string(c, false, text);
    struct evb e = evb_start(n_frames > 0 ? TC_EV_MESSAGE_CALLSTACK : TC_EV_MESSAGE);
    b_i64(&e, t);
    evb_message_meta(c, &e, meta);
    evb_emit(c, &e);
}

void ev_message_color(struct tc_client *c, uint32_t tid, int64_t t, const char *text,
                      uint32_t rgb, uint8_t meta, const uint64_t *frames, size_t n_frames)
{
    ev_thread_context(c, tid);
    if (n_frames > 0)
        evb_thread_callstack(c, frames, n_frames);
    evb_staged_string(c, false, text);
    struct evb e = evb_start(n_frames > 0 ? TC_EV_MESSAGE_COLOR_CALLSTACK : TC_EV_MESSAGE_COLOR);
    b_i64(&e, t);
    b_bgr(&e, rgb);
    evb_message_meta(c, &e, meta);
    evb_emit(c, &e);
}

void ev_message_literal(struct tc_client *c, uint32_t tid, int64_t t, uint64_t text_ptr,
                        uint8_t meta, const uint64_t *frames, size_t n_frames)
{
    ev_thread_context(c, tid);
    if (n_frames > 0)
        evb_thread_callstack(c, frames, n_frames);
    struct evb e = evb_start(n_frames > 0 ? TC_EV_MESSAGE_LITERAL_CALLSTACK
                                          : TC_EV_MESSAGE_LITERAL);
    b_i64(&e, t);
    evb_literal_text(c, &e, text_ptr, meta);
    evb_emit(c, &e);
}

void ev_message_literal_color(struct tc_client *c, uint32_t tid, int64_t t, uint64_t text_ptr,
                              uint32_t rgb, uint8_t meta, const uint64_t *frames,
                              size_t n_frames)
{
    ev_thread_context(c, tid);
    if (n_frames > 0)
        evb_thread_callstack(c, frames, n_frames);
    struct evb e = evb_start(n_frames > 0 ? TC_EV_MESSAGE_LITERAL_COLOR_CALLSTACK
                                          : TC_EV_MESSAGE_LITERAL_COLOR);
    b_i64(&e, t);
    b_bgr(&e, rgb);
    evb_literal_text(c, &e, text_ptr, meta);
    evb_emit(c, &e);
}

void ev_app_info(struct tc_client *c, int64_t t, const char *text)
{
    evb_staged_string(c, false, text);
    struct evb e = evb_start(TC_EV_MESSAGE_APP_INFO);
    b_i64(&e, t);
    evb_emit(c, &e);
}

/* ----------------------------------------------------------------- frames */

static void emit_frame_mark(struct tc_client *c, uint8_t type, int64_t t, uint64_t name)
{
    struct evb e = evb_start(type);
    b_i64(&e, t);
    b_u64(&e, name);
    evb_emit(c, &e);
}

void ev_frame_mark(struct tc_client *c, int64_t t, uint64_t name)
{
    emit_frame_mark(c, TC_EV_FRAME_MARK_MSG, t, name);
}

void ev_frame_mark_start(struct tc_client *c, int64_t t, uint64_t name)
{
    emit_frame_mark(c, TC_EV_FRAME_MARK_MSG_START, t, name);
}

void ev_frame_mark_end(struct tc_client *c, int64_t t, uint64_t name)
{
    emit_frame_mark(c, TC_EV_FRAME_MARK_MSG_END, t, name);
}

/* ------------------------------------------------------------------ plots */

void ev_plot_config(struct tc_client *c, uint64_t name, uint8_t format, bool step, bool fill,
                    uint32_t color)
{
    struct evb e = evb_start(TC_EV_PLOT_CONFIG);
    b_u64(&e, name);
    b_u8(&e, format);
    b_u8(&e, step);
    b_u8(&e, fill);
    b_u32(&e, color);
    evb_emit(c, &e);
}

static struct evb plot_head(struct tc_client *c, uint8_t type, uint32_t tid, uint64_t name,
                            int64_t t)
{
    ev_thread_context(c, tid);
    struct evb e = evb_start(type);
    b_u64(&e, name);
    b_i64(&e, evb_thread_delta(c, t));
    return e;
}

void ev_plot_int(struct tc_client *c, uint32_t tid, uint64_t name, int64_t t, int64_t v)
{
    struct evb e = plot_head(c, TC_EV_PLOT_DATA_INT, tid, name, t);
    b_i64(&e, v);
    evb_emit(c, &e);
}

void ev_plot_float(struct tc_client *c, uint32_t tid, uint64_t name, int64_t t, float v)
{
    struct evb e = plot_head(c, TC_EV_PLOT_DATA_FLOAT, tid, name, t);
    b_f32(&e, v);
    evb_emit(c, &e);
}

void ev_plot_double(struct tc_client *c, uint32_t tid, uint64_t name, int64_t t, double v)
{
    struct evb e = plot_head(c, TC_EV_PLOT_DATA_DOUBLE, tid, name, t);
    b_f64(&e, v);
    evb_emit(c, &e);
}

/* ------------------------------------------------------------------ locks */

void ev_lock_announce(struct tc_client *c, uint32_t id, int64_t t, uint64_t srcloc, uint8_t type)
{
    struct evb e = evb_start(TC_EV_LOCK_ANNOUNCE);
    b_u32(&e, id);
    b_i64(&e, t);
    b_u64(&e, srcloc);
    b_u8(&e, type);
    evb_emit(c, &e);
}

void ev_lock_terminate(struct tc_client *c, uint32_t id, int64_t t)
{
    struct evb e = evb_start(TC_EV_LOCK_TERMINATE);
    b_u32(&e, id);
    b_i64(&e, t);
    evb_emit(c, &e);
}

void ev_lock_name(struct tc_client *c, uint32_t id, const char *name)
{
    evb_staged_string(c, false, name);
    struct evb e = evb_start(TC_EV_LOCK_NAME);
    b_u32(&e, id);
    evb_emit(c, &e);
}

static void emit_lock_thread_event(struct tc_client *c, uint8_t type, uint32_t tid, uint32_t id,
                                   int64_t t)
{
    struct evb e = evb_start(type);
    b_u32(&e, tid);
    b_u32(&e, id);
    b_i64(&e, evb_serial_delta(c, t));
    evb_emit(c, &e);
}

void ev_lock_wait(struct tc_client *c, uint32_t tid, uint32_t id, int64_t t, bool shared)
{
    emit_lock_thread_event(c, shared ? TC_EV_LOCK_SHARED_WAIT : TC_EV_LOCK_WAIT, tid, id, t);
}

void ev_lock_obtain(struct tc_client *c, uint32_t tid, uint32_t id, int64_t t, bool shared)
{
    emit_lock_thread_event(c, shared ? TC_EV_LOCK_SHARED_OBTAIN : TC_EV_LOCK_OBTAIN, tid, id, t);
}

/* LockRelease carries no thread (the server uses the last obtainer);
 * LockSharedRelease carries it after the time. */
void ev_lock_release(struct tc_client *c, uint32_t tid, uint32_t id, int64_t t, bool shared)
{
    struct evb e = evb_start(shared ? TC_EV_LOCK_SHARED_RELEASE : TC_EV_LOCK_RELEASE);
    b_u32(&e, id);
    b_i64(&e, evb_serial_delta(c, t));
    if (shared)
        b_u32(&e, tid);
    evb_emit(c, &e);
}

/* ----------------------------------------------------------------- memory */

static void emit_mem_prefix(struct tc_client *c, uint64_t pool, const uint64_t *frames,
                            size_t n_frames)
{
    if (n_frames > 0)
        evb_serial_callstack(c, frames, n_frames);
    if (pool != 0) {
        struct evb e = evb_start(TC_EV_MEM_NAME_PAYLOAD);
        b_u64(&e, pool);
        evb_emit(c, &e);
    }
}

/* Pick one of the four alloc/free variants: base, +1 named, +4 callstack. */
static uint8_t mem_type(uint8_t base, uint64_t pool, size_t n_frames)
{
    return (uint8_t)(base + (pool ? 1 : 0) + (n_frames ? 4 : 0));
}

void ev_mem_alloc(struct tc_client *c, uint32_t tid, int64_t t, uint64_t ptr, uint64_t size,
                  uint64_t pool, const uint64_t *frames, size_t n_frames)
{
    emit_mem_prefix(c, pool, frames, n_frames);
    struct evb e = evb_start(mem_type(TC_EV_MEM_ALLOC, pool, n_frames));
    b_i64(&e, evb_serial_delta(c, t));
    b_u32(&e, tid);
    b_u64(&e, ptr);
    b_le(&e, size, 6);
    evb_emit(c, &e);
}

void ev_mem_free(struct tc_client *c, uint32_t tid, int64_t t, uint64_t ptr, uint64_t pool,
                 const uint64_t *frames, size_t n_frames)
{
    emit_mem_prefix(c, pool, frames, n_frames);
    struct evb e = evb_start(mem_type(TC_EV_MEM_FREE, pool, n_frames));
    b_i64(&e, evb_serial_delta(c, t));
    b_u32(&e, tid);
    b_u64(&e, ptr);
    evb_emit(c, &e);
}

/* ---------------------------------------------------------- query answers */

void ev_source_location(struct tc_client *c, uint64_t name, uint64_t function, uint64_t file,
                        uint32_t line, uint32_t rgb)
{
    struct evb e = evb_start(TC_EV_SOURCE_LOCATION);
    b_u64(&e, name);
    b_u64(&e, function);
    b_u64(&e, file);
    b_u32(&e, line);
    b_bgr(&e, rgb);
    evb_emit(c, &e);
}

void ev_ack(struct tc_client *c, uint8_t type)
{
    struct evb e = evb_start(type);
    evb_emit(c, &e);
}

void ev_ack_source_code(struct tc_client *c, uint32_t id)
{
    struct evb e = evb_start(TC_EV_ACK_SOURCE_CODE_NOT_AVAILABLE);
    b_u32(&e, id);
    evb_emit(c, &e);
}

/* SingleString(image), CallstackFrameSize(addr, n), then per entry
 * SingleString(function), SecondString(file), CallstackFrame(line, symAddr,
 * symLen); entries innermost first (§4.2, §5.6). */
void ev_callstack_frame_answer(struct tc_client *c, uint64_t addr, const char *image,
                               const struct tc_inline_entry *entries, int n)
{
    evb_staged_string(c, false, image);
    struct evb size = evb_start(TC_EV_CALLSTACK_FRAME_SIZE);
    b_u64(&size, addr);
    b_u8(&size, (uint8_t)n);
    evb_emit(c, &size);
    for (int i = 0; i < n; i++) {
        evb_staged_string(c, false, entries[i].function);
        evb_staged_string(c, true, entries[i].file);
        struct evb e = evb_start(TC_EV_CALLSTACK_FRAME);
        b_u32(&e, entries[i].line);
        b_u64(&e, entries[i].sym_addr);
        b_u32(&e, entries[i].sym_len);
        evb_emit(c, &e);
    }
}

void ev_symbol_answer(struct tc_client *c, uint64_t sym_addr, const char *file, uint32_t line)
{
    evb_staged_string(c, false, file);
    struct evb e = evb_start(TC_EV_SYMBOL_INFORMATION);
    b_u32(&e, line);
    b_u64(&e, sym_addr);
    evb_emit(c, &e);
}

void evb_long_transfer(struct tc_client *c, uint8_t type, uint64_t ptr, const void *data,
                       uint32_t len)
{
    struct evb e = evb_start(type);
    b_u64(&e, ptr);
    b_u32(&e, len);
    evb_emit_trailer(c, &e, data, len);
}

void ev_symbol_code(struct tc_client *c, uint64_t sym_addr, const void *code, uint32_t len)
{
    evb_long_transfer(c, TC_EV_SYMBOL_CODE, sym_addr, code, len);
}

void ev_source_code(struct tc_client *c, uint32_t id, const void *text, uint32_t len)
{
    evb_long_transfer(c, TC_EV_SOURCE_CODE, id, text, len);
}

void ev_tid_to_pid(struct tc_client *c, uint64_t tid, uint64_t pid)
{
    struct evb e = evb_start(TC_EV_TID_TO_PID);
    b_u64(&e, tid);
    b_u64(&e, pid);
    evb_emit(c, &e);
}

void ev_thread_group_hint(struct tc_client *c, uint32_t tid, int32_t hint)
{
    struct evb e = evb_start(TC_EV_THREAD_GROUP_HINT);
    b_u32(&e, tid);
    b_u32(&e, (uint32_t)hint);
    evb_emit(c, &e);
}
