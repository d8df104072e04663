/* fam_misc.c - the remaining event families of the extended scenarios of
 * tracy-test-client: fibers (two fibers moving between two workers, with
 * zones left open across a switch and a message inside a fiber), sections
 * (two categories, one Leave arriving before its Enter, one left open;
 * protocol 82 only), frame images attached to default frame marks, memory
 * discards of a named pool (frees of its blocks before protocol 72) and a default-pool block freed frames later with a call
 * stack, lock marks and a short-lived lock, Lua-style allocated call
 * stacks (with and without a native part) consumed by a zone and a
 * message, a literal colored message with a call stack, parameters,
 * vsync frames and KeepAlive frames. */
#include <stdio.h>

#include "events.h"
#include "family.h"
#include "manifest.h"
#include "names.h"
#include "session.h"
#include "wire.h"

#define US 1000LL
#define SRC "/home/dev/game/src/"
#define FIBER_GROUP 7
#define WORKER_GROUP 2
#define RENDER_GROUP 3

void fam_misc_init(struct ext *e)
{
    struct tc_client *c = e->c;
    struct gen *g = e->g;
    e->fiber_ptr[0] = names_string(c, "job fiber: streaming");
    e->fiber_ptr[1] = names_string(c, "job fiber: ai batch");
    e->loc_fiber_job = names_srcloc(c, "fiber job", "Jobs::FiberJob", SRC "jobs.cpp", 60, 0);
    e->loc_fiber_step = names_srcloc(c, NULL, "Jobs::FiberStep", SRC "jobs.cpp", 75, 0);
    e->next_section = 1;
    e->texture_pool = names_string(c, "texture pool");
    e->late_free_frame = -1;
    e->loc_lock_mark = names_srcloc(c, NULL, "JobQueue::Push", SRC "jobs.cpp", 90, 0);
    e->loc_temp_lock = names_srcloc(c, NULL, "std::mutex g_io_mutex", SRC "io.cpp", 12, 0);
    e->temp_lock = 3;
    e->loc_lua_zone = names_alloc_srcloc(c, "lua: ai update", "update", "@scripts/ai.lua", 12, 0);
    e->lit_lock_warning = names_string(c, "literal colored message with callstack: lock held");
    e->param_name[0] = names_string(c, "max fps");
    e->param_name[1] = names_string(c, "vsync");
    e->param_name[2] = names_string(c, "reload shaders");
    for (int w = 1; w < g->n_threads; w++)
        names_thread_hint(c, g->th[w].tid, WORKER_GROUP);
    names_thread_hint(c, e->render.tid, RENDER_GROUP);
}

/* ---------------------------------------------------------- parameters */

/* An integer, a boolean and (protocol 82 only) a trigger. */
void fam_params(struct ext *e)
{
    ev_param_setup(e->c, 0, e->param_name[0], TC_PARAM_INTEGER, 60);
    ev_param_setup(e->c, 1, e->param_name[1], TC_PARAM_BOOLEAN, 1);
    e->c->man.facts.params += 2;
    if (!proto_feature(&e->c->proto, TC_FEAT_PARAM_TRIGGER))
        return;
    ev_param_setup(e->c, 2, e->param_name[2], TC_PARAM_TRIGGER, 0);
    e->c->man.facts.params++;
}

/* ------------------------------------------------------------- fibers */

static void fiber_enter(struct ext *e, int i, struct gen_thread *host, int64_t gap)
{
    struct tc_client *c = e->c;
    struct gen_thread *fb = &e->fiber[i];
    fb->tid = host->tid;
    fb->now = gen_later(fb->now, host->now) + gap;
    ev_fiber_enter(c, host->tid, fb->now, e->fiber_ptr[i], FIBER_GROUP);
    const char *name = names_find_string(c, e->fiber_ptr[i]);
    if (!e->fiber_seen[i]) { /* the server numbers fibers in order of appearance */
        e->fiber_seen[i] = true;
        e->fiber_vtid[i] = (1ull << 32) | (uint64_t)e->n_fibers_seen++;
        names_thread(c, e->fiber_vtid[i], name);
        names_thread_used(c, e->fiber_vtid[i]);
        c->man.facts.fibers++;
    }
    manifest_counter(c, TC_CNT_CTX_SWITCH, e->fiber_vtid[i], name)->count++;
    names_thread_used(c, host->tid);
    manifest_time(c, fb->now);
}

