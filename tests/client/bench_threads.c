/* bench_threads.c - the `threads` scenario of tracy-test-client: many
 * threads, for benchmarks. --threads T (default 256, up to 4096) threads
 * 'Worker 0'.. each send --zones N (default 3000) zones nested up to 8 deep
 * (a 'task' zone at the root, 'parse', 'lookup', 'compute', 'io wait' and
 * 'commit' below), a copied Message every 250 zones and a point of the
 * shared plots 'queue depth' (int) and 'load' (double) every 40 zones.
 * The stream interleaves the threads in runs of 16..512 events behind
 * ThreadContext switches (the thread furthest behind in invented time
 * runs next); a FrameMark every 16 ms. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bulk.h"
#include "manifest.h"
#include "names.h"
#include "session.h"

#define THREADS_DEFAULT 256
#define THREADS_ZONES_DEFAULT 3000
#define TID_BASE 100000u
#define DEPTH_MAX 8
#define LOCS 6
#define RUN_MIN 16
#define RUN_MAX 512
#define MESSAGE_EVERY 250
#define PLOT_EVERY 40
#define FRAME_PERIOD_NS 16000000LL
#define THREAD_START_NS 10000

struct tthread {
    uint32_t tid;
    int idx;
    int64_t now;
    long to_begin;                /* zones not begun yet */
    long closed;
    int depth;
    int64_t start[DEPTH_MAX];
    uint8_t loc[DEPTH_MAX];
};

struct threads_run {
    struct tc_client *c;
    struct bulk b;
    int n;
    struct tthread *th;
    uint64_t rng;
    int loc[LOCS];
    uint64_t loc_addr[LOCS];
    uint64_t zones[LOCS];
    int64_t zone_ns[LOCS];
    uint64_t plot_depth, plot_load, points_depth, points_load;
    int64_t next_frame;
};

static const char *const loc_names[LOCS] = { "task", "parse", "lookup", "compute", "io wait",
                                             "commit" };
static const char *const loc_functions[LOCS] = { "Worker::RunTask", "Parser::Parse",
                                                 "Index::Lookup", "Kernel::Compute",
                                                 "Storage::Wait", "Journal::Commit" };

static bool thread_done(const struct tthread *t)
{
    return t->to_begin == 0 && t->depth == 0;
}

/* Descend with a chance falling with depth: bushy, shallow trees. */
static bool descend(struct threads_run *r, const struct tthread *t)
{
    if (t->to_begin == 0 || t->depth >= DEPTH_MAX)
        return false;
    if (t->depth == 0)
        return true;
    return bench_range(&r->rng, 0, 99) < 70 - 8 * t->depth;
}

static void zone_begin(struct threads_run *r, struct tthread *t)
{
    int loc = t->depth == 0 ? 0 : (int)bench_range(&r->rng, 1, LOCS - 1);
    t->now += bench_range(&r->rng, 100, 2000);
    bulk_zone_begin(&r->b, t->tid, t->now, r->loc_addr[loc]);
    t->start[t->depth] = t->now;
    t->loc[t->depth++] = (uint8_t)loc;
    t->to_begin--;
}

/* A message at a time no other thread uses: now rounded up to idx
 * modulo BENCH_MAX_THREADS. */
static void message(struct threads_run *r, struct tthread *t)
{
    char text[64];
    int64_t when = t->now + 1;
    when += ((t->idx - when) % BENCH_MAX_THREADS + BENCH_MAX_THREADS) % BENCH_MAX_THREADS;
    t->now = when;
    snprintf(text, sizeof(text), "Worker %d: checkpoint %ld", t->idx, t->closed / MESSAGE_EVERY);
    bulk_message(&r->b, t->tid, when, text, TC_MSG_META(TC_SEV_INFO));
    manifest_message(r->c, when, text);
}

static void plot_points(struct threads_run *r, struct tthread *t)
{
    t->now += bench_range(&r->rng, 50, 300);
    bulk_plot(&r->b, TC_EV_PLOT_DATA_INT, t->tid, r->plot_depth, t->now,
              (uint64_t)bench_range(&r->rng, 0, 64));
    t->now += bench_range(&r->rng, 50, 300);
    double load = (double)bench_range(&r->rng, 0, 1000) / 10.0;
    uint64_t bits;
    memcpy(&bits, &load, sizeof(bits));
    bulk_plot(&r->b, TC_EV_PLOT_DATA_DOUBLE, t->tid, r->plot_load, t->now, bits);
    r->points_depth++;
    r->points_load++;
}

