/* scenario_ext.c - the scenarios of tracy-test-client beyond the CPU-zone
 * workload:
 *   everything  the normal workload plus every other event family of
 *               protocol 82 in each frame (family.h), with CodeTransfer,
 *               an executable time and a sampling period in the welcome;
 *   crash       a normal start, then a crash as the client's handler
 *               sends it (§8.4): call stack, CrashReport, Crash, a zone
 *               left open, the shutdown flush and Terminate;
 *   on-demand   an OnDemand welcome with its payload, the deferred items
 *               replayed first (§2.6, SectionSetup without its string),
 *               then a stream with GPU zones, sections and frame images
 *               numbered from the frames sent before the connection. */
#include "scenario_ext.h"

#include <string.h>
#include <time.h>

#include "events.h"
#include "family.h"
#include "manifest.h"
#include "names.h"
#include "session.h"

#define ON_DEMAND_FRAMES 240
#define ON_DEMAND_AFTER_NS 4000000000LL /* connection 4 s after start */
#define SAMPLING_PERIOD_NS 1000000

void scenario_ext_configure(struct tc_client *c)
{
    if (c->opt.scenario == TC_SCEN_EVERYTHING) {
        c->welcome.flags = TC_WELCOME_CODE_TRANSFER;
        c->welcome.exectime = (uint64_t)time(NULL) - 3600;
        c->welcome.sampling_period = SAMPLING_PERIOD_NS;
    } else if (c->opt.scenario == TC_SCEN_ON_DEMAND) {
        c->welcome.flags = TC_WELCOME_ON_DEMAND;
        c->welcome.ondemand_frames = ON_DEMAND_FRAMES;
        c->welcome.ondemand_time = c->init_end + ON_DEMAND_AFTER_NS;
    }
}

static void ext_init(struct ext *e, struct gen *g, struct tc_client *c)
{
    memset(e, 0, sizeof(*e));
    e->g = g;
    e->c = c;
    e->render.tid = c->main_tid + 10;
    names_thread(c, e->render.tid, "Render thread");
    fam_code_init(e);
    fam_gpu_init(e);
    fam_sched_init(e);
    fam_misc_init(e);
    fam_code_sources(e);
}

static bool flush_or_pump(struct gen *g, long f)
{
    if (gen_should_flush(g, f))
        session_flush(g->c);
    else
        session_pump(g->c);
    return session_active(g->c);
}

static int64_t frame_length(struct gen *g)
{
    return FRAME_NS + gen_rnd(g, -500000, 500000);
}

/* ---------------------------------------------------------- everything */

static void everything_setup(struct ext *e, int64_t when)
{
    gen_app_info(e->g, when + 4000, "system tracing: context switches, sampling, GPU");
    manifest_time(e->c, when + 4000);
    fam_params(e);
    fam_section_setup(e, true);
    fam_topology(e);
    fam_gpu_contexts(e, when + 5000, true);
}

static int64_t everything_frame(struct ext *e, long f, int64_t start, bool last)
{
    int64_t end = gen_frame(e->g, f, start, frame_length(e->g));
    fam_image_frame(e, f);
    fam_vsync_frame(e, start);
    fam_gpu_gl_frame(e, f, start);
    fam_gpu_vk_frame(e, f);
    fam_gpu_collect(e);
    fam_sched_frame(e, f, start, end);
    fam_hw_frame(e, f, start);
    fam_sys_frame(e, f, end);
    fam_fiber_frame(e, f);
    fam_section_frame(e, f, last);
    fam_memory_frame(e, f);
    fam_lock_frame(e, f);
    fam_callstack_frame(e, f);
    if (f % 20 == 19)
        fam_keepalive(e);
    return end;
}

void scenario_run_everything(struct tc_client *c)
{
    struct gen g;
    struct ext e;
    gen_start(&g, c, 1200);
    ext_init(&e, &g, c);
    int64_t start = c->init_end + 1000000;
    gen_preamble(&g, start - 500000);
    everything_setup(&e, start - 500000);
    bool active = session_active(c);
    for (long f = 0; f < g.frames && active; f++) {
        start = everything_frame(&e, f, start, f == g.frames - 1);
        active = flush_or_pump(&g, f);
    }
    if (active)
        gen_epilogue(&g);
    session_finish(c);
}

/* --------------------------------------------------------------- crash */

/* The crash handler of §8.4 on the main thread, inside an open zone. */
static void crash(struct gen *g)
{
    struct tc_client *c = g->c;
    struct gen_thread *m = &g->th[0];
    m->now += 1000000;
    gen_zone_begin(g, m, g->loc_loop, 0);
    m->now += 30000;
    uint64_t text = names_string(c, "Invalid memory reference.\nAddress not mapped to object.\n"
                                    "Fault address: 0x10\n");
    ev_crash_report(c, m->tid, m->now, text, g->stack_a, 3);
    ev_crash(c);
    c->man.facts.crash = 1;
    c->man.facts.crash_time_ns = manifest_ns(c, m->now);
    c->man.end_reason = "crash";
    session_idle(c, 500); /* the handler waits before shutting down */
}

void scenario_run_crash(struct tc_client *c)
{
    struct gen g;
    gen_start(&g, c, 500);
    g.io_wait_frame = -1;
    int64_t start = c->init_end + 1000000;
    gen_preamble(&g, start - 500000);
    bool active = session_active(c);
    for (long f = 0; f < g.frames && active; f++) {
        start = gen_frame(&g, f, start, frame_length(&g));
        active = flush_or_pump(&g, f);
    }
    if (active)
        crash(&g);
    session_finish(c);
}

/* ----------------------------------------------------------- on demand */

/* What an on-demand client keeps from before the connection and replays
 * first, in the original order, with the original times (§2.6). */
static void on_demand_replay(struct ext *e, int64_t when)
{
    struct gen *g = e->g;
    gen_app_infos(g, when);
    manifest_time(e->c, when + 1000);
    gen_plot_configs(g);
    fam_params(e);
    fam_section_setup(e, false);
    gen_lock_announces(g, when + 2000);
    fam_gpu_contexts(e, when + 3000, false);
    fam_topology(e);
    g->serial_now = when + 4000;
}

static int64_t on_demand_frame(struct ext *e, long f, int64_t start, bool last)
{
    int64_t end = gen_frame(e->g, f, start, frame_length(e->g));
    fam_image_frame(e, f);
    fam_gpu_gl_frame(e, f, start);
    fam_gpu_collect(e);
    fam_section_frame(e, f, last);
    return end;
}

void scenario_run_on_demand(struct tc_client *c)
{
    struct gen g;
    struct ext e;
    gen_start(&g, c, 1000);
    g.io_wait_frame = -1;
    ext_init(&e, &g, c);
    on_demand_replay(&e, c->init_end + 2000);
    int64_t start = c->welcome.ondemand_time + 1000000;
    bool active = session_active(c);
    for (long f = 0; f < g.frames && active; f++) {
        start = on_demand_frame(&e, f, start, f == g.frames - 1);
        active = flush_or_pump(&g, f);
    }
    if (active)
        gen_epilogue(&g);
    session_finish(c);
}
