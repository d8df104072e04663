/* scenario.c - the synthetic "application" tracy-test-client profiles, and
 * the scenarios built from it. A generator produces frames of a main
 * thread (nested zones with static and allocated source locations, zone
 * text/name/color/value, a zone with a call stack, plots, messages, frame
 * marks) plus worker threads (C-API style validated zones, allocated
 * source locations) and serial events (locks, memory). Time stamps are
 * invented, deterministic ticks (1 tick = 1 ns) except in `stream`, which
 * follows the wall clock. Everything sent is also recorded for the
 * manifest. The generator is shared (gen.h) with scenario_ext.c, whose
 * scenarios (everything, crash, on-demand) add the other event families
 * (GPU, sampling, scheduling, fibers...) one per-frame function each. The
 * benchmark scenarios (zones, memory, threads) live in bench_*.c. */
#include "scenario.h"

#include <poll.h>
#include <stdarg.h>
#include <string.h>

#include "bench.h"
#include "events.h"
#include "gen.h"
#include "manifest.h"
#include "names.h"
#include "scenario_bad.h"
#include "scenario_ext.h"
#include "session.h"
#include "wire.h"

#define STREAM_FRAME_NS 10000000LL
#define IO_WAIT_NS 5200000000LL /* > 4.295 s: forces the 64-bit ZoneEnd form */

/* -------------------------------------------------------------- flavors */

struct loc_spec {
    const char *name; /* NULL: unnamed, csvexport shows the function */
    const char *function;
    const char *file;
    uint32_t line;
    uint32_t color;
};

struct code_spec {
    const char *function;
    const char *file;
    uint32_t line;
};

/* All names of one flavor of the synthetic application. */
struct flavor {
    const char *main_thread, *worker_fmt, *symbol_thread, *image;
    struct loc_spec loop, update, physics, integrate, traced, render, draw, script, job_batch,
        job, load, io_wait, lock_queue, lock_assets;
    const char *physics_set, *loading_set;
    const char *plot_int, *plot_float, *plot_double;
    const char *lock_queue_name, *lock_assets_name, *pool_name;
    const char *app_info[2];
    const char *literal, *literal_color, *literal_callstack;
    const char *checkpoint_fmt, *slow_fmt, *callstack_msg, *color_callstack_msg;
    struct code_spec code[5];
    long default_zones;
    int default_threads;
};

static const struct flavor normal_flavor = {
    .main_thread = "Main thread",
    .worker_fmt = "Worker %d",
    .symbol_thread = "Tracy Symbol Worker",
    .image = "/usr/lib/libtestclient.so",
    .loop = { NULL, "main_loop", "src/app/main.cpp", 40, 0 },
    .update = { "update", "App::Update", "src/app/main.cpp", 88, 0 },
    .physics = { "physics step", "Physics::Step", "src/app/physics.cpp", 31, 0x2080ff },
    .integrate = { NULL, "Physics::Integrate", "src/app/physics.cpp", 57, 0 },
    .traced = { "traced zone", "App::TracedTick", "src/app/main.cpp", 120, 0 },
    .render = { NULL, "Render::Submit", "src/app/render.cpp", 14, 0xff3366 },
    .draw = { "draw batch", "Render::DrawBatch", "src/app/render.cpp", 44, 0 },
    .script = { NULL, "script_call", "src/app/script.cpp", 77, 0 },
    .job_batch = { "worker job", "Worker::Run", "src/app/worker.cpp", 20, 0 },
    .job = { NULL, "Job::Execute", "src/app/worker.cpp", 35, 0 },
    .load = { "load texture", "Assets::Load", "src/app/assets.cpp", 120, 0x40c040 },
    .io_wait = { "io wait", "Loader::BlockingRead", "src/app/loader.cpp", 9, 0 },
    .lock_queue = { NULL, "std::mutex g_job_queue", "src/app/worker.cpp", 12, 0 },
    .lock_assets = { NULL, "std::shared_mutex g_assets", "src/app/assets.cpp", 15, 0 },
    .physics_set = "Physics",
    .loading_set = "Asset load",
    .plot_int = "queue depth",
    .plot_float = "load factor",
    .plot_double = "frame time ms",
    .lock_queue_name = "job queue lock",
    .lock_assets_name = "asset table lock",
    .pool_name = "asset pool",
    .app_info = { "tracy-test-client synthetic workload", "build: test, deterministic" },
    .literal = "literal message: hello from tracy-test-client",
    .literal_color = "literal colored error message",
    .literal_callstack = "literal message with callstack",
    .checkpoint_fmt = "checkpoint %ld",
    .slow_fmt = "slow job in frame %ld",
    .callstack_msg = "copied message with callstack",
    .color_callstack_msg = "colored message with callstack",
    .code = { { "App::TracedTick", "src/app/main.cpp", 121 },
              { "App::Run", "src/app/main.cpp", 30 },
              { "main", "src/app/main.cpp", 12 },
              { "AI::Think", "src/app/ai.cpp", 64 },
              { "Allocator::Grow", "src/app/alloc.cpp", 50 } },
    .default_zones = 4000,
    .default_threads = 3,
};

