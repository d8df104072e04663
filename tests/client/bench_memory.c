/* bench_memory.c - the `memory` scenario of tracy-test-client: the shape of
 * the memory fixture at any size, for benchmarks. --threads T workers
 * 'Alloc worker 0'.. each run --zones N batches: an 'alloc batch' zone
 * (memory.cpp:51) holding 100 memory events, then a point of the plot
 * 'live allocations' and a 100 µs pause. The workers share a live set of
 * about 2000 blocks: while it is smaller a call only allocates, after that
 * a call frees a random block and allocates a new one (MemFreeCallstack,
 * MemAllocCallstack); one allocation in 16 goes to the named pools
 * 'Texture pool' / 'Mesh pool' (MemNamePayload). Every event carries one
 * of about 200 call stacks (CallstackPayload + CallstackSerial) 7 to 16
 * frames deep through subsystem_a/b/c and the recursive level(), so the
 * server asks for frames, symbols and symbol code (answered; CodeTransfer
 * is on, no executable time: no source files). FrameMark every 16 ms. At
 * the end worker 0 frees what is left (pools with MemFreeNamed, no call
 * stack).
 * Events are produced in time order over all workers (the serial queue
 * needs it), so the stream switches thread context at every batch edge. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bulk.h"
#include "manifest.h"
#include "names.h"
#include "session.h"

#define MEM_DEFAULT_THREADS 2
#define MEM_DEFAULT_BATCHES 1500
#define MEM_MAX_THREADS 16
#define BATCH_EVENTS 100
#define LIVE_TARGET 2000
#define LIVE_CAP 4096
#define REUSE_CAP 8192            /* freed addresses kept for reuse */
#define POOLS 3                   /* default, texture, mesh */
#define SUBSYSTEMS 3
#define SITES 2                   /* call sites of level() in a subsystem */
#define DEPTHS 12                 /* level() recursion 0..11 */
#define ALLOC_LEAVES 2            /* allocation sites in alloc_leaf() */
#define STACKS ((ALLOC_LEAVES + 1) * SUBSYSTEMS * SITES * DEPTHS)
#define FRAME_PERIOD_NS 16000000LL
#define PAUSE_NS 100000

/* The invented code of the workload. */
enum mfunc { F_ALLOC_LEAF, F_RELEASE_LEAF, F_LEVEL, F_SUB_A, F_SUB_B, F_SUB_C, F_WORKER,
             F_RUN, F_START_THREAD, F_CLONE, F_COUNT };

struct mfunc_spec {
    const char *name, *file, *image;
    uint32_t line, len;
};

/* Paths no machine has, so no server reads a local copy of a file. */
#define SYSROOT "/opt/tracy-test-client/sysroot"
#define APP_IMAGE "/opt/tracy-test-client/bin/client-memory"
#define APP_FILE "/opt/tracy-test-client/src/memory.cpp"
#define STD_IMAGE "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30"
#define LIBC_IMAGE "/usr/lib/x86_64-linux-gnu/libc.so.6"

static const struct mfunc_spec mfuncs[F_COUNT] = {
    [F_ALLOC_LEAF] = { "alloc_leaf", APP_FILE, APP_IMAGE, 20, 0x120 },
    [F_RELEASE_LEAF] = { "release_leaf", APP_FILE, APP_IMAGE, 29, 0xa0 },
    [F_LEVEL] = { "level", APP_FILE, APP_IMAGE, 36, 0x90 },
    [F_SUB_A] = { "subsystem_a", APP_FILE, APP_IMAGE, 42, 0x70 },
    [F_SUB_B] = { "subsystem_b", APP_FILE, APP_IMAGE, 45, 0x70 },
    [F_SUB_C] = { "subsystem_c", APP_FILE, APP_IMAGE, 48, 0x70 },
    [F_WORKER] = { "worker_loop", APP_FILE, APP_IMAGE, 51, 0x260 },
    [F_RUN] = { "std::thread::_State_impl<...>::_M_run",
                SYSROOT "/usr/include/c++/12/bits/std_thread.h", STD_IMAGE, 211, 0x40 },
    [F_START_THREAD] = { "start_thread", SYSROOT "/glibc/nptl/pthread_create.c", LIBC_IMAGE,
                         442, 0x290 },
    [F_CLONE] = { "__clone3", SYSROOT "/glibc/sysdeps/unix/sysv/linux/x86_64/clone3.S",
                  LIBC_IMAGE, 78, 0x30 },
};

