/* scenario_bad.c - the `malformed` scenario of tracy-test-client: a normal
 * session (~1000 zones) with ONE kind of bad input (--garbage-kind)
 * injected halfway, after its first half was sent and answered. Bad
 * instrumentation (unannounced locks, unknown GPU contexts or fibers, times
 * going backwards, answers to queries never asked, more source locations
 * than the file format holds, call stacks of no frame, zones nested deeper
 * than a trace keeps) is followed by the second half and a normal end
 * (Terminate), so a test can check that zones before AND after it were
 * kept. Absurd welcome values (a NaN, infinite or huge timer multiplier,
 * the largest resolution, an initBegin far from every time) are sent in
 * the welcome instead, and the whole session goes with them. An absurd
 * length (absurd-length, absurd-string) breaks the stream: the session
 * ends there. The floods (text-flood, hash-flood, callstack-flood,
 * string-flood) are valid events, nothing to drop: they cost a capture that
 * keeps every join of a zone's text, or places keys by an unkeyed hash,
 * quadratic memory or time. The manifest's bad_* lines say what a capture
 * should drop and keep (bad_events 0: too many to say, one per time). */
#include "scenario_bad.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "evbuf.h"
#include "events.h"
#include "gen.h"
#include "manifest.h"
#include "names.h"
#include "session.h"
#include "wire.h"

/* Distinct static source ids a .tracy file holds: zone source-location ids
 * are int16, static ones 1..32766 (32767 reads as "none"). */
#define SRCLOC_STATIC_LIMIT 32766
#define FLOOD_SRCLOCS 33000
#define UNKNOWN_LOCK 99
#define UNKNOWN_GPU_CONTEXT 7
#define UNKNOWN_THREAD 4242
/* The deepest zone nesting a capture keeps (upstream's loader reads the
 * zone tree recursively), and how deep zone-depth nests. */
#define ZONE_DEPTH_KEPT 4000
#define DEEP_ZONES (ZONE_DEPTH_KEPT + 100)

/* Frames [from, to) of the normal workload; false if the session ended. */
static bool run_range(struct gen *g, long from, long to, int64_t *start)
{
    for (long f = from; f < to; f++) {
        if (!session_active(g->c))
            return false;
        *start = gen_frame(g, f, *start, FRAME_NS + gen_rnd(g, -500000, 500000));
        session_flush(g->c);
    }
    return session_active(g->c);
}

/* ------------------------------------------------------ instrumentation */

static void send_lock_unannounced(struct gen *g)
{
    struct tc_client *c = g->c;
    uint32_t tid = g->th[0].tid;
    ev_lock_wait(c, tid, UNKNOWN_LOCK, gen_serial_at(g, 1000), false);
    ev_lock_obtain(c, tid, UNKNOWN_LOCK, gen_serial_at(g, 1000), false);
    ev_lock_release(c, tid, UNKNOWN_LOCK, gen_serial_at(g, 1000), false);
    c->man.bad.events = 3;
}

static void send_gpu_unknown_context(struct gen *g)
{
    struct tc_client *c = g->c;
    struct gen_thread *t = &g->th[0];
    const struct tc_gpu_begin b = { .cpu_time = t->now + 100, .producer = t->tid, .thread = t->tid,
                                    .query = 5, .context = UNKNOWN_GPU_CONTEXT,
                                    .loc = names_srcloc_at(c, g->loc_render) };
    const struct tc_gpu_end e = { .cpu_time = t->now + 200, .producer = t->tid, .thread = t->tid,
                                  .query = 6, .context = UNKNOWN_GPU_CONTEXT };
    ev_gpu_zone_begin(c, &b);
    ev_gpu_zone_end(c, &e);
    ev_gpu_time(c, 1000, 5, UNKNOWN_GPU_CONTEXT);
    ev_gpu_time(c, 2000, 6, UNKNOWN_GPU_CONTEXT);
    t->now += 300;
    c->man.bad.events = 4;
}

static void send_fiber_unknown(struct gen *g)
{
    struct tc_client *c = g->c;
    struct gen_thread *t = &g->th[0];
    t->now += 100;
    ev_fiber_leave(c, t->tid, t->now);         /* the main thread runs no fiber */
    ev_fiber_leave(c, UNKNOWN_THREAD, t->now); /* a thread nobody announced */
    c->man.bad.events = 2;
}

/* A zone ending before it begins, a lock event and a plot point earlier
 * than their predecessors. The zone and the lock event are kept (their
 * times repaired) and count as malformed; plot points are sorted. */
