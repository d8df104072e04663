/* bench_zones.c - the `zones` scenario of tracy-test-client: the shape of
 * the zones-small fixture at any size, for benchmarks. --threads T threads
 * 'Gen 0'.. each send --zones N zones (per thread) as fast as possible, as
 * groups of one 'outer' zone (zones.cpp:18) enclosing three sequential
 * 'inner' zones (zones.cpp:21); thread 0 sends a FrameMark after every
 * 1000 of its zones. As the real client's per-thread queues produce them,
 * the stream holds runs of a few thousand events of one thread behind a
 * ThreadContext; the thread furthest behind in (invented) time runs next.
 * Time stamps come from a clock that advances 240.5 ns per event (481 ns
 * for the end of an outer zone), so deltas alternate 240 / 241 like the
 * quantized steps of a real timer, with now and then a longer step, a
 * few-µs hold-up or a preemption; the 16-bit forms carry almost all of it
 * and the stream compresses about as well as upstream's (about 2.1 wire
 * bytes per zone). */
#include "bench.h"

#include <stdio.h>

#include "bulk.h"
#include "manifest.h"
#include "names.h"
#include "session.h"

#define ZONES_DEFAULT_THREADS 2
#define ZONES_DEFAULT 150000
#define ZONES_MAX_THREADS 16
#define ZONES_PER_FRAME 1000
#define ZONES_PER_GROUP 4
#define RUN_MIN_GROUPS 256        /* a run: 2048..8192 events of one thread */
#define RUN_MAX_GROUPS 1024
#define STEP_HALF_NS 481          /* 240.5 ns: the usual time between two events */
#define EXTRA_PER_256 4           /* events one to four steps late */
#define JITTER_PER_256 31         /* events half a ns late */
#define HICCUP_PER_256 3          /* groups held up */
#define THREAD_START_NS 50000     /* threads start one after the other */
/* ThreadContext, a 64-bit begin, three 32-bit inner pairs, a 32-bit end;
 * before protocol 82 every begin and end in the 64-bit form */
#define GROUP_ROOM (5 + 17 + 3 * (13 + 5) + 5)
#define GROUP_ROOM_WIDE (5 + 17 + 3 * (17 + 9) + 9)

struct zthread {
    uint32_t tid;
    int64_t clock;                /* in half ns: steps of 240.5 ns alternate 240, 241 */
    long left;                    /* zones still to send */
    long done;
};

struct zones_run {
    struct tc_client *c;
    struct bulk b;
    int n;
    struct zthread th[ZONES_MAX_THREADS];
    uint64_t rng;
    uint64_t outer, inner;        /* source location addresses */
    int loc_outer, loc_inner;
    uint64_t n_outer, n_inner;
    int64_t ns_outer, ns_inner;
};

/* Extra time before an event from one random byte: mostly none, now and
 * then one to four steps more. */
static inline int64_t extra(uint64_t r)
{
    unsigned v = (unsigned)(r & 0xff);
    if (v < EXTRA_PER_256)
        return STEP_HALF_NS * (1 + (v & 3));
    return v >= 256 - JITTER_PER_256 ? 1 : 0;
}

/* Now and then the thread is held up before a group: a cache miss
 * (a few µs) or, rarely, a preemption (tens of µs, the 32-bit form). */
static inline int64_t hiccup(struct zones_run *z)
{
    uint64_t r = bench_rnd(&z->rng);
    if ((r & 0xff) >= HICCUP_PER_256)
        return 0;
    if ((r & 0xffff00) != 0)
        return 2 * (3400 + (int64_t)((r >> 24) & 0xff));
    return 2 * (30000 + (int64_t)((r >> 24) & 0xffff));
}

/* One step of the thread's clock (in half ns) and its time stamp (ns). */
static inline int64_t tick(struct zthread *t, int64_t half_ns)
{
    t->clock += half_ns;
    return t->clock >> 1;
}

/* One outer zone with `inner` inner zones on thread t. One random number
 * drives it: a byte per event, and its top bit puts the loop's own step
 * before the group's begin or before its last end. */