static const struct flavor example_flavor = {
    .main_thread = "Main thread",
    .worker_fmt = "Job worker %d",
    .symbol_thread = "Tracy Symbol Worker",
    .image = "/usr/bin/example-game",
    .loop = { "Game loop", "Game::Tick", "example/game.cpp", 25, 0 },
    .update = { "Update", "Game::Update", "example/game.cpp", 40, 0 },
    .physics = { "Physics", "World::StepPhysics", "example/world.cpp", 18, 0x3399ff },
    .integrate = { NULL, "World::Integrate", "example/world.cpp", 52, 0 },
    .traced = { "Pathfinding", "AI::FindPath", "example/ai.cpp", 33, 0 },
    .render = { "Render", "Renderer::Frame", "example/renderer.cpp", 10, 0xff6633 },
    .draw = { NULL, "Renderer::DrawMesh", "example/renderer.cpp", 48, 0 },
    .script = { NULL, "RunScript", "example/script.cpp", 21, 0 },
    .job_batch = { "Job batch", "JobSystem::WorkerLoop", "example/jobs.cpp", 30, 0 },
    .job = { NULL, "JobSystem::Execute", "example/jobs.cpp", 44, 0 },
    .load = { "Load texture", "Assets::LoadTexture", "example/assets.cpp", 70, 0x33cc33 },
    .io_wait = { "Load level", "Assets::LoadLevel", "example/assets.cpp", 12, 0 },
    .lock_queue = { NULL, "std::mutex jobQueueMutex", "example/jobs.cpp", 8, 0 },
    .lock_assets = { NULL, "std::shared_mutex assetMutex", "example/assets.cpp", 9, 0 },
    .physics_set = "Physics tick",
    .loading_set = "Texture streaming",
    .plot_int = "Jobs queued",
    .plot_float = "CPU load",
    .plot_double = "Frame time (ms)",
    .lock_queue_name = "Job queue",
    .lock_assets_name = "Asset table",
    .pool_name = "Texture memory",
    .app_info = { "Example game, profiled by tracy-test-client", "Level: demo" },
    .literal = "Hello from tracy-test-client!",
    .literal_color = "Something went wrong (not really)",
    .literal_callstack = "Where am I? (message with callstack)",
    .checkpoint_fmt = "Reached frame %ld",
    .slow_fmt = "Slow job in frame %ld",
    .callstack_msg = "Saved game (message with callstack)",
    .color_callstack_msg = "Texture missing (colored message with callstack)",
    .code = { { "AI::FindPath", "example/ai.cpp", 34 },
              { "Game::Tick", "example/game.cpp", 26 },
              { "main", "example/main.cpp", 5 },
              { "AI::Think", "example/ai.cpp", 80 },
              { "Assets::Allocate", "example/assets.cpp", 99 } },
    .default_zones = 300,
    .default_threads = 2,
};

int64_t gen_rnd(struct gen *g, int64_t lo, int64_t hi)
{
    g->rng = g->rng * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (int64_t)((g->rng >> 33) % (uint64_t)(hi - lo + 1));
}

uint64_t gen_srcloc_addr(struct gen *g, int loc)
{
    return names_srcloc_at(g->c, loc)->addr;
}

/* ---------------------------------------------------------------- zones */

void gen_zone_push(struct gen *g, struct gen_thread *t, int loc, uint32_t vid)
{
    struct gen_zone *z = &t->stack[t->depth++];
    z->loc = loc;
    z->start = t->now;
    z->vid = vid;
    names_srcloc_at(g->c, loc)->open++;
    names_thread_used(g->c, t->tid);
    manifest_time(g->c, t->now);
}

void gen_zone_begin(struct gen *g, struct gen_thread *t, int loc, int64_t gap)
{
    t->now += gap;
    ev_zone_begin(g->c, t->tid, t->now, gen_srcloc_addr(g, loc));
    gen_zone_push(g, t, loc, 0);
}

void gen_zone_begin_traced(struct gen *g, struct gen_thread *t, int loc, int64_t gap,
                           const uint64_t *stack)
{
    t->now += gap;
    ev_zone_begin_callstack(g->c, t->tid, t->now, gen_srcloc_addr(g, loc), stack, 3);
    gen_zone_push(g, t, loc, 0);
}

void gen_zone_begin_alloc(struct gen *g, struct gen_thread *t, int loc, int64_t gap,
                          const uint64_t *stack)
{
    t->now += gap;
    ev_zone_begin_alloc(g->c, t->tid, t->now, names_srcloc_at(g->c, loc), stack, stack ? 3 : 0);
    gen_zone_push(g, t, loc, 0);
}

/* C API style: ZoneValidation(id) precedes the begin, the end, and every
 * text/name/color/value of the zone. */
static void zone_begin_validated(struct gen *g, struct gen_thread *t, int loc, int64_t gap)
{
    uint32_t id = ++g->c->ev.next_zone_id;
    t->now += gap;
    ev_zone_validation(g->c, t->tid, id);
    ev_zone_begin(g->c, t->tid, t->now, gen_srcloc_addr(g, loc));
    gen_zone_push(g, t, loc, id);
}

static void validate_top(struct gen *g, struct gen_thread *t)
{
    if (t->depth > 0 && t->stack[t->depth - 1].vid)
        ev_zone_validation(g->c, t->tid, t->stack[t->depth - 1].vid);
}

void gen_zone_end(struct gen *g, struct gen_thread *t, int64_t gap)
{
    struct gen_zone *z = &t->stack[--t->depth];
    struct tc_srcloc_entry *s = names_srcloc_at(g->c, z->loc);
    t->now += gap;
    if (z->vid)
        ev_zone_validation(g->c, t->tid, z->vid);
    ev_zone_end(g->c, t->tid, t->now);
    s->open--;
    if (t->now > z->start) {
        s->zones++;
        s->total_ns += t->now - z->start;
    }
    manifest_time(g->c, t->now);
}