static void send_time_backwards(struct gen *g)
{
    struct tc_client *c = g->c;
    struct gen_thread *t = &g->th[0];
    t->now += 5000;
    ev_zone_begin(c, t->tid, t->now, gen_srcloc_addr(g, g->loc_update));
    ev_zone_end(c, t->tid, t->now - 3000);
    names_thread_used(c, t->tid);
    c->man.bad.zones_repaired = 1;

    int64_t back = g->serial_now - 200000;
    ev_lock_wait(c, t->tid, g->lock_queue, back, false);
    ev_lock_obtain(c, t->tid, g->lock_queue, gen_serial_at(g, 1000), false);
    ev_lock_release(c, t->tid, g->lock_queue, gen_serial_at(g, 1000), false);
    gen_lock_count(g, g->lock_queue, "job queue lock", 3);

    ev_plot_int(c, t->tid, g->plot_int, t->now - 10000, 1);
    manifest_counter(c, TC_CNT_PLOT, g->plot_int, "queue depth")->count++;
    c->man.bad.events = 2;
}

/* Answers nobody asked for, sent when the earlier queries were answered
 * (a SourceLocation answer carries no address: it is only recognisable as
 * unasked when no question is open). */
static void send_unasked_answers(struct gen *g)
{
    struct tc_client *c = g->c;
    static const char code[] = "int never_asked(void) { return 0; }\n";
    const struct tc_inline_entry frame = { "ghost_function", "ghost.cpp", 12, 0, 0 };
    ev_string_transfer(c, TC_EV_STRING_DATA, 0xdead0000ull, "string never asked for");
    ev_string_transfer(c, TC_EV_THREAD_NAME, UNKNOWN_THREAD, "thread never asked for");
    ev_source_location(c, 0, 0xdead0040ull, 0xdead0080ull, 7, 0x123456);
    ev_symbol_answer(c, 0xdead1000ull, "ghost.cpp", 3);
    ev_callstack_frame_answer(c, 0x7fdead000000ull, "ghost.so", &frame, 1);
    ev_source_code(c, 4000, code, sizeof(code) - 1);
    ev_ack_source_code(c, 4001);
    c->man.bad.events = 1; /* the SourceLocation answer; the others are walked over */
}

static uint64_t static_srclocs_used(const struct tc_client *c)
{
    uint64_t n = 2; /* the lock announcements' locations */
    for (size_t i = 0; i < c->names.n_srclocs; i++) {
        const struct tc_srcloc_entry *s = &c->names.srclocs[i];
        n += s->addr != 0 && (s->zones || s->open);
    }
    return n;
}

/* FLOOD_SRCLOCS zones of as many new static source locations inside one
 * zone of a known location; every 100th has a child of a known location,
 * which stays when its parent is dropped. */
static void send_srcloc_overflow(struct gen *g)
{
    struct tc_client *c = g->c;
    struct gen_thread *t = &g->th[0];
    uint64_t before = static_srclocs_used(c);
    int first = names_srcloc(c, NULL, "flood_function", "src/app/flood.cpp", 1, 0);
    for (int i = 1; i < FLOOD_SRCLOCS; i++)
        names_srcloc(c, NULL, "flood_function", "src/app/flood.cpp", 1 + (uint32_t)i, 0);
    gen_zone_begin(g, t, g->loc_update, 1000);
    for (int i = 0; i < FLOOD_SRCLOCS; i++) {
        gen_zone_begin(g, t, first + i, 50);
        if (i % 100 == 0) {
            gen_zone_begin(g, t, g->loc_integrate, 10);
            gen_zone_end(g, t, 20);
        }
        gen_zone_end(g, t, 100);
        if (i % 2048 == 0)
            session_pump(c);
    }
    gen_zone_end(g, t, 1000);
    uint64_t total = before + FLOOD_SRCLOCS;
    c->man.bad.zones_dropped = total > SRCLOC_STATIC_LIMIT ? total - SRCLOC_STATIC_LIMIT : 0;
    c->man.bad.events = c->man.bad.zones_dropped;
}

/* Call stack payloads of no whole frame (a CallstackPayload of 4 bytes, or
 * a CallstackAllocPayload whose one frame is cut short), each followed by a
 * sample on it: the payload and the sample are dropped. */