static void fiber_leave(struct ext *e, int i, struct gen_thread *host, int64_t gap)
{
    struct gen_thread *fb = &e->fiber[i];
    fb->now += gap;
    ev_fiber_leave(e->c, host->tid, fb->now);
    host->now = fb->now;
    manifest_time(e->c, fb->now);
}

static void fiber_zone_end(struct ext *e, struct gen_thread *fb, int64_t gap)
{
    gen_zone_end(e->g, fb, gap);
    e->c->man.facts.fiber_zones++;
}

/* Fiber 0 starts a job on worker 1 and finishes it on worker 2; fiber 1
 * runs a job on worker 2, then one step on worker 1. */
void fam_fiber_frame(struct ext *e, long f)
{
    struct gen *g = e->g;
    if (g->n_threads < 3)
        return;
    struct gen_thread *w1 = &g->th[1], *w2 = &g->th[2], *a = &e->fiber[0], *b = &e->fiber[1];
    char text[64];
    fiber_enter(e, 0, w1, 10 * US);
    gen_zone_begin(g, a, e->loc_fiber_job, 5 * US);
    if (f % 4 == 0) {
        snprintf(text, sizeof(text), "fiber message: chunk %ld queued", f);
        gen_msg_copied(g, a, TC_SEV_INFO, false, text);
    }
    fiber_leave(e, 0, w1, 50 * US);
    fiber_enter(e, 0, w2, 20 * US);
    gen_zone_begin(g, a, e->loc_fiber_step, 5 * US);
    fiber_zone_end(e, a, 30 * US);
    fiber_zone_end(e, a, 10 * US);
    fiber_leave(e, 0, w2, 5 * US);
    fiber_enter(e, 1, w2, 10 * US);
    gen_zone_begin(g, b, e->loc_fiber_job, 5 * US);
    gen_zone_begin(g, b, e->loc_fiber_step, 5 * US);
    fiber_zone_end(e, b, 40 * US);
    fiber_zone_end(e, b, 5 * US);
    fiber_leave(e, 1, w2, 5 * US);
    fiber_enter(e, 1, w1, 10 * US);
    gen_zone_begin(g, b, e->loc_fiber_step, 5 * US);
    fiber_zone_end(e, b, 25 * US);
    fiber_leave(e, 1, w1, 5 * US);
}

/* ------------------------------------------------------------ sections */

/* Sections exist from protocol 82 on; before, their time passes on the
 * threads as in protocol 82 (the rest of the session keeps its times) and
 * nothing is sent. */
static bool has_sections(const struct ext *e)
{
    return proto_has(&e->c->proto, TC_EV_SECTION_ENTER);
}

void fam_section_setup(struct ext *e, bool with_strings)
{
    static const char *const description[2] = { "Level streaming", "Gameplay phases" };
    if (!has_sections(e))
        return;
    for (uint16_t cat = 1; cat <= 2; cat++) {
        ev_section_setup(e->c, cat, with_strings ? description[cat - 1] : NULL);
        manifest_counter(e->c, TC_CNT_SECTION, cat,
                         with_strings ? description[cat - 1] : "(none)");
    }
}

static void section_count(struct ext *e, uint16_t category)
{
    manifest_counter(e->c, TC_CNT_SECTION, category, "(none)")->count++;
    e->c->man.facts.sections++;
}