struct mthread {
    uint32_t tid;
    int64_t now;
    long batches_left;
    int events;                   /* memory events in the current batch, -1: paused */
    bool alloc_next;              /* a free began the call, its alloc follows */
    int64_t zone_start;
};

struct mblock {
    uint64_t ptr;
    uint8_t pool;
};

struct mem_run {
    struct tc_client *c;
    struct bulk b;
    int n;
    struct mthread th[MEM_MAX_THREADS];
    uint64_t rng;
    uint64_t fn_addr[F_COUNT];
    struct bulk_stack stacks[STACKS];
    struct mblock live[LIVE_CAP];
    int n_live;
    uint64_t reuse[REUSE_CAP];
    int n_reuse;
    uint64_t heap_top;
    uint64_t pool_name[POOLS];    /* 0 for the default pool */
    uint64_t allocs[POOLS], frees[POOLS];
    uint64_t batch_loc, plot;
    int loc_batch;
    uint64_t zones, plot_points;
    int64_t zone_ns, next_frame;
};

/* ------------------------------------------------------- code and stacks */

/* Return address of call site `k` inside function f. */
static uint64_t site(const struct mem_run *m, enum mfunc f, int k)
{
    return m->fn_addr[f] + 0x1b + 0x13 * (uint64_t)k;
}

static void register_code(struct mem_run *m)
{
    uint64_t app = 0x5584d2a39000ull, lib = 0x7f7de1a20000ull;
    for (int f = 0; f < F_COUNT; f++) {
        const struct mfunc_spec *s = &mfuncs[f];
        bool in_app = s->image == mfuncs[F_ALLOC_LEAF].image;
        uint64_t *next = in_app ? &app : &lib;
        m->fn_addr[f] = *next;
        *next += (s->len + 0x3f) & ~0x3full;
        names_symbol(m->c, m->fn_addr[f], s->len, s->name, s->file, s->line, s->image);
        for (int k = 0; k < 4 && 0x1b + 0x13u * (unsigned)k < s->len; k++)
            names_code(m->c, site(m, (enum mfunc)f, k), s->image, s->name, s->file,
                       s->line + 1 + (uint32_t)k, m->fn_addr[f], s->len);
    }
}

/* Index of the stack of leaf `leaf` (ALLOC_LEAVES = the release leaf). */
static int stack_index(int leaf, int sub, int st, int depth)
{
    return ((leaf * SUBSYSTEMS + sub) * SITES + st) * DEPTHS + depth;
}

/* leaf, level() x (depth + 1), subsystem, worker, _M_run, start_thread,
 * clone3; cut at 16 frames like the client's call-stack depth. */
static void build_stack(struct mem_run *m, int leaf, int sub, int st, int depth)
{
    uint64_t fr[32];
    size_t n = 0;
    fr[n++] = leaf < ALLOC_LEAVES ? site(m, F_ALLOC_LEAF, leaf) : site(m, F_RELEASE_LEAF, 0);
    fr[n++] = site(m, F_LEVEL, leaf < ALLOC_LEAVES ? 0 : 1);
    for (int d = 0; d < depth; d++)
        fr[n++] = site(m, F_LEVEL, 2);
    fr[n++] = site(m, (enum mfunc)(F_SUB_A + sub), st);
    fr[n++] = site(m, F_WORKER, sub);
    fr[n++] = site(m, F_RUN, 0);
    fr[n++] = site(m, F_START_THREAD, 0);
    fr[n++] = site(m, F_CLONE, 0);
    bulk_stack_init(&m->stacks[stack_index(leaf, sub, st, depth)], fr, n);
}

static void build_stacks(struct mem_run *m)
{
    for (int leaf = 0; leaf <= ALLOC_LEAVES; leaf++)
        for (int sub = 0; sub < SUBSYSTEMS; sub++)
            for (int st = 0; st < SITES; st++)
                for (int d = 0; d < DEPTHS; d++)
                    build_stack(m, leaf, sub, st, d);
}