void gen_zone_text(struct gen *g, struct gen_thread *t, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    validate_top(g, t);
    ev_zone_text(g->c, t->tid, text);
}

static void zone_name(struct gen *g, struct gen_thread *t, const char *text)
{
    validate_top(g, t);
    ev_zone_name(g->c, t->tid, text);
}

static void zone_color(struct gen *g, struct gen_thread *t, uint32_t rgb)
{
    validate_top(g, t);
    ev_zone_color(g->c, t->tid, rgb);
}

static void zone_value(struct gen *g, struct gen_thread *t, uint64_t value)
{
    validate_top(g, t);
    ev_zone_value(g->c, t->tid, value);
}

/* ------------------------------------------------------------- messages */

/* Messages get unique times, so their order in a capture is unambiguous. */
int64_t gen_message_time(struct gen *g, struct gen_thread *t)
{
    t->now += gen_rnd(g, 200, 800);
    while (manifest_message_time_taken(g->c, t->now))
        t->now++;
    names_thread_used(g->c, t->tid);
    return t->now;
}

void gen_msg_copied(struct gen *g, struct gen_thread *t, int severity, bool callstack,
                    const char *text)
{
    int64_t when = gen_message_time(g, t);
    ev_message(g->c, t->tid, when, text, TC_MSG_META(severity), callstack ? g->stack_b : NULL,
               callstack ? 3 : 0);
    manifest_message(g->c, when, text);
}

static void gen_msg_colored(struct gen *g, struct gen_thread *t, uint32_t rgb, int severity,
                            bool callstack, const char *text)
{
    int64_t when = gen_message_time(g, t);
    ev_message_color(g->c, t->tid, when, text, rgb, TC_MSG_META(severity),
                     callstack ? g->stack_b : NULL, callstack ? 3 : 0);
    manifest_message(g->c, when, text);
}

void gen_msg_literal(struct gen *g, struct gen_thread *t, uint64_t text_ptr, int severity,
                     bool callstack)
{
    int64_t when = gen_message_time(g, t);
    ev_message_literal(g->c, t->tid, when, text_ptr, TC_MSG_META(severity),
                       callstack ? g->stack_a : NULL, callstack ? 3 : 0);
    manifest_message(g->c, when, names_find_string(g->c, text_ptr));
}

void gen_msg_literal_colored(struct gen *g, struct gen_thread *t, uint64_t text_ptr,
                             uint32_t rgb, int severity)
{
    int64_t when = gen_message_time(g, t);
    ev_message_literal_color(g->c, t->tid, when, text_ptr, rgb, TC_MSG_META(severity), NULL, 0);
    manifest_message(g->c, when, names_find_string(g->c, text_ptr));
}

void gen_app_info(struct gen *g, int64_t when, const char *text)
{
    ev_app_info(g->c, when, text);
    manifest_appinfo(g->c, text);
}

/* --------------------------------------------------- frames, plots, locks */

void gen_frame_mark(struct gen *g, int64_t when, uint64_t set, const char *name)
{
    ev_frame_mark(g->c, when, set);
    if (set == 0)
        g->c->man.default_frames++;
    else
        manifest_counter(g->c, TC_CNT_FRAMESET_CONT, set, name)->count++;
    manifest_time(g->c, when);
}

static void frame_span(struct gen *g, int64_t start, int64_t end)
{
    ev_frame_mark_start(g->c, start, g->set_loading);
    ev_frame_mark_end(g->c, end, g->set_loading);
    manifest_counter(g->c, TC_CNT_FRAMESET_DISCONT, g->set_loading, g->fl->loading_set)->count++;
    manifest_time(g->c, end);
}

static void plot_points(struct gen *g, struct gen_thread *t, long f)
{
    struct tc_client *c = g->c;
    t->now += gen_rnd(g, 100, 500);
    ev_plot_int(c, t->tid, g->plot_int, t->now, (f * 7) % 23);
    manifest_counter(c, TC_CNT_PLOT, g->plot_int, g->fl->plot_int)->count++;
    t->now += gen_rnd(g, 100, 500);
    ev_plot_float(c, t->tid, g->plot_float, t->now, (float)(f % 10) / 10.0f);
    manifest_counter(c, TC_CNT_PLOT, g->plot_float, g->fl->plot_float)->count++;
    t->now += gen_rnd(g, 100, 500);
    ev_plot_double(c, t->tid, g->plot_double, t->now, 16.0 + (double)(f % 5) * 0.25);
    manifest_counter(c, TC_CNT_PLOT, g->plot_double, g->fl->plot_double)->count++;
    manifest_time(c, t->now);
}

/* Serial events use one global clock so each lock's events and each
 * memory pool's events are in time order. */
int64_t gen_serial_at(struct gen *g, int64_t gap)
{
    g->serial_now += gap;
    manifest_time(g->c, g->serial_now);
    return g->serial_now;
}

void gen_lock_count(struct gen *g, uint32_t lock, const char *name, int events)
{
    manifest_counter(g->c, TC_CNT_LOCK, lock, name)->count += (uint64_t)events;
}