static void send_callstack_empty(struct gen *g, bool alloc)
{
    struct tc_client *c = g->c;
    struct gen_thread *t = &g->th[0];
    static const uint8_t cut_frame[] = { 1, 10, 0, 0, 0, 40, 0 }; /* 1 frame: line 10, a 40-byte name cut */
    static const uint8_t half_address[] = { 0x00, 0x10, 0x40, 0x00 };
    struct evb e = evb_start(alloc ? TC_EV_CALLSTACK_ALLOC_PAYLOAD : TC_EV_CALLSTACK_PAYLOAD);
    b_u64(&e, 0x7d0000000000ull);
    b_u16(&e, alloc ? sizeof cut_frame : sizeof half_address);
    evb_emit_trailer(c, &e, alloc ? cut_frame : half_address, alloc ? sizeof cut_frame : sizeof half_address);
    t->now += 1000;
    ev_callstack_sample_staged(c, t->tid, t->now, false);
    c->man.bad.events = 2;
}

/* DEEP_ZONES zones nested on the main thread, then their ends: those
 * beyond ZONE_DEPTH_KEPT are dropped, the ones above kept. */
static void send_zone_depth(struct gen *g)
{
    struct tc_client *c = g->c;
    struct gen_thread *t = &g->th[0];
    const uint64_t loc = gen_srcloc_addr(g, g->loc_update);
    for (int i = 0; i < DEEP_ZONES; i++) {
        t->now += 10;
        ev_zone_begin(c, t->tid, t->now, loc);
        if (i % 2048 == 0)
            session_pump(c);
    }
    for (int i = 0; i < DEEP_ZONES; i++) {
        t->now += 10;
        ev_zone_end(c, t->tid, t->now);
        if (i % 2048 == 0)
            session_pump(c);
    }
    names_thread_used(c, t->tid);
    const int room = ZONE_DEPTH_KEPT - t->depth;
    const uint64_t kept = (uint64_t)(room < DEEP_ZONES ? room : DEEP_ZONES);
    c->man.bad.zones_unlisted = DEEP_ZONES;
    c->man.bad.zones_dropped = DEEP_ZONES - kept;
    c->man.bad.events = c->man.bad.zones_dropped;
}

/* gpu-zone-depth: DEEP_ZONES GPU zones nested on a context of their own,
 * each with both GpuTimes; the ones beyond ZONE_DEPTH_KEPT are dropped
 * (upstream reads GPU zones recursively too), the ones above kept. */
#define DEEP_GPU_CONTEXT 3

static void send_gpu_zone_depth(struct gen *g)
{
    struct tc_client *c = g->c;
    struct gen_thread *t = &g->th[0];
    const struct tc_gpu_context ctx = { .cpu_time = t->now, .period = 1.0f, .context = DEEP_GPU_CONTEXT, .type = 1 };
    ev_gpu_new_context(c, &ctx);
    for (int i = 0; i < DEEP_ZONES; i++) {
        t->now += 10;
        const struct tc_gpu_begin b = { .cpu_time = t->now, .producer = t->tid, .thread = t->tid,
                                        .query = (uint16_t)i, .context = DEEP_GPU_CONTEXT,
                                        .loc = names_srcloc_at(c, g->loc_render) };
        ev_gpu_zone_begin(c, &b);
        if (i % 2048 == 0)
            session_pump(c);
    }
    for (int i = 0; i < DEEP_ZONES; i++) {
        t->now += 10;
        const struct tc_gpu_end e = { .cpu_time = t->now, .producer = t->tid, .thread = t->tid,
                                      .query = (uint16_t)(DEEP_ZONES + i), .context = DEEP_GPU_CONTEXT };
        ev_gpu_zone_end(c, &e);
        if (i % 2048 == 0)
            session_pump(c);
    }
    for (int q = 0; q < 2 * DEEP_ZONES; q++)
        ev_gpu_time(c, 1000 + 10 * (int64_t)q, (uint16_t)q, DEEP_GPU_CONTEXT);
    c->man.facts.gpu_zones += ZONE_DEPTH_KEPT;
    c->man.bad.events = DEEP_ZONES - ZONE_DEPTH_KEPT;
}

/* ---------------------------------------------------------------- floods */

#define TEXT_FLOOD_VALUES 16000
#define HASH_FLOOD_ALLOCS 160000
#define CALLSTACK_FLOOD (64 * 64 * 32)
#define STRING_FLOOD 150000

/* One zone of its own location, `text_flood` (its row in -u stands
 * alone), with the text "flood" and TEXT_FLOOD_VALUES values 0, 1, ...:
 * its text is "flood\n0 [0x0]\n1 [0x1]..." (9 bytes a value on the wire). */
static void send_text_flood(struct gen *g)
{
    struct tc_client *c = g->c;
    struct gen_thread *t = &g->th[0];
    int loc = names_srcloc(c, NULL, "text_flood", "src/app/flood.cpp", 7, 0);
    gen_zone_begin(g, t, loc, 1000);
    gen_zone_text(g, t, "flood");
    for (uint64_t v = 0; v < TEXT_FLOOD_VALUES; v++) {
        ev_zone_value(c, t->tid, v);
        if (v % 2048 == 0)
            session_pump(c);
    }
    gen_zone_end(g, t, 5000);
}