static void emit_group(struct zones_run *z, struct zthread *t, int inner)
{
    struct bulk *b = &z->b;
    uint64_t r = bench_rnd(&z->rng);
    int64_t loop = (r >> 63) ? STEP_HALF_NS : 0;
    int64_t begin = tick(t, hiccup(z) + STEP_HALF_NS + loop + extra(r));
    bulk_room(b, b->compact ? GROUP_ROOM : GROUP_ROOM_WIDE);
    bulk_thread(b, t->tid);
    bulk_zone_begin_here(b, begin, z->outer);
    for (int i = 0; i < inner; i++) {
        int64_t start = tick(t, STEP_HALF_NS + extra(r >>= 8));
        bulk_zone_begin_here(b, start, z->inner);
        int64_t end = tick(t, STEP_HALF_NS + extra(r >>= 8));
        bulk_zone_end_here(b, end);
        z->ns_inner += end - start;
    }
    int64_t end = tick(t, STEP_HALF_NS + (STEP_HALF_NS - loop) + extra((r >> 8) & 0x7f));
    bulk_zone_end_here(b, end);
    z->ns_outer += end - begin;
    z->n_outer++;
    z->n_inner += (uint64_t)inner;
}

/* Thread 0 marks a frame after every ZONES_PER_FRAME of its zones. */
static void frame_check(struct zones_run *z, struct zthread *t, long zones)
{
    if (t != &z->th[0] || t->done / ZONES_PER_FRAME == (t->done - zones) / ZONES_PER_FRAME)
        return;
    bulk_frame_mark(&z->b, t->clock >> 1, 0);
    z->c->man.default_frames++;
}

/* One queue run of thread t: a few hundred groups. */
static void run_thread(struct zones_run *z, struct zthread *t)
{
    long groups = bench_range(&z->rng, RUN_MIN_GROUPS, RUN_MAX_GROUPS);
    for (long g = 0; g < groups && t->left > 0; g++) {
        long zones = t->left < ZONES_PER_GROUP ? t->left : ZONES_PER_GROUP;
        emit_group(z, t, (int)zones - 1);
        t->left -= zones;
        t->done += zones;
        frame_check(z, t, zones);
    }
}

/* The unfinished thread with the earliest time, NULL when all are done. */
static struct zthread *next_thread(struct zones_run *z)
{
    struct zthread *best = NULL;
    for (int i = 0; i < z->n; i++)
        if (z->th[i].left > 0 && (!best || z->th[i].clock < best->clock))
            best = &z->th[i];
    return best;
}

static void zones_setup(struct zones_run *z, struct tc_client *c)
{
    *z = (struct zones_run){ .c = c, .rng = 0x7a6f6e657321ull };
    z->n = bench_threads_opt(c, ZONES_DEFAULT_THREADS, ZONES_MAX_THREADS);
    long per_thread = bench_zones_opt(c, ZONES_DEFAULT);
    int64_t start = c->init_end + 1000000;
    for (int i = 0; i < z->n; i++) {
        char name[32];
        snprintf(name, sizeof(name), "Gen %d", i);
        z->th[i] = (struct zthread){ c->main_tid + 1 + (uint32_t)i,
                                     2 * (start + THREAD_START_NS * i), per_thread, 0 };
        names_thread(c, z->th[i].tid, name);
    }
    z->loc_outer = names_srcloc(c, "outer", "GenerateZones", "zones.cpp", 18, 0);
    z->loc_inner = names_srcloc(c, "inner", "GenerateZones", "zones.cpp", 21, 0);
    z->outer = names_srcloc_at(c, z->loc_outer)->addr;
    z->inner = names_srcloc_at(c, z->loc_inner)->addr;
}

/* What was sent, for the manifest. */
static void zones_record(struct zones_run *z)
{
    struct tc_client *c = z->c;
    bench_zone_stats(c, z->loc_outer, z->n_outer, z->ns_outer);
    bench_zone_stats(c, z->loc_inner, z->n_inner, z->ns_inner);
    for (int i = 0; i < z->n; i++) {
        if (z->th[i].done > 0)
            names_thread_used(c, z->th[i].tid);
        manifest_time(c, z->th[i].clock >> 1);
    }
}

void bench_run_zones(struct tc_client *c)
{
    struct zones_run z;
    zones_setup(&z, c);
    bulk_open(&z.b, c);
    struct zthread *t;
    while (z.b.alive && (t = next_thread(&z)) != NULL)
        run_thread(&z, t);
    bulk_close(&z.b);
    zones_record(&z);
    session_finish(c);
}