static void lock_exclusive_round(struct gen *g, uint32_t lock, const char *name,
                                 struct gen_thread *a, struct gen_thread *b)
{
    struct tc_client *c = g->c;
    ev_lock_wait(c, a->tid, lock, gen_serial_at(g, 2000), false);
    ev_lock_obtain(c, a->tid, lock, gen_serial_at(g, 1500), false);
    if (b != a)
        ev_lock_wait(c, b->tid, lock, gen_serial_at(g, 3000), false);
    ev_lock_release(c, a->tid, lock, gen_serial_at(g, 30000), false);
    if (b != a) {
        ev_lock_obtain(c, b->tid, lock, gen_serial_at(g, 500), false);
        ev_lock_release(c, b->tid, lock, gen_serial_at(g, 20000), false);
    }
    names_thread_used(c, a->tid);
    names_thread_used(c, b->tid);
    gen_lock_count(g, lock, name, b != a ? 6 : 3);
}

static void lock_shared_round(struct gen *g, struct gen_thread *a, struct gen_thread *b)
{
    struct tc_client *c = g->c;
    uint32_t lock = g->lock_assets;
    ev_lock_wait(c, a->tid, lock, gen_serial_at(g, 1000), true);
    ev_lock_obtain(c, a->tid, lock, gen_serial_at(g, 1000), true);
    int events = 2;
    if (b != a) {
        ev_lock_wait(c, b->tid, lock, gen_serial_at(g, 1000), true);
        ev_lock_obtain(c, b->tid, lock, gen_serial_at(g, 1000), true);
        events += 2;
    }
    ev_lock_release(c, a->tid, lock, gen_serial_at(g, 15000), true);
    events++;
    if (b != a) {
        ev_lock_release(c, b->tid, lock, gen_serial_at(g, 5000), true);
        events++;
    }
    gen_lock_count(g, lock, g->fl->lock_assets_name, events);
    lock_exclusive_round(g, lock, g->fl->lock_assets_name, &g->th[0], &g->th[0]);
}

void gen_mem_pair(struct gen *g, struct gen_thread *t, uint64_t ptr, uint64_t size,
                  uint64_t pool, bool callstack)
{
    struct tc_client *c = g->c;
    const uint64_t *stack = callstack ? g->stack_mem : NULL;
    size_t n = callstack ? 3 : 0;
    ev_mem_alloc(c, t->tid, gen_serial_at(g, 2000), ptr, size, pool, stack, n);
    ev_mem_free(c, t->tid, gen_serial_at(g, 8000), ptr, pool, stack, n);
    names_thread_used(c, t->tid);
    struct tc_named_counter *m = manifest_counter(c, TC_CNT_MEMPOOL, pool,
                                                  pool ? g->fl->pool_name : "(default)");
    m->count++;
    m->count2++;
}

/* ---------------------------------------------------------------- setup */

static void register_code(struct gen *g)
{
    const struct flavor *fl = g->fl;
    uint64_t addr[5];
    for (int k = 0; k < 5; k++) {
        addr[k] = 0x7f5500001000ull + 0x1230ull * (unsigned)k;
        names_code(g->c, addr[k], fl->image, fl->code[k].function, fl->code[k].file,
                   fl->code[k].line, addr[k] - 0x40 - 0x10 * (uint64_t)k, 0x200);
    }
    const uint64_t a[3] = { addr[0], addr[1], addr[2] };
    const uint64_t b[3] = { addr[3], addr[1], addr[2] };
    const uint64_t m[3] = { addr[4], addr[1], addr[2] };
    memcpy(g->stack_a, a, sizeof(a));
    memcpy(g->stack_b, b, sizeof(b));
    memcpy(g->stack_mem, m, sizeof(m));
}

static int gen_add_loc(struct gen *g, const struct loc_spec *s, bool allocated)
{
    return allocated ? names_alloc_srcloc(g->c, s->name, s->function, s->file, s->line, s->color)
                     : names_srcloc(g->c, s->name, s->function, s->file, s->line, s->color);
}

static void register_names(struct gen *g)
{
    struct tc_client *c = g->c;
    const struct flavor *fl = g->fl;
    for (int i = 0; i < g->n_threads; i++) {
        char name[64];
        if (i == 0)
            snprintf(name, sizeof(name), "%s", fl->main_thread);
        else
            snprintf(name, sizeof(name), fl->worker_fmt, i);
        g->th[i].tid = c->main_tid + (uint32_t)i;
        names_thread(c, g->th[i].tid, name);
    }
    names_thread(c, c->symbol_tid, fl->symbol_thread);
    g->loc_loop = gen_add_loc(g, &fl->loop, false);
    g->loc_update = gen_add_loc(g, &fl->update, false);
    g->loc_physics = gen_add_loc(g, &fl->physics, false);
    g->loc_integrate = gen_add_loc(g, &fl->integrate, false);
    g->loc_traced = gen_add_loc(g, &fl->traced, false);
    g->loc_render = gen_add_loc(g, &fl->render, false);
    g->loc_draw = gen_add_loc(g, &fl->draw, false);
    g->loc_script = gen_add_loc(g, &fl->script, true);
    g->loc_job_batch = gen_add_loc(g, &fl->job_batch, false);
    g->loc_job = gen_add_loc(g, &fl->job, false);
    g->loc_load = gen_add_loc(g, &fl->load, true);
    g->loc_io_wait = gen_add_loc(g, &fl->io_wait, false);
    g->loc_lock_queue = gen_add_loc(g, &fl->lock_queue, false);
    g->loc_lock_assets = gen_add_loc(g, &fl->lock_assets, false);
    g->set_physics = names_string(c, fl->physics_set);
    g->set_loading = names_string(c, fl->loading_set);
    g->plot_int = names_string(c, fl->plot_int);
    g->plot_float = names_string(c, fl->plot_float);
    g->plot_double = names_string(c, fl->plot_double);
    g->pool = names_string(c, fl->pool_name);
    g->lit = names_string(c, fl->literal);
    g->lit_color = names_string(c, fl->literal_color);
    g->lit_callstack = names_string(c, fl->literal_callstack);
    g->lock_queue = 1;
    g->lock_assets = 2;
    register_code(g);
}