static struct bulk_stack *pick_stack(struct mem_run *m, bool alloc)
{
    uint64_t r = bench_rnd(&m->rng);
    int leaf = alloc ? (int)(r & 1) : ALLOC_LEAVES;
    int sub = (int)(((r >> 8) & 0xff) % SUBSYSTEMS);
    int st = (int)((r >> 16) & 1);
    int depth = (int)(((r >> 24) & 0xff) % DEPTHS);
    return &m->stacks[stack_index(leaf, sub, st, depth)];
}

/* -------------------------------------------------------------- the heap */

static uint64_t block_size(struct mem_run *m, int pool)
{
    uint64_t r = bench_rnd(&m->rng);
    if (pool == 1)
        return 65536ull << (r & 6);                /* textures: 64 KiB..4 MiB */
    if (pool == 2)
        return 4096 + ((r >> 8) & 0x3ffff);        /* meshes */
    return 16 + (((r >> 8) & 0xff) << (r & 7) >> 3);
}

/* A block address: a recently freed one (like a malloc free list), or
 * fresh space from the top of the heap. */
static uint64_t block_address(struct mem_run *m, uint64_t size)
{
    if (m->n_reuse > 0 && (bench_rnd(&m->rng) & 3) != 0)
        return m->reuse[--m->n_reuse];
    uint64_t ptr = m->heap_top;
    m->heap_top += (size + 31) & ~15ull;
    return ptr;
}

static void do_alloc(struct mem_run *m, struct mthread *t)
{
    uint64_t r = bench_rnd(&m->rng);
    int pool = (r & 15) == 0 ? 1 + (int)((r >> 4) & 1) : 0;
    uint64_t size = block_size(m, pool);
    uint64_t ptr = block_address(m, size);
    m->live[m->n_live++] = (struct mblock){ ptr, (uint8_t)pool };
    bulk_mem_alloc(&m->b, t->tid, t->now, ptr, size, m->pool_name[pool], pick_stack(m, true));
    m->allocs[pool]++;
}

/* Free live block i (with a call stack unless `plain`). */
static void do_free(struct mem_run *m, struct mthread *t, int i, bool plain)
{
    struct mblock blk = m->live[i];
    m->live[i] = m->live[--m->n_live];
    if (m->n_reuse < REUSE_CAP)
        m->reuse[m->n_reuse++] = blk.ptr;
    bulk_mem_free(&m->b, t->tid, t->now, blk.ptr, m->pool_name[blk.pool],
                  plain ? NULL : pick_stack(m, false));
    m->frees[blk.pool]++;
}

/* ---------------------------------------------------------- the workers */

/* One memory event of a call: evict a random block once the live set is
 * full, then allocate. */
static void memory_event(struct mem_run *m, struct mthread *t)
{
    if (!t->alloc_next && m->n_live >= LIVE_TARGET) {
        do_free(m, t, (int)bench_range(&m->rng, 0, m->n_live - 1), false);
        t->alloc_next = true;
        t->now += bench_range(&m->rng, 300, 1500);
        return;
    }
    do_alloc(m, t);
    t->alloc_next = false;
    t->now += bench_range(&m->rng, 3000, 12000);
}

static void batch_begin(struct mem_run *m, struct mthread *t)
{
    t->zone_start = t->now;
    bulk_zone_begin(&m->b, t->tid, t->now, m->batch_loc);
    t->events = 0;
    t->now += bench_range(&m->rng, 300, 900);
}

static void batch_end(struct mem_run *m, struct mthread *t)
{
    bulk_zone_end(&m->b, t->tid, t->now);
    m->zones++;
    m->zone_ns += t->now - t->zone_start;
    t->now += bench_range(&m->rng, 200, 600);
    bulk_plot(&m->b, TC_EV_PLOT_DATA_INT, t->tid, m->plot, t->now, (uint64_t)m->n_live);
    m->plot_points++;
    t->now += PAUSE_NS + bench_range(&m->rng, 0, 20000);
    t->events = -1;
    t->batches_left--;
}

/* The next thing worker t does at t->now (a free and the allocation
 * that follows it stay in one batch). */
static void worker_step(struct mem_run *m, struct mthread *t)
{
    if (t->events < 0) {
        batch_begin(m, t);
    } else if (t->events < BATCH_EVENTS || t->alloc_next) {
        memory_event(m, t);
        t->events++;
    } else {
        batch_end(m, t);
    }
}