static void section(struct ext *e, struct gen_thread *t, uint16_t category, const char *text,
                    int64_t length)
{
    uint32_t id = e->next_section++;
    t->now += 10 * US;
    const int64_t enter = t->now;
    t->now += length;
    if (!has_sections(e))
        return;
    ev_section_enter(e->c, t->tid, enter, id, category, text);
    ev_section_leave(e->c, t->tid, t->now, id);
    section_count(e, category);
    manifest_time(e->c, t->now);
}

/* The Leave (sent from another thread) arrives before the Enter. */
static void section_leave_first(struct ext *e, struct gen_thread *enter, struct gen_thread *leave)
{
    uint32_t id = e->next_section++;
    int64_t t_enter = enter->now + 10 * US;
    int64_t t_leave = gen_later(leave->now, t_enter) + 200 * US;
    enter->now = t_enter;
    leave->now = t_leave;
    if (!has_sections(e))
        return;
    ev_section_leave(e->c, leave->tid, t_leave, id);
    ev_section_enter(e->c, enter->tid, t_enter, id, 2, "boss fight (leave arrived first)");
    section_count(e, 2);
    manifest_time(e->c, t_leave);
}

void fam_section_frame(struct ext *e, long f, bool last)
{
    struct gen *g = e->g;
    struct gen_thread *r = &e->render;
    char text[64];
    if (f % 5 == 0) {
        snprintf(text, sizeof(text), "streaming chunk %ld", f / 5);
        section(e, r, 1, text, 300 * US);
    }
    if (f % 7 == 3) {
        snprintf(text, sizeof(text), "phase %ld", f / 7);
        section(e, r, 2, text, 150 * US);
    }
    if (f == 6)
        section_leave_first(e, r, g->n_threads > 2 ? &g->th[2] : &g->th[0]);
    if (last && !e->section_open_sent) {
        r->now += 10 * US;
        if (!has_sections(e))
            return;
        ev_section_enter(e->c, r->tid, r->now, e->next_section++, 1, "final chunk (never left)");
        section_count(e, 1);
        e->c->man.facts.sections_open++;
        e->section_open_sent = true;
        manifest_time(e->c, r->now);
    }
}

/* -------------------------------------------------------- frame images */

/* 64 x 32 DXT1 blocks: two RGB565 end points, then 2-bit indices. */
static void fill_image(struct ext *e, long f)
{
    for (int b = 0; b < 128; b++) {
        uint8_t *p = e->image + 8 * b;
        uint16_t c0 = (uint16_t)(((b % 16) * 2) << 11 | ((f * 3) % 64) << 5 | (b / 16) * 4);
        uint16_t c1 = (uint16_t)(c0 ^ 0x7bef);
        p[0] = (uint8_t)c0;
        p[1] = (uint8_t)(c0 >> 8);
        p[2] = (uint8_t)c1;
        p[3] = (uint8_t)(c1 >> 8);
        for (int k = 4; k < 8; k++)
            p[k] = (uint8_t)(0x1b * (b + k) + f);
    }
}

/* After the default frame mark: frame = the client's default-frame count
 * (on demand including the frames before the connection) - offset. */
void fam_image_frame(struct ext *e, long f)
{
    if (f % 8 != 2)
        return;
    struct tc_client *c = e->c;
    uint32_t offset = f % 16 == 10 ? 1 : 0;
    uint64_t frame = c->welcome.ondemand_frames + c->man.default_frames - offset;
    fill_image(e, f);
    ev_frame_image(c, e->image, sizeof(e->image), (uint32_t)frame, 64, 32, offset != 0);
    c->man.facts.frame_images++;
}

/* -------------------------------------------------------------- memory */

static struct tc_named_counter *pool_counter(struct ext *e, uint64_t pool)
{
    return manifest_counter(e->c, TC_CNT_MEMPOOL, pool, pool ? "texture pool" : "(default)");
}