/* Events a program sends once near its start: app info, locks, plots. */
void gen_app_infos(struct gen *g, int64_t when)
{
    gen_app_info(g, when, g->fl->app_info[0]);
    gen_app_info(g, when + 1000, g->fl->app_info[1]);
}

void gen_lock_announces(struct gen *g, int64_t when)
{
    struct tc_client *c = g->c;
    ev_lock_announce(c, g->lock_queue, when, gen_srcloc_addr(g, g->loc_lock_queue),
                     TC_LOCK_EXCLUSIVE);
    ev_lock_name(c, g->lock_queue, g->fl->lock_queue_name);
    ev_lock_announce(c, g->lock_assets, when + 1000, gen_srcloc_addr(g, g->loc_lock_assets),
                     TC_LOCK_SHARED);
    ev_lock_name(c, g->lock_assets, g->fl->lock_assets_name);
    gen_lock_count(g, g->lock_queue, g->fl->lock_queue_name, 0);
    gen_lock_count(g, g->lock_assets, g->fl->lock_assets_name, 0);
}

void gen_plot_configs(struct gen *g)
{
    ev_plot_config(g->c, g->plot_int, TC_PLOT_NUMBER, true, false, 0x20a020);
    ev_plot_config(g->c, g->plot_double, TC_PLOT_NUMBER, false, true, 0xff8800);
}

void gen_preamble(struct gen *g, int64_t when)
{
    gen_app_infos(g, when);
    gen_lock_announces(g, when + 2000);
    gen_plot_configs(g);
    manifest_time(g->c, when + 3000);
    g->serial_now = when + 4000;
}

void gen_epilogue(struct gen *g)
{
    int64_t when = gen_serial_at(g, 1000);
    ev_lock_terminate(g->c, g->lock_queue, when);
    ev_lock_terminate(g->c, g->lock_assets, when + 1);
    manifest_time(g->c, when + 1);
}

/* ------------------------------------------------------------ one frame */

static void long_message(struct gen *g, struct gen_thread *t)
{
    char text[320];
    int n = snprintf(text, sizeof(text), "long message (300 bytes): ");
    for (int i = n; i < 300; i++)
        text[i] = (char)('a' + i % 26);
    text[300] = '\0';
    gen_msg_copied(g, t, TC_SEV_INFO, false, text);
}

static void main_messages(struct gen *g, struct gen_thread *t, long f)
{
    char text[128];
    if (f == 1)
        gen_msg_literal(g, t, g->lit, TC_SEV_DEBUG, false);
    if (f == 2)
        gen_msg_literal_colored(g, t, g->lit_color, 0xff2020, TC_SEV_ERROR);
    if (f == 3)
        long_message(g, t);
    if (f == 5)
        gen_msg_copied(g, t, TC_SEV_INFO, true, g->fl->callstack_msg);
    if (f == 6)
        gen_msg_literal(g, t, g->lit_callstack, TC_SEV_TRACE, true);
    if (f % 25 == 0) {
        snprintf(text, sizeof(text), g->fl->checkpoint_fmt, f);
        gen_msg_copied(g, t, TC_SEV_INFO, false, text);
    }
}

static void main_physics(struct gen *g, struct gen_thread *t, long f)
{
    gen_zone_begin(g, t, g->loc_physics, gen_rnd(g, 1000, 3000));
    if (f % 2 == 0)
        zone_color(g, t, 0x00ff00 + (uint32_t)(f % 200));
    for (int i = 0; i < 3; i++) {
        gen_zone_begin(g, t, g->loc_integrate, gen_rnd(g, 500, 2000));
        zone_value(g, t, (uint64_t)(f * 1000 + i));
        gen_zone_end(g, t, gen_rnd(g, 10000, 90000));
    }
    gen_zone_end(g, t, gen_rnd(g, 1000, 3000));
    gen_frame_mark(g, t->now, g->set_physics, g->fl->physics_set);
}

static void main_render(struct gen *g, struct gen_thread *t, long f)
{
    gen_zone_begin(g, t, g->loc_render, gen_rnd(g, 2000, 6000));
    for (int j = 0; j < 4; j++) {
        gen_zone_begin(g, t, g->loc_draw, gen_rnd(g, 1000, 5000));
        if (j == 0) {
            char name[48];
            snprintf(name, sizeof(name), "batch %ld", f);
            zone_name(g, t, name);
        }
        gen_zone_end(g, t, gen_rnd(g, 50000, 400000));
    }
    gen_zone_end(g, t, gen_rnd(g, 1000, 2000));
}

/* Main thread: one frame of nested zones, ending with the default frame
 * mark. Returns the frame end time. */
