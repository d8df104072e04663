/* fam_sched.c - the system-tracing families of the extended scenarios of
 * tracy-test-client, as a Linux client with context-switch tracing and
 * sampling sends them: per frame a schedule of run slices on five CPUs
 * (the application's threads, an IO thread that only appears in samples
 * and scheduling, and three other processes' threads), turned into
 * ContextSwitch and ThreadWakeup events (including a wakeup of a thread
 * that is still running), callstack samples every millisecond of each
 * running application thread (some with a kernel top frame) and a
 * context-switch sample at each switch-out; all sorted by time on the ctx
 * reference, so every compact form occurs (16-bit within a sampling tick,
 * 32-bit between ticks, 64-bit across the 5.2 s IO wait and for one sample
 * deliberately sent out of order). Also CPU topology (2 packages x 2 cores
 * x 2 threads), hardware samples of all six kinds and system time and
 * power reports. The manifest gets what the server should store. */
#include <stdlib.h>

#include "events.h"
#include "family.h"
#include "manifest.h"
#include "names.h"

#define US 1000LL
#define MS 1000000LL
#define REASON_LINUX 100
#define STATE_RUNNABLE 103    /* preempted */
#define STATE_SLEEPING 104    /* interruptible sleep */
#define STATE_IO 101          /* uninterruptible (disk) sleep */
#define PRIORITY 120
#define MAX_SLICES 24

/* One thread running on one CPU from `from` to `to`; woken at `wake`
 * first if non-zero; `state` is its state when switched out. The
 * context-switch sample of its switch-out normally follows the switch;
 * sample_first sends it before (same time). */
struct slice {
    uint32_t tid;
    uint8_t cpu, state;
    uint8_t wake_cpu;           /* the CPU the wakeup is seen on */
    int64_t from, to, wake;
    bool sample_first;
};

struct plan {
    struct slice s[MAX_SLICES];
    int n;
};

void fam_sched_init(struct ext *e)
{
    struct tc_client *c = e->c;
    e->io_tid = c->main_tid + 20;
    e->xorg_tid = 4242;
    e->kworker_tid = 4343;
    e->pipewire_tid = 5151;
    names_thread(c, e->io_tid, "IO thread");
    names_thread_hint(c, e->io_tid, 4);
    names_external_thread(c, e->xorg_tid, "Xorg", "Xorg", 4240);
    names_external_thread(c, e->kworker_tid, "kworker/2:1", "kworker/2:1", 4343);
    names_external_thread(c, e->pipewire_tid, "data-loop.0", "pipewire", 5150);
    e->power_name[0] = names_string(c, "package-0");
    e->power_name[1] = names_string(c, "dram");
}

/* 2 packages x 2 cores x 2 hardware threads; Linux-style numbering. Each
 * core is on a die of its own: package 0's cores have ids 0 and 1, package
 * 1's both id 0 (unique only per die), which a file format without dies
 * can only merge into one core. */
void fam_topology(struct ext *e)
{
    for (uint32_t pkg = 0; pkg < 2; pkg++)
        for (uint32_t core = 0; core < 2; core++)
            for (uint32_t ht = 0; ht < 2; ht++) {
                ev_cpu_topology(e->c, pkg, core, pkg == 0 ? core : 0, ht * 4 + pkg * 2 + core);
                e->c->man.facts.cpu_topology++;
            }
}

/* ----------------------------------------------------------- the plan */

static void slice(struct plan *p, uint32_t tid, uint8_t cpu, int64_t from, int64_t to,
                  int64_t wake, uint8_t state)
{
    if (p->n < MAX_SLICES)
        p->s[p->n++] = (struct slice){ tid, cpu, state, cpu, from, to, wake, false };
}

/* Main thread on CPU 0: preempted by Xorg mid-frame, or blocked in the
 * IO wait of the frame that has one. */
static void plan_main(struct ext *e, struct plan *p, int64_t s, int64_t end, int64_t l0)
{
    struct gen *g = e->g;
    uint32_t m = g->th[0].tid;
    if (g->io_begin > s && g->io_end < end) {
        slice(p, m, 0, s + 20 * US, g->io_begin + 5 * US, 0, STATE_IO);
        slice(p, m, 0, g->io_end - 5 * US, end - 30 * US, g->io_end - 20 * US, STATE_SLEEPING);
        return;
    }
    int64_t mid = s + l0 * 55 / 100;
    slice(p, m, 0, s + 20 * US, mid, 0, STATE_SLEEPING);
    slice(p, e->xorg_tid, 0, mid, mid + 400 * US, mid - 10 * US, STATE_SLEEPING);
    slice(p, m, 0, mid + 400 * US, end - 30 * US, mid + 250 * US, STATE_SLEEPING);
}

