/* gen.h - the synthetic-application generator of tracy-test-client
 * (scenario.c), shared with the scenarios of scenario_ext.c: per-thread
 * zone stacks over invented time, the normal per-frame workload, and the
 * helpers that send an event and record it for the manifest together. */
#ifndef TC_GEN_H
#define TC_GEN_H

#include "client.h"

#define MAX_THREADS 16
#define MAX_DEPTH 16
#define FRAME_NS 16666667LL

struct flavor; /* names of one flavor of the application (scenario.c) */

struct gen_zone {
    int loc;
    int64_t start;
    uint32_t vid; /* ZoneValidation id, 0 if not validated */
};

/* One producer of zones: a thread (or a fiber running on thread `tid`). */
struct gen_thread {
    uint32_t tid;
    int64_t now;
    int depth;
    struct gen_zone stack[MAX_DEPTH];
};

struct gen {
    struct tc_client *c;
    const struct flavor *fl;
    int n_threads;
    struct gen_thread th[MAX_THREADS];
    int loc_loop, loc_update, loc_physics, loc_integrate, loc_traced, loc_render, loc_draw,
        loc_script, loc_job_batch, loc_job, loc_load, loc_io_wait, loc_lock_queue,
        loc_lock_assets;
    uint64_t set_physics, set_loading, plot_int, plot_float, plot_double, pool;
    uint64_t lit, lit_color, lit_callstack;
    uint64_t stack_a[3], stack_b[3], stack_mem[3];
    uint32_t lock_queue, lock_assets;
    uint64_t rng;
    long frames;          /* frames to generate (invented-time scenarios) */
    long io_wait_frame;   /* frame with the 5.2 s zone, -1 for none */
    int64_t io_begin, io_end; /* the 5.2 s zone once sent, else 0 */
    int flush_every;      /* frames between flushes after the first 16 */
    int64_t serial_now;
};

static inline int64_t gen_later(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* A generator of the `normal` flavor sized for about dflt_zones zones
 * (or --zones); registers its names. */
void gen_start(struct gen *g, struct tc_client *c, long dflt_zones);

/* Deterministic pseudo-random number in [lo, hi]. */
int64_t gen_rnd(struct gen *g, int64_t lo, int64_t hi);
uint64_t gen_srcloc_addr(struct gen *g, int loc);

/* Record a zone begun at t->now on t (the event itself already sent). */
void gen_zone_push(struct gen *g, struct gen_thread *t, int loc, uint32_t vid);

/* Zones on t, `gap` ticks after t->now; recorded per source location. */
void gen_zone_begin(struct gen *g, struct gen_thread *t, int loc, int64_t gap);
void gen_zone_begin_traced(struct gen *g, struct gen_thread *t, int loc, int64_t gap,
                           const uint64_t *stack);
void gen_zone_begin_alloc(struct gen *g, struct gen_thread *t, int loc, int64_t gap,
                          const uint64_t *stack);
void gen_zone_end(struct gen *g, struct gen_thread *t, int64_t gap);
void gen_zone_text(struct gen *g, struct gen_thread *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Messages at a unique time after t->now (stack: 3 frames or NULL). */
int64_t gen_message_time(struct gen *g, struct gen_thread *t);
void gen_msg_copied(struct gen *g, struct gen_thread *t, int severity, bool callstack,
                    const char *text);
void gen_msg_literal(struct gen *g, struct gen_thread *t, uint64_t text_ptr, int severity,
                     bool callstack);
void gen_msg_literal_colored(struct gen *g, struct gen_thread *t, uint64_t text_ptr,
                             uint32_t rgb, int severity);
void gen_app_info(struct gen *g, int64_t when, const char *text);

/* Frame mark of set `set` (0 = the default set). */
void gen_frame_mark(struct gen *g, int64_t when, uint64_t set, const char *name);

/* Next time of the serial clock (locks, memory, serial GPU zones). */
int64_t gen_serial_at(struct gen *g, int64_t gap);
void gen_lock_count(struct gen *g, uint32_t lock, const char *name, int events);
void gen_mem_pair(struct gen *g, struct gen_thread *t, uint64_t ptr, uint64_t size,
                  uint64_t pool, bool callstack);

/* App info, locks and plot configuration sent once at the start (the
 * three parts, then all of them in that order); lock terminations at the
 * end. */
void gen_app_infos(struct gen *g, int64_t when);
void gen_lock_announces(struct gen *g, int64_t when);
void gen_plot_configs(struct gen *g);
void gen_preamble(struct gen *g, int64_t when);
void gen_epilogue(struct gen *g);

/* One frame of the normal workload; returns its end (the default frame
 * mark's time). */
int64_t gen_frame(struct gen *g, long f, int64_t start, int64_t length);
bool gen_should_flush(const struct gen *g, long f);

#endif