/* The inverse of MurmurHash3's 64-bit finaliser (the unkeyed mixer of a
 * capture's hash table): the key whose hash is h. */
static uint64_t inverse_mul(uint64_t m)
{
    uint64_t inv = m;
    for (int i = 0; i < 6; i++)
        inv *= 2 - m * inv;
    return inv;
}

static uint64_t fmix64_inverse(uint64_t h)
{
    h ^= h >> 33;
    h *= inverse_mul(0xc4ceb9fe1a85ec53ull);
    h ^= h >> 33;
    h *= inverse_mul(0xff51afd7ed558ccdull);
    h ^= h >> 33;
    return h;
}

/* n allocations of 64 bytes at addr(i), all live at once (with the call
 * stack stack(i) fills in, if given), then their frees in the same order;
 * the manifest counts them in the default pool. */
static void alloc_then_free(struct gen *g, uint64_t n, uint64_t (*addr)(uint64_t),
                            size_t (*stack)(uint64_t i, uint64_t out[6]))
{
    struct tc_client *c = g->c;
    struct gen_thread *t = &g->th[0];
    for (int pass = 0; pass < 2; pass++) {
        for (uint64_t i = 0; i < n; i++) {
            uint64_t frames[6];
            const size_t depth = stack ? stack(i, frames) : 0;
            if (pass == 0)
                ev_mem_alloc(c, t->tid, gen_serial_at(g, 100), addr(i), 64, 0, depth ? frames : NULL, depth);
            else
                ev_mem_free(c, t->tid, gen_serial_at(g, 100), addr(i), 0, NULL, 0);
            if (i % 1024 == 0)
                session_pump(c);
        }
    }
    names_thread_used(c, t->tid);
    struct tc_named_counter *m = manifest_counter(c, TC_CNT_MEMPOOL, 0, "(default)");
    m->count += n;
    m->count2 += n;
}

/* hash-flood: addresses whose finaliser hashes end in the same 20 bits
 * (every slot of a table up to 2^20 slots: one cluster). */
static uint64_t colliding_address(uint64_t i)
{
    return fmix64_inverse((i + 1) << 20 | 0x5A5A5);
}

static void send_hash_flood(struct gen *g)
{
    alloc_then_free(g, HASH_FLOOD_ALLOCS, colliding_address, NULL);
}

/* callstack-flood: each allocation with a call stack of its own,
 * [K1, a, K2, b, K1, c] (a and b of 64 user-space frames, c of 32; K1, K2
 * the constants an unkeyed multiply-fold byte hash XORs a block's first
 * word with): every 16-byte block starting with its constant multiplies to
 * zero, so all the stacks hash the same and each new one is compared with
 * all the earlier ones. */
static uint64_t plain_address(uint64_t i)
{
    return 0x20000000ull + 64 * i;
}

static size_t colliding_stack(uint64_t i, uint64_t out[6])
{
    const uint64_t k1 = 0xE7037ED1A0B428DBull, k2 = 0x8EBC6AF09C88C6E3ull;
    const uint64_t stack[6] = { k1, 0x401000ull + 16 * (i & 63), k2, 0x402000ull + 16 * (i >> 6 & 63),
                                k1, 0x403000ull + 16 * (i >> 12) };
    memcpy(out, stack, sizeof stack);
    return 6;
}

static void send_callstack_flood(struct gen *g)
{
    alloc_then_free(g, CALLSTACK_FLOOD, plain_address, colliding_stack);
}

/* STRING_FLOOD messages of distinct 32-byte texts whose second block
 * starts with K1 (see colliding_stack): all of them hash the same
 * under an unkeyed multiply-fold hash, and each is interned. */
static void send_string_flood(struct gen *g)
{
    struct tc_client *c = g->c;
    struct gen_thread *t = &g->th[0];
    const uint64_t k1 = 0xE7037ED1A0B428DBull;
    for (unsigned i = 0; i < STRING_FLOOD; i++) {
        char text[33];
        snprintf(text, 17, "flood %010u", i);
        for (int k = 0; k < 8; k++)
            text[16 + k] = (char)(k1 >> (8 * k));
        memcpy(text + 24, "-message", 9);
        t->now += 100;
        ev_message(c, t->tid, t->now, text, 0, NULL, 0);
        manifest_message(c, t->now, text);
        if (i % 2048 == 0)
            session_pump(c);
    }
    names_thread_used(c, t->tid);
}