/* The IO thread was running on CPU 4 when the session began; its first
 * switch-out sample goes before the switch, 105 us after the first ctx
 * event (the 32-bit form). */
static void plan_first(struct ext *e, struct plan *p, long f, int64_t s)
{
    if (f != 0)
        return;
    slice(p, e->io_tid, 4, s - 100 * US, s + 5 * US, 0, STATE_SLEEPING);
    p->s[p->n - 1].sample_first = true;
}

/* Workers on CPUs 1 and 2 (3 every tenth frame: a migration), blocked
 * once each while the IO thread or a kernel worker runs; the render
 * thread on CPU 5, sleeping until vsync, then preempted by pipewire. */
static void plan_others(struct ext *e, struct plan *p, long f, int64_t s, int64_t l0)
{
    struct gen *g = e->g;
    if (g->n_threads > 1) {
        uint32_t w = g->th[1].tid;
        int64_t t = s + l0 * 40 / 100;
        slice(p, w, 1, s + 40 * US, t, 0, STATE_SLEEPING);
        slice(p, e->io_tid, 1, t, t + 300 * US, t - 50 * US, STATE_SLEEPING);
        slice(p, w, 1, t + 300 * US, s + l0 * 80 / 100, t + 200 * US, STATE_SLEEPING);
    }
    if (g->n_threads > 2) {
        uint32_t w = g->th[2].tid;
        uint8_t cpu = f % 10 == 9 ? 3 : 2;
        int64_t t = s + l0 * 30 / 100;
        slice(p, w, cpu, s + 60 * US, t, 0, STATE_SLEEPING);
        slice(p, e->kworker_tid, cpu, t, t + 150 * US, t - 10 * US, STATE_SLEEPING);
        slice(p, w, cpu, t + 150 * US, s + l0 * 75 / 100, t + 100 * US, STATE_SLEEPING);
        p->s[p->n - 1].wake_cpu = 2;    /* migrating: woken where it ran before */
    }
    uint32_t r = e->render.tid;
    int64_t vsync = s + l0 * 90 / 100, pre = s + l0 * 97 / 100;
    slice(p, r, 5, s + 100 * US, s + l0 * 50 / 100, 0, STATE_SLEEPING);
    slice(p, r, 5, vsync, pre, vsync - 30 * US, STATE_RUNNABLE);
    slice(p, e->pipewire_tid, 5, pre, s + l0 * 99 / 100, pre - 5 * US, STATE_SLEEPING);
}

/* --------------------------------------------------------- ctx events */

static void add_event(struct ext *e, struct ctx_event ev)
{
    if (e->n_ev < FAM_CTX_EVENTS) {
        ev.seq = e->n_ev;
        e->ev[e->n_ev++] = ev;
    }
}

static bool own_thread(const struct ext *e, uint32_t tid)
{
    const struct tc_thread_entry *t = names_find_thread_entry(e->c, tid);
    return t && !t->external;
}

static int role_of(const struct ext *e, uint32_t tid)
{
    if (tid == e->g->th[0].tid)
        return FAM_ROLE_MAIN;
    if (tid == e->render.tid)
        return FAM_ROLE_RENDER;
    return tid == e->io_tid ? FAM_ROLE_IO : FAM_ROLE_WORKER;
}

static void switch_event(struct ext *e, int64_t t, uint32_t old, uint32_t new_, uint8_t cpu,
                         uint8_t state, bool sample_first)
{
    struct ctx_event sw = { .t = t, .kind = CTX_SWITCH, .cpu = cpu, .state = state, .a = old,
                            .b = new_ };
    struct ctx_event sample = { .t = t, .kind = CTX_SWITCH_SAMPLE, .a = old,
                                .stack = fam_switch_stack(role_of(e, old)) };
    bool with_sample = old != 0 && own_thread(e, old);
    if (with_sample && sample_first)
        add_event(e, sample);
    add_event(e, sw);
    if (with_sample && !sample_first)
        add_event(e, sample);
}

/* Switches of one slice: in (from the previous slice's thread if it ends
 * right then, else from idle), out to idle unless the next slice follows. */