static int64_t main_frame(struct gen *g, long f, int64_t start, int64_t length)
{
    struct gen_thread *t = &g->th[0];
    t->now = gen_later(t->now + 1000, start);
    gen_zone_begin(g, t, g->loc_loop, 0);
    gen_zone_begin(g, t, g->loc_update, gen_rnd(g, 2000, 5000));
    gen_zone_text(g, t, "frame %ld", f);
    gen_zone_text(g, t, "entities %ld", 100 + f % 50);
    main_physics(g, t, f);
    gen_zone_end(g, t, gen_rnd(g, 500, 1500));
    if (f % 4 == 0) {
        /* every other one after a gap > 65536 ns: the 32-bit form */
        int64_t gap = f % 8 == 0 ? gen_rnd(g, 1000, 3000) : gen_rnd(g, 70000, 90000);
        gen_zone_begin_traced(g, t, g->loc_traced, gap, f % 8 == 0 ? g->stack_a : g->stack_b);
        gen_zone_end(g, t, gen_rnd(g, 20000, 40000));
    }
    if (f == g->io_wait_frame) {
        gen_zone_begin(g, t, g->loc_io_wait, gen_rnd(g, 1000, 2000));
        g->io_begin = t->now;
        gen_zone_end(g, t, IO_WAIT_NS);
        g->io_end = t->now;
    }
    main_render(g, t, f);
    gen_zone_begin_alloc(g, t, g->loc_script, gen_rnd(g, 3000, 8000), NULL);
    gen_zone_end(g, t, gen_rnd(g, 30000, 150000));
    plot_points(g, t, f);
    main_messages(g, t, f);
    int64_t end = gen_later(t->now + 1000, start + length - gen_rnd(g, 100000, 300000));
    gen_zone_end(g, t, end - t->now);
    int64_t frame_end = gen_later(start + length, t->now + 1000);
    gen_frame_mark(g, frame_end, 0, "Frame");
    return frame_end;
}

/* Worker thread w: a batch of validated jobs and an asset load. */
static void worker_frame(struct gen *g, int w, long f, int64_t start)
{
    struct gen_thread *t = &g->th[w];
    t->now = gen_later(t->now + gen_rnd(g, 1000, 5000), start + 20000 * w);
    gen_zone_begin(g, t, g->loc_job_batch, 0);
    for (int j = 0; j < 4; j++) {
        zone_begin_validated(g, t, g->loc_job, gen_rnd(g, 1000, 5000));
        if (j == 0)
            gen_zone_text(g, t, "job %ld.%d", f, w);
        gen_zone_end(g, t, gen_rnd(g, 30000, 900000));
    }
    if (f % 3 == w % 3) {
        int64_t load_start = t->now;
        gen_zone_begin_alloc(g, t, g->loc_load, gen_rnd(g, 5000, 20000), f % 10 == 0 ? g->stack_b : NULL);
        gen_zone_end(g, t, gen_rnd(g, 100000, 2000000));
        if (w == 1)
            frame_span(g, load_start, t->now + 1);
    }
    if (w == 1 && f % 20 == 10) {
        char text[128];
        snprintf(text, sizeof(text), g->fl->slow_fmt, f);
        gen_msg_colored(g, t, 0xffa000, TC_SEV_WARNING, false, text);
    }
    if (w == 1 && f == 8)
        gen_msg_colored(g, t, 0x00c0ff, TC_SEV_INFO, true, g->fl->color_callstack_msg);
    gen_zone_end(g, t, gen_rnd(g, 1000, 5000));
}

/* Locks and memory: events that carry their own thread id. */
static void serial_frame(struct gen *g, long f, int64_t start)
{
    struct gen_thread *main = &g->th[0];
    struct gen_thread *a = g->n_threads > 1 ? &g->th[1] : main;
    struct gen_thread *b = g->n_threads > 2 ? &g->th[2] : main;
    g->serial_now = gen_later(g->serial_now + 1000, start + 100000);
    lock_exclusive_round(g, g->lock_queue, g->fl->lock_queue_name, a, b);
    if (f % 5 == 0)
        lock_shared_round(g, a, b);
    gen_mem_pair(g, main, 0x10000000ull + (uint64_t)(f % 16) * 0x10000, 4096 + (uint64_t)(f % 1000),
             0, f == 0);
    if (f % 10 == 0)
        gen_mem_pair(g, main, 0x20000000ull + (uint64_t)(f % 8) * 0x100000, 1 << 20, g->pool, f == 0);
}

int64_t gen_frame(struct gen *g, long f, int64_t start, int64_t length)
{
    int64_t end = main_frame(g, f, start, length);
    for (int w = 1; w < g->n_threads; w++)
        worker_frame(g, w, f, start);
    serial_frame(g, f, start);
    return end;
}

bool gen_should_flush(const struct gen *g, long f)
{
    return f < 16 || (f + 1) % g->flush_every == 0;
}

/* ------------------------------------------------------------ scenarios */

static void gen_setup(struct gen *g, struct tc_client *c, const struct flavor *fl, long dflt_zones)
{
    memset(g, 0, sizeof(*g));
    g->c = c;
    g->fl = fl;
    g->rng = 0x7261637974657374ull;
    g->n_threads = c->opt.threads > 0 ? c->opt.threads : fl->default_threads;
    if (g->n_threads > MAX_THREADS)
        g->n_threads = MAX_THREADS;
    long zones = c->opt.zones > 0 ? c->opt.zones : dflt_zones;
    /* about 13 zones per main frame and 5.3 per worker frame */
    long per_frame = 13 + (16 * (g->n_threads - 1)) / 3;
    g->frames = zones / per_frame > 0 ? zones / per_frame : 1;
    g->io_wait_frame = g->frames >= 2 ? g->frames / 2 : -1;
    g->flush_every = 128;
    register_names(g);
}