static void texture_allocs(struct ext *e, long f)
{
    struct gen *g = e->g;
    uint32_t tid = g->th[0].tid;
    for (int i = 0; i < FAM_TEXTURES; i++) {
        uint64_t ptr = 0x30000000ull + (uint64_t)(f % 100) * 0x100000 + (uint64_t)i * 0x10000;
        ev_mem_alloc(e->c, tid, gen_serial_at(g, 2000), ptr, 256 * 1024, e->texture_pool,
                     i == 1 ? e->stack_discard : NULL, i == 1 ? 3 : 0);
        e->texture_ptr[i] = ptr;
    }
    pool_counter(e, e->texture_pool)->count += FAM_TEXTURES;
    e->texture_live += FAM_TEXTURES;
    names_thread_used(e->c, tid);
}

/* The pool is discarded at once (MemDiscard, from protocol 72 on), or its
 * blocks freed one by one where the protocol has no discard. */
static void texture_discard(struct ext *e, long f)
{
    struct gen *g = e->g;
    bool callstack = (f / 10) % 2 == 1;
    const uint64_t *stack = callstack ? e->stack_discard : NULL;
    if (proto_has(&e->c->proto, TC_EV_MEM_DISCARD)) {
        ev_mem_discard(e->c, g->th[0].tid, gen_serial_at(g, 3000), e->texture_pool, stack,
                       stack ? 3 : 0);
        e->c->man.facts.mem_discards++;
    } else {
        for (int i = 0; i < e->texture_live; i++)
            ev_mem_free(e->c, g->th[0].tid, gen_serial_at(g, 1000), e->texture_ptr[i],
                        e->texture_pool, stack, stack ? 3 : 0);
    }
    pool_counter(e, e->texture_pool)->count2 += (uint64_t)e->texture_live;
    e->texture_live = 0;
}

/* A default-pool block allocated by one worker and freed (with a call
 * stack) by another three frames later. */
static void late_free(struct ext *e, long f)
{
    struct gen *g = e->g;
    struct gen_thread *a = g->n_threads > 1 ? &g->th[1] : &g->th[0];
    struct gen_thread *b = g->n_threads > 2 ? &g->th[2] : a;
    if (f == e->late_free_frame) {
        ev_mem_free(e->c, b->tid, gen_serial_at(g, 1500), e->late_free_ptr, 0, e->stack_free, 3);
        pool_counter(e, 0)->count2++;
        names_thread_used(e->c, b->tid);
        e->late_free_frame = -1;
    }
    if (f % 6 == 1 && e->late_free_frame < 0) {
        e->late_free_ptr = 0x50000000ull + (uint64_t)f * 0x1000;
        ev_mem_alloc(e->c, a->tid, gen_serial_at(g, 1500), e->late_free_ptr, 8192, 0, NULL, 0);
        pool_counter(e, 0)->count++;
        names_thread_used(e->c, a->tid);
        e->late_free_frame = f + 3;
    }
}

void fam_memory_frame(struct ext *e, long f)
{
    if (f % 10 == 3)
        texture_allocs(e, f);
    if (f % 10 == 7 && e->texture_live > 0)
        texture_discard(e, f);
    late_free(e, f);
}

/* --------------------------------------------------------------- locks */

static void lock_round_marked(struct ext *e, uint32_t lock, const char *name,
                              struct gen_thread *t, int loc)
{
    struct gen *g = e->g;
    ev_lock_wait(e->c, t->tid, lock, gen_serial_at(g, 1000), false);
    ev_lock_obtain(e->c, t->tid, lock, gen_serial_at(g, 800), false);
    ev_lock_mark(e->c, t->tid, lock, gen_srcloc_addr(g, loc));
    ev_lock_release(e->c, t->tid, lock, gen_serial_at(g, 6000), false);
    gen_lock_count(g, lock, name, 3);
    names_thread_used(e->c, t->tid);
    e->c->man.facts.lock_marks++;
}