static void slice_events(struct ext *e, const struct plan *p, int i)
{
    const struct slice *s = &p->s[i];
    const struct slice *prev = NULL, *next = NULL;
    for (int k = 0; k < p->n; k++) {
        if (p->s[k].cpu == s->cpu && p->s[k].to == s->from)
            prev = &p->s[k];
        if (p->s[k].cpu == s->cpu && p->s[k].from == s->to)
            next = &p->s[k];
    }
    if (s->wake)
        add_event(e, (struct ctx_event){ .t = s->wake, .kind = CTX_WAKEUP, .cpu = s->wake_cpu,
                                         .a = s->tid });
    switch_event(e, s->from, prev ? prev->tid : 0, s->tid, s->cpu, prev ? prev->state : 0,
                 prev && prev->sample_first);
    if (!next)
        switch_event(e, s->to, s->tid, 0, s->cpu, s->state, s->sample_first);
}

/* A sample of every application thread running at each 1 ms tick. */
static void sample_events(struct ext *e, const struct plan *p, int64_t s, int64_t end)
{
    const struct gen *g = e->g;
    int k = 0;
    for (int64_t tick = s + 500 * US; tick < end; tick += MS, k++) {
        if (tick > g->io_begin && tick < g->io_end)
            continue;
        for (int i = 0; i < p->n; i++) {
            const struct slice *sl = &p->s[i];
            int64_t t = tick + sl->cpu * 3 * US;
            if (!own_thread(e, sl->tid) || t < sl->from + 10 * US || t > sl->to - 10 * US)
                continue;
            int v = (k + sl->cpu) % 3;
            bool kernel = (k + sl->cpu) % 5 == 4;
            add_event(e, (struct ctx_event){ .t = t, .kind = CTX_SAMPLE, .a = sl->tid,
                                             .stack = fam_sample_stack(role_of(e, sl->tid), v,
                                                                       kernel) });
        }
    }
}

static int event_order(const void *x, const void *y)
{
    const struct ctx_event *a = x, *b = y;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->seq - b->seq;
}

/* Send one sample of the given kind after a later event of another
 * thread (a negative ctx delta: the 64-bit form with a negative value). */
static bool reorder_one(struct ext *e, uint8_t kind)
{
    for (int i = 0; i + 1 < e->n_ev; i++) {
        struct ctx_event *a = &e->ev[i], *b = &e->ev[i + 1];
        if (a->kind == kind && b->kind != CTX_SWITCH_SAMPLE && b->a != a->a &&
            b->b != a->a && b->t > a->t) {
            struct ctx_event tmp = *a;
            *a = *b;
            *b = tmp;
            return true;
        }
    }
    return false;
}

/* Once per session: a sample and a context-switch sample out of order. */
static void reorder_once(struct ext *e)
{
    if (!e->reordered)
        e->reordered = reorder_one(e, CTX_SAMPLE) && reorder_one(e, CTX_SWITCH_SAMPLE);
}

/* ---------------------------------------------- what the server keeps */

static struct sched_thread *sched_thread(struct ext *e, uint32_t tid)
{
    for (int i = 0; i < e->n_sched; i++)
        if (e->sched[i].tid == tid)
            return &e->sched[i];
    if (e->n_sched == FAM_SCHED_THREADS)
        abort();
    e->sched[e->n_sched] = (struct sched_thread){ .tid = tid };
    return &e->sched[e->n_sched++];
}

static void count_record(struct ext *e, uint32_t tid)
{
    const char *name = names_find_thread(e->c, tid);
    manifest_counter(e->c, TC_CNT_CTX_SWITCH, tid, name ? name : "???")->count++;
}

/* Mirror of the server's per-thread records (§9.9): a switch-in reuses a
 * pending wakeup record, a wakeup of a running thread adds none. */
static void note_switch(struct ext *e, uint32_t old, uint32_t new_)
{
    if (old != 0) {
        struct sched_thread *o = sched_thread(e, old);
        if (o->records > 0)
            o->back_open = false;
    }
    if (new_ != 0) {
        struct sched_thread *n = sched_thread(e, new_);
        if (!(n->records > 0 && n->back_wakeup)) {
            n->records++;
            count_record(e, new_);
        }
        n->back_wakeup = false;
        n->back_open = true;
        e->c->man.facts.cpu_slices++;
    }
}

static void note_wakeup(struct ext *e, uint32_t tid)
{
    struct sched_thread *t = sched_thread(e, tid);
    e->c->man.facts.wakeups++;
    if (t->records > 0 && t->back_open)
        return;
    t->records++;
    count_record(e, tid);
    t->back_wakeup = t->back_open = true;
}