void gen_start(struct gen *g, struct tc_client *c, long dflt_zones)
{
    gen_setup(g, c, &normal_flavor, dflt_zones);
}

/* Generate g->frames frames of invented time; false if the session ended. */
static bool run_frames(struct gen *g)
{
    int64_t start = g->c->init_end + 1000000;
    gen_preamble(g, start - 500000);
    for (long f = 0; f < g->frames; f++) {
        if (!session_active(g->c))
            return false;
        start = gen_frame(g, f, start, FRAME_NS + gen_rnd(g, -500000, 500000));
        if (gen_should_flush(g, f))
            session_flush(g->c);
        else
            session_pump(g->c);
    }
    return session_active(g->c);
}

static void run_generated(struct tc_client *c, const struct flavor *fl, long dflt_zones)
{
    struct gen g;
    gen_setup(&g, c, fl, dflt_zones);
    if (run_frames(&g))
        gen_epilogue(&g);
    session_finish(c);
}

/* Frames follow the wall clock, one every 10 ms, for --seconds. */
static void run_stream(struct tc_client *c)
{
    struct gen g;
    gen_setup(&g, c, &normal_flavor, 0);
    g.io_wait_frame = -1;
    int64_t start = gen_later(session_ticks_now(c), c->init_end + 1000);
    gen_preamble(&g, start);
    start += 10000;
    int64_t stop = tc_now_ns() + (int64_t)(c->opt.seconds * 1e9);
    for (long f = 0; session_active(c) && tc_now_ns() < stop; f++) {
        int64_t end = gen_frame(&g, f, start, STREAM_FRAME_NS);
        session_flush(c);
        int64_t wait_ms = (end - session_ticks_now(c)) / 1000000;
        if (wait_ms > 0)
            session_idle(c, (int)wait_ms);
        start = gen_later(end, session_ticks_now(c));
    }
    if (session_active(c))
        gen_epilogue(&g);
    session_finish(c);
}

/* Leave the outermost zone of the main thread and one more zone open. */
static void run_open_zones(struct tc_client *c)
{
    struct gen g;
    gen_setup(&g, c, &normal_flavor, 1000);
    if (run_frames(&g)) {
        struct gen_thread *main = &g.th[0];
        main->now += 1000000;
        gen_zone_begin(&g, main, g.loc_loop, 0);
        if (g.n_threads > 1) {
            struct gen_thread *w = &g.th[1];
            w->now = gen_later(w->now, main->now) + 5000;
            gen_zone_begin(&g, w, g.loc_job_batch, 0);
        } else {
            gen_zone_begin(&g, main, g.loc_update, 5000);
        }
    }
    session_finish(c);
}

/* A batch of zones on the main thread that is not recorded in the
 * manifest (it goes into the frame that is cut short). */
static void unrecorded_filler(struct tc_client *c, int64_t t)
{
    for (int i = 0; i < 2000; i++) {
        ev_zone_begin(c, c->main_tid, t, names_srcloc_at(c, 0)->addr);
        ev_zone_end(c, c->main_tid, t + 500 + i);
        t += 2000 + i;
    }
}

/* The complete frames the stall and failure scenarios start with (~500
 * zones), then idle_ms of answering queries. */
static void send_complete_frames(struct tc_client *c, struct gen *g, int idle_ms)
{
    gen_setup(g, c, &normal_flavor, 500);
    g->io_wait_frame = -1;
    int64_t start = c->init_end + 1000000;
    gen_preamble(g, start - 500000);
    for (long f = 0; f < g->frames && session_active(c); f++) {
        start = gen_frame(g, f, start, FRAME_NS);
        session_flush(c);
    }
    session_idle(c, idle_ms);
}

/* stall: complete frames, their queries answered, then silence with the
 * connection open: no events, no keep-alives, no reading, until --seconds
 * pass or the server closes; then the client closes (stall-reset: with its
 * String queries unanswered, so that the server still waits, it resets
 * the connection, as a client that exits with queries unread does). */
static void run_stall(struct tc_client *c)
{
    struct gen g;
    send_complete_frames(c, &g, 300);
    c->man.end_reason = "stall";
    const int64_t end = tc_now_ns() + (int64_t)(c->opt.seconds * 1e9);
    while (wire_alive(c) && tc_now_ns() < end) {
        struct pollfd pfd = { .fd = c->wire.fd, .events = POLLRDHUP };
        if (poll(&pfd, 1, 50) > 0 && (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)))
            break;
    }
    session_abort(c, c->opt.scenario == TC_SCEN_STALL_RESET ? TC_ABORT_RESET : TC_ABORT_HALF_CLOSE);
}

/* trickle: complete frames with their String queries unanswered, then
 * Terminate, then a KeepAlive every 300 ms until the server closes: data
 * that keeps coming while the answer owed never does. */
static void run_trickle(struct tc_client *c)
{
    struct gen g;
    c->man.note = "String queries were deliberately left unanswered; KeepAlives follow the Terminate";
    send_complete_frames(c, &g, 0);
    wire_send_terminate(c);
    c->terminate_sent = true;
    while (wire_alive(c)) {
        session_idle(c, 300);
        ev_keep_alive(c);
        wire_commit(c);
    }
}