/* LockMark on the job-queue lock every fourth frame; a lock that lives
 * from frame 2 to frame 5 only. */
void fam_lock_frame(struct ext *e, long f)
{
    struct gen *g = e->g;
    struct gen_thread *w = g->n_threads > 1 ? &g->th[1] : &g->th[0];
    if (f % 4 == 1) /* the lock's manifest entry exists: the name is not used */
        lock_round_marked(e, g->lock_queue, "job queue lock", &g->th[0], e->loc_lock_mark);
    if (f == 2) {
        ev_lock_announce(e->c, e->temp_lock, gen_serial_at(g, 500),
                         gen_srcloc_addr(g, e->loc_temp_lock), TC_LOCK_EXCLUSIVE);
        ev_lock_name(e->c, e->temp_lock, "io request lock");
        gen_lock_count(g, e->temp_lock, "io request lock", 0);
    }
    if (f == 3)
        lock_round_marked(e, e->temp_lock, "io request lock", w, e->loc_temp_lock);
    if (f == 5)
        ev_lock_terminate(e->c, e->temp_lock, gen_serial_at(g, 500));
}

/* --------------------------------------------------------- call stacks */

static const struct tc_alloc_frame lua_frames[3] = {
    { 12, "update", "@scripts/ai.lua" },
    { 40, "think", "@scripts/ai.lua" },
    { 7, "main", "@scripts/main.lua" },
};

static void lua_zone(struct ext *e, struct gen_thread *t)
{
    struct gen *g = e->g;
    ev_callstack_alloc(e->c, t->tid, NULL, 0, lua_frames, 3);
    t->now += 5 * US;
    ev_zone_begin_alloc_staged(e->c, t->tid, t->now, names_srcloc_at(e->c, e->loc_lua_zone));
    gen_zone_push(g, t, e->loc_lua_zone, 0);
    gen_zone_end(g, t, gen_rnd(g, 20 * US, 80 * US));
}

static void lua_message(struct ext *e, struct gen_thread *t, long f)
{
    char text[64];
    snprintf(text, sizeof(text), "lua: no path to target %ld", f);
    ev_callstack_alloc(e->c, t->tid, e->stack_lua, 2, lua_frames, 2);
    int64_t when = gen_message_time(e->g, t);
    ev_message_staged(e->c, t->tid, when, text, TC_MSG_META(TC_SEV_WARNING));
    manifest_message(e->c, when, text);
}

static void literal_color_callstack(struct ext *e, struct gen_thread *t)
{
    int64_t when = gen_message_time(e->g, t);
    ev_message_literal_color(e->c, t->tid, when, e->lit_lock_warning, 0xff8000,
                             TC_MSG_META(TC_SEV_WARNING), e->stack_msg, 3);
    manifest_message(e->c, when, names_find_string(e->c, e->lit_lock_warning));
}

void fam_callstack_frame(struct ext *e, long f)
{
    struct gen *g = e->g;
    struct gen_thread *script = g->n_threads > 2 ? &g->th[2] : &g->th[0];
    struct gen_thread *w = g->n_threads > 1 ? &g->th[1] : &g->th[0];
    if (f % 10 == 1)
        lua_zone(e, script);
    if (f % 10 == 6)
        lua_message(e, script, f);
    if (f % 10 == 8)
        literal_color_callstack(e, w);
}

/* ---------------------------------------------------------------- misc */

void fam_vsync_frame(struct ext *e, int64_t start)
{
    int64_t t = start + 50 * US;
    ev_frame_vsync(e->c, t, 0);
    e->c->man.facts.vsync_frames++;
    manifest_time(e->c, t);
}

/* A KeepAlive in a frame of its own, as an idle client sends. */
void fam_keepalive(struct ext *e)
{
    session_flush(e->c);
    ev_keep_alive(e->c);
    wire_commit(e->c);
}