static void note_sample(struct ext *e, uint32_t tid, bool context_switch)
{
    struct tc_facts *x = &e->c->man.facts;
    const char *name = names_find_thread(e->c, tid);
    x->samples++;
    x->ctx_switch_samples += context_switch;
    manifest_counter(e->c, TC_CNT_SAMPLES, tid, name ? name : "???")->count++;
    names_thread_used(e->c, tid);
}

static void send_event(struct ext *e, const struct ctx_event *v)
{
    struct tc_client *c = e->c;
    const struct sample_stack *st = &e->stacks[v->stack];
    switch (v->kind) {
    case CTX_SWITCH: {
        struct tc_ctx_switch s = { v->t, v->a, v->b, v->cpu, REASON_LINUX, v->state,
                                   PRIORITY, PRIORITY };
        ev_context_switch(c, &s);
        note_switch(e, v->a, v->b);
        break;
    }
    case CTX_WAKEUP:
        ev_thread_wakeup(c, v->t, v->a, v->cpu);
        note_wakeup(e, v->a);
        break;
    default:
        ev_callstack_sample(c, v->a, v->t, st->frames, st->n, v->kind == CTX_SWITCH_SAMPLE);
        note_sample(e, v->a, v->kind == CTX_SWITCH_SAMPLE);
        if (!proto_feature(&c->proto, TC_FEAT_SAMPLES_SET_LAST_TIME))
            return; /* a protocol-64 server's last time ignores samples */
        break;
    }
    manifest_time(c, v->t);
}

void fam_sched_frame(struct ext *e, long f, int64_t start, int64_t end)
{
    struct plan p = { .n = 0 };
    int64_t l0 = end - start < FRAME_NS ? end - start : FRAME_NS;
    plan_first(e, &p, f, start);
    plan_main(e, &p, start, end, l0);
    plan_others(e, &p, f, start, l0);
    e->n_ev = 0;
    for (int i = 0; i < p.n; i++)
        slice_events(e, &p, i);
    sample_events(e, &p, start, end);
    /* the running main thread is woken once more (a pending wakeup) */
    add_event(e, (struct ctx_event){ .t = end - 100 * US, .kind = CTX_WAKEUP, .a = e->g->th[0].tid });
    qsort(e->ev, (size_t)e->n_ev, sizeof(e->ev[0]), event_order);
    if (f >= 3)
        reorder_once(e);
    for (int i = 0; i < e->n_ev; i++)
        send_event(e, &e->ev[i]);
}

/* ------------------------------------------- hardware and system reports */

void fam_hw_frame(struct ext *e, long f, int64_t start)
{
    static const uint32_t offset[TC_HW_KINDS] = { 0x1c, 0x60, 0x33, 0x45, 0x9c, 0x31 };
    const uint64_t fn[TC_HW_KINDS] = { e->fn_ai, e->fn_ai, e->fn_physics, e->fn_frame,
                                       e->fn_frame, e->fn_draw };
    for (int k = 0; k < TC_HW_KINDS; k++) {
        int64_t t = f % 7 == 0 && k < 2 ? 0 : start + 200 * US + k * 1000;
        ev_hw_sample(e->c, (enum tc_hw_kind)k, fn[k] + offset[k], t);
        e->c->man.facts.hw_samples++;
        if (t && proto_feature(&e->c->proto, TC_FEAT_SAMPLES_SET_LAST_TIME))
            manifest_time(e->c, t);
    }
}

/* System CPU usage, and RAPL energy of two domains (the first report of a
 * domain only starts its power plot). */
void fam_sys_frame(struct ext *e, long f, int64_t end)
{
    struct tc_client *c = e->c;
    ev_sys_time(c, end, 20.0f + (float)(f % 30) * 1.5f);
    c->man.facts.sys_time++;
    manifest_counter(c, TC_CNT_PLOT, 0, "(system time)")->count++;
    manifest_time(c, end);
    static const char *const domain[2] = { "package-0", "dram" };
    for (int i = 0; i < 2; i++) {
        uint64_t delta = i == 0 ? 250000 + (uint64_t)(f % 40) * 1300 : 40000 + (uint64_t)(f % 9) * 100;
        int64_t t = end + 1000 * (i + 1);
        ev_sys_power(c, t, delta, e->power_name[i]);
        c->man.facts.power_reports++;
        struct tc_named_counter *plot = manifest_counter(c, TC_CNT_PLOT, e->power_name[i],
                                                         domain[i]);
        if (e->power_seen[i]) {
            plot->count++;
            manifest_time(c, t);
        }
        e->power_seen[i] = true;
    }
}