/* Complete frames first, then the failure. */
static void run_failure(struct tc_client *c)
{
    struct gen g;
    send_complete_frames(c, &g, 200);
    if (!session_active(c))
        return;
    switch (c->opt.scenario) {
    case TC_SCEN_DISCONNECT_MID_FRAME:
    case TC_SCEN_RESET:
        unrecorded_filler(c, g.th[0].now + 1000000);
        session_send_partial_frame(c);
        c->man.end_reason = c->opt.scenario == TC_SCEN_RESET ? "reset" : "disconnect-mid-frame";
        session_abort(c, c->opt.scenario == TC_SCEN_RESET ? TC_ABORT_RESET
                                                          : TC_ABORT_HALF_CLOSE);
        break;
    case TC_SCEN_GARBAGE:
        session_send_garbage(c, c->opt.garbage_kind);
        c->man.end_reason = c->opt.garbage_kind == TC_GARBAGE_LENGTH    ? "garbage-length"
                            : c->opt.garbage_kind == TC_GARBAGE_LZ4     ? "garbage-lz4"
                            : c->opt.garbage_kind == TC_GARBAGE_EVENT   ? "garbage-event"
                                                                        : "garbage-next-type";
        session_abort(c, TC_ABORT_WAIT_PEER);
        break;
    default:
        break;
    }
}

void scenario_configure(struct tc_client *c)
{
    if (c->opt.scenario == TC_SCEN_EVERYTHING || c->opt.scenario == TC_SCEN_ON_DEMAND)
        scenario_ext_configure(c);
    if (c->opt.scenario == TC_SCEN_MALFORMED)
        scenario_bad_configure(c);
    bench_configure(c);
}

void scenario_run(struct tc_client *c)
{
    switch (c->opt.scenario) {
    case TC_SCEN_NORMAL:
        run_generated(c, &normal_flavor, normal_flavor.default_zones);
        break;
    case TC_SCEN_EXAMPLE:
        run_generated(c, &example_flavor, example_flavor.default_zones);
        break;
    case TC_SCEN_NO_ANSWER:
        c->man.note = "String queries were deliberately left unanswered";
        run_generated(c, &normal_flavor, 1000);
        break;
    case TC_SCEN_TRICKLE:
        run_trickle(c);
        break;
    case TC_SCEN_STREAM:
        run_stream(c);
        break;
    case TC_SCEN_OPEN_ZONES:
        run_open_zones(c);
        break;
    case TC_SCEN_DISCONNECT_MID_FRAME:
    case TC_SCEN_RESET:
    case TC_SCEN_GARBAGE:
        run_failure(c);
        break;
    case TC_SCEN_MALFORMED:
        scenario_run_malformed(c);
        break;
    case TC_SCEN_EVERYTHING:
        scenario_run_everything(c);
        break;
    case TC_SCEN_CRASH:
        scenario_run_crash(c);
        break;
    case TC_SCEN_ON_DEMAND:
        scenario_run_on_demand(c);
        break;
    case TC_SCEN_ZONES:
        bench_run_zones(c);
        break;
    case TC_SCEN_MEMORY:
        bench_run_memory(c);
        break;
    case TC_SCEN_THREADS:
        bench_run_threads(c);
        break;
    case TC_SCEN_STALL:
    case TC_SCEN_STALL_RESET:
        run_stall(c);
        break;
    case TC_SCEN_NOT_AVAILABLE:
    case TC_SCEN_DROP:
        break; /* handled during the handshake */
    }
}

static const struct {
    const char *name;
    enum tc_scenario id;
} scenario_table[] = {
    { "normal", TC_SCEN_NORMAL },
    { "example", TC_SCEN_EXAMPLE },
    { "stream", TC_SCEN_STREAM },
    { "disconnect-mid-frame", TC_SCEN_DISCONNECT_MID_FRAME },
    { "reset", TC_SCEN_RESET },
    { "garbage", TC_SCEN_GARBAGE },
    { "stall", TC_SCEN_STALL },
    { "stall-reset", TC_SCEN_STALL_RESET },
    { "trickle", TC_SCEN_TRICKLE },
    { "not-available", TC_SCEN_NOT_AVAILABLE },
    { "drop", TC_SCEN_DROP },
    { "open-zones", TC_SCEN_OPEN_ZONES },
    { "no-answer", TC_SCEN_NO_ANSWER },
    { "everything", TC_SCEN_EVERYTHING },
    { "crash", TC_SCEN_CRASH },
    { "on-demand", TC_SCEN_ON_DEMAND },
    { "zones", TC_SCEN_ZONES },
    { "memory", TC_SCEN_MEMORY },
    { "threads", TC_SCEN_THREADS },
    { "malformed", TC_SCEN_MALFORMED },
};

bool scenario_parse(const char *name, enum tc_scenario *out)
{
    for (size_t i = 0; i < sizeof(scenario_table) / sizeof(scenario_table[0]); i++) {
        if (strcmp(scenario_table[i].name, name) == 0) {
            *out = scenario_table[i].id;
            return true;
        }
    }
    return false;
}

const char *scenario_names(void)
{
    return "normal, example, stream, stall, stall-reset, trickle, disconnect-mid-frame, reset, garbage, not-available, "
           "drop, open-zones, no-answer, everything, crash, on-demand, zones, memory, threads, "
           "malformed";
}