/* ------------------------------------------------------------- breaking */

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A few zones, then in the same frame an event whose length runs far past
 * the frame's end: SourceCode claiming ~4 GB, or StringData claiming 65535
 * bytes. */
static void send_absurd_length(struct gen *g, bool string)
{
    struct tc_client *c = g->c;
    struct gen_thread *t = &g->th[0];
    for (int i = 0; i < 20; i++) {
        gen_zone_begin(g, t, g->loc_draw, 1000);
        gen_zone_end(g, t, 2000);
    }
    uint8_t ev[32];
    memset(ev, 'x', sizeof(ev));
    ev[0] = ev_wire_type(c, string ? TC_EV_STRING_DATA : TC_EV_SOURCE_CODE);
    put_le(ev + 1, string ? 0xdead0000ull : 1, 8);
    if (string)
        put_le(ev + 9, 0xFFFF, 2);
    else
        put_le(ev + 9, 0xFFFFFFF0u, 4);
    ev_raw(c, ev, sizeof(ev));
    c->ev.sent[ev[0]]++;
    wire_commit(c);
}

/* ------------------------------------------------------------- scenario */

/* Inject the bad input; true if it breaks the stream. */
static bool inject(struct gen *g, enum tc_garbage_kind kind)
{
    switch (kind) {
    case TC_BAD_LOCK_UNANNOUNCED: send_lock_unannounced(g); break;
    case TC_BAD_GPU_UNKNOWN_CONTEXT: send_gpu_unknown_context(g); break;
    case TC_BAD_FIBER_UNKNOWN: send_fiber_unknown(g); break;
    case TC_BAD_TIME_BACKWARDS: send_time_backwards(g); break;
    case TC_BAD_UNASKED_ANSWERS: send_unasked_answers(g); break;
    case TC_BAD_SRCLOC_OVERFLOW: send_srcloc_overflow(g); break;
    case TC_BAD_TEXT_FLOOD: send_text_flood(g); break;
    case TC_BAD_HASH_FLOOD: send_hash_flood(g); break;
    case TC_BAD_CALLSTACK_FLOOD: send_callstack_flood(g); break;
    case TC_BAD_STRING_FLOOD: send_string_flood(g); break;
    case TC_BAD_CALLSTACK_EMPTY: send_callstack_empty(g, false); break;
    case TC_BAD_CALLSTACK_ALLOC_EMPTY: send_callstack_empty(g, true); break;
    case TC_BAD_ZONE_DEPTH: send_zone_depth(g); break;
    case TC_BAD_GPU_ZONE_DEPTH: send_gpu_zone_depth(g); break;
    case TC_BAD_ABSURD_LENGTH: send_absurd_length(g, false); return true;
    case TC_BAD_ABSURD_STRING: send_absurd_length(g, true); return true;
    default: break;
    }
    return false;
}

void scenario_bad_configure(struct tc_client *c)
{
    struct tc_welcome_cfg *w = &c->welcome;
    struct tc_bad_input *b = &c->man.bad;
    switch (c->opt.garbage_kind) {
    case TC_BAD_TIMER_NAN: w->timer_mul = NAN; b->events = 1; break;
    case TC_BAD_TIMER_INFINITE: w->timer_mul = INFINITY; b->events = 1; break;
    case TC_BAD_TIMER_HUGE: w->timer_mul = 1e30; b->events = 1; break;
    case TC_BAD_RESOLUTION_MAX: w->resolution = UINT64_MAX; b->events = 1; break;
    case TC_BAD_INIT_BEGIN_FAR: w->init_begin = INT64_MIN / 2; break; /* every time */
    default: break;
    }
}

void scenario_run_malformed(struct tc_client *c)
{
    struct gen g;
    gen_start(&g, c, 1000);
    g.io_wait_frame = -1;
    int64_t start = c->init_end + 1000000;
    gen_preamble(&g, start - 500000);
    long half = g.frames / 2;
    if (run_range(&g, 0, half, &start)) {
        session_idle(c, 100); /* the first half's queries answered */
        c->man.bad.kind = c->opt.garbage_kind_name;
        c->man.bad.zones_before = manifest_zones_sent(c);
        if (inject(&g, c->opt.garbage_kind)) {
            c->man.end_reason = "malformed-stream";
            session_abort(c, TC_ABORT_WAIT_PEER);
            return;
        }
        session_flush(c);
        if (run_range(&g, half, g.frames, &start))
            gen_epilogue(&g);
    }
    session_finish(c);
}