static void zone_end(struct threads_run *r, struct tthread *t)
{
    int d = --t->depth;
    t->now += bench_range(&r->rng, 300, d + 1 == DEPTH_MAX ? 5000 : 40000);
    bulk_zone_end(&r->b, t->tid, t->now);
    r->zones[t->loc[d]]++;
    r->zone_ns[t->loc[d]] += t->now - t->start[d];
    t->closed++;
    if (t->closed % PLOT_EVERY == 0)
        plot_points(r, t);
    if (t->closed % MESSAGE_EVERY == 0)
        message(r, t);
}

/* One queue run of thread t. */
static void run_thread(struct threads_run *r, struct tthread *t)
{
    long events = bench_range(&r->rng, RUN_MIN, RUN_MAX);
    for (long e = 0; e < events && !thread_done(t); e++) {
        if (descend(r, t))
            zone_begin(r, t);
        else
            zone_end(r, t);
    }
}

static struct tthread *next_thread(struct threads_run *r)
{
    struct tthread *best = NULL;
    for (int i = 0; i < r->n; i++)
        if (!thread_done(&r->th[i]) && (!best || r->th[i].now < best->now))
            best = &r->th[i];
    return best;
}

static void frames_until(struct threads_run *r, int64_t now)
{
    while (r->next_frame <= now) {
        bulk_frame_mark(&r->b, r->next_frame, 0);
        r->c->man.default_frames++;
        r->next_frame += FRAME_PERIOD_NS;
    }
}

static void threads_names(struct threads_run *r)
{
    struct tc_client *c = r->c;
    for (int i = 0; i < LOCS; i++) {
        r->loc[i] = names_srcloc(c, loc_names[i], loc_functions[i], "threads.cpp",
                                 40 + 12 * (uint32_t)i, 0);
        r->loc_addr[i] = names_srcloc_at(c, r->loc[i])->addr;
    }
    r->plot_depth = names_string(c, "queue depth");
    r->plot_load = names_string(c, "load");
}

static bool threads_setup(struct threads_run *r, struct tc_client *c)
{
    memset(r, 0, sizeof(*r));
    r->c = c;
    r->rng = 0x746872656164ull;
    r->n = bench_threads_opt(c, THREADS_DEFAULT, BENCH_MAX_THREADS);
    r->th = calloc((size_t)r->n, sizeof(*r->th));
    if (!r->th)
        return false;
    long zones = bench_zones_opt(c, THREADS_ZONES_DEFAULT);
    int64_t start = c->init_end + 1000000;
    for (int i = 0; i < r->n; i++) {
        char name[32];
        struct tthread *t = &r->th[i];
        t->tid = TID_BASE + (uint32_t)i;
        t->idx = i;
        t->now = start + THREAD_START_NS * i;
        t->to_begin = zones;
        snprintf(name, sizeof(name), "Worker %d", i);
        names_thread(c, t->tid, name);
    }
    r->next_frame = start;
    threads_names(r);
    return true;
}

static void threads_record(struct threads_run *r)
{
    struct tc_client *c = r->c;
    for (int i = 0; i < LOCS; i++)
        bench_zone_stats(c, r->loc[i], r->zones[i], r->zone_ns[i]);
    manifest_counter(c, TC_CNT_PLOT, r->plot_depth, "queue depth")->count += r->points_depth;
    manifest_counter(c, TC_CNT_PLOT, r->plot_load, "load")->count += r->points_load;
    for (int i = 0; i < r->n; i++) {
        if (r->th[i].closed > 0)
            names_thread_used(c, r->th[i].tid);
        manifest_time(c, r->th[i].now);
    }
}

void bench_run_threads(struct tc_client *c)
{
    struct threads_run r;
    if (!threads_setup(&r, c))
        return;
    bulk_open(&r.b, c);
    struct tthread *t;
    while (r.b.alive && (t = next_thread(&r)) != NULL) {
        frames_until(&r, t->now);
        run_thread(&r, t);
    }
    bulk_close(&r.b);
    threads_record(&r);
    free(r.th);
    session_finish(c);
}