static struct mthread *next_worker(struct mem_run *m)
{
    struct mthread *best = NULL;
    for (int i = 0; i < m->n; i++)
        if (m->th[i].batches_left > 0 && (!best || m->th[i].now < best->now))
            best = &m->th[i];
    return best;
}

/* Default frame marks up to time `now`. */
static void frames_until(struct mem_run *m, int64_t now)
{
    while (m->next_frame <= now) {
        bulk_frame_mark(&m->b, m->next_frame, 0);
        m->c->man.default_frames++;
        m->next_frame += FRAME_PERIOD_NS;
    }
}

/* Worker 0 frees the blocks still live, after everything else. */
static void free_all(struct mem_run *m)
{
    struct mthread *t = &m->th[0];
    for (int i = 0; i < m->n; i++)
        if (m->th[i].now > t->now)
            t->now = m->th[i].now;
    while (m->n_live > 0 && m->b.alive) {
        t->now += bench_range(&m->rng, 50, 200);
        do_free(m, t, m->n_live - 1, m->live[m->n_live - 1].pool != 0);
    }
}

/* ---------------------------------------------------------------- setup */

static void mem_names(struct mem_run *m)
{
    struct tc_client *c = m->c;
    for (int i = 0; i < m->n; i++) {
        char name[32];
        snprintf(name, sizeof(name), "Alloc worker %d", i);
        names_thread(c, m->th[i].tid, name);
    }
    names_thread(c, c->symbol_tid, "Tracy Symbol Worker");
    m->loc_batch = names_srcloc(c, "alloc batch", "worker_loop", APP_FILE, 51, 0);
    m->batch_loc = names_srcloc_at(c, m->loc_batch)->addr;
    m->plot = names_string(c, "live allocations");
    m->pool_name[1] = names_string(c, "Texture pool");
    m->pool_name[2] = names_string(c, "Mesh pool");
}

static void mem_setup(struct mem_run *m, struct tc_client *c)
{
    memset(m, 0, sizeof(*m));
    m->c = c;
    m->rng = 0x6d656d6f7279ull;
    m->heap_top = 0x7f7de0000000ull;
    m->n = bench_threads_opt(c, MEM_DEFAULT_THREADS, MEM_MAX_THREADS);
    long batches = bench_zones_opt(c, MEM_DEFAULT_BATCHES);
    int64_t start = c->init_end + 1000000;
    for (int i = 0; i < m->n; i++)
        m->th[i] = (struct mthread){ .tid = c->main_tid + 1 + (uint32_t)i,
                                     .now = start + 40000 * i, .batches_left = batches,
                                     .events = -1 };
    m->next_frame = start;
    mem_names(m);
    register_code(m);
    build_stacks(m);
}

static void mem_record(struct mem_run *m)
{
    static const char *const pool_label[POOLS] = { "(default)", "Texture pool", "Mesh pool" };
    struct tc_client *c = m->c;
    bench_zone_stats(c, m->loc_batch, m->zones, m->zone_ns);
    for (int p = 0; p < POOLS; p++) {
        if (m->allocs[p] == 0 && m->frees[p] == 0)
            continue;
        struct tc_named_counter *e = manifest_counter(c, TC_CNT_MEMPOOL, m->pool_name[p],
                                                      pool_label[p]);
        e->count += m->allocs[p];
        e->count2 += m->frees[p];
    }
    manifest_counter(c, TC_CNT_PLOT, m->plot, "live allocations")->count += m->plot_points;
    for (int i = 0; i < m->n; i++) {
        names_thread_used(c, m->th[i].tid);
        manifest_time(c, m->th[i].now);
    }
}

void bench_run_memory(struct tc_client *c)
{
    struct mem_run *m = calloc(1, sizeof(*m));
    if (!m)
        return;
    mem_setup(m, c);
    bulk_open(&m->b, c);
    struct mthread *t;
    while (m->b.alive && (t = next_worker(m)) != NULL) {
        frames_until(m, t->now);
        worker_step(m, t);
    }
    if (m->b.alive)
        free_all(m);
    bulk_close(&m->b);
    mem_record(m);
    free(m);
    session_finish(c);
}
