/* fam_gpu.c - the GPU event family of the extended scenarios of
 * tracy-test-client. Two contexts: an OpenGL one bound to the render
 * thread (period 1, no calibration; zones in the four thread-referenced
 * forms, GpuZoneEnd with thread 0 like the real OpenGL client) and an
 * unbound Vulkan one (period 1.5, calibrated; zones in the four serial
 * forms on the main thread and a worker, annotations, GpuCalibration and
 * GpuTimeSync; the annotations from protocol 76 on, the time sync from 66 on).
 * Zones nest up to three deep; every zone gets a GpuTime for
 * its begin and end query, collected at the end of the frame in query
 * order, both contexts sharing the GPU time reference (§6.2). GPU clocks
 * are chosen so the server's conversion (§9.8) is exact: a GPU time maps
 * back to the server nanosecond recorded in the manifest. */
#include "events.h"
#include "family.h"
#include "manifest.h"
#include "names.h"

#define SRC "/home/dev/game/src/render/"
#define GL_OFFSET_NS 7000000000LL /* GL GPU clock (ns) = server ns + this */
#define VK_OFFSET_NS 9000000000LL /* Vulkan GPU clock (ns) = server ns + this */
#define QUERY_RING 4096

/* A GPU zone whose begin was sent. */
struct gpu_zone {
    int loc;
    uint16_t query;
    int64_t gpu_start;        /* server ns */
    uint32_t thread;          /* thread field of the end event */
};

void fam_gpu_init(struct ext *e)
{
    struct tc_client *c = e->c;
    e->loc_render_frame = names_srcloc(c, "render thread frame", "RenderThread::Frame",
                                       SRC "render_thread.cpp", 30, 0);
    e->loc_gl_frame = names_srcloc(c, "GL frame", "GlBackend::Frame", SRC "gl_backend.cpp",
                                   120, 0xff8000);
    e->loc_gl_shadow = names_srcloc(c, "shadow pass", "GlBackend::ShadowPass",
                                    SRC "gl_backend.cpp", 160, 0);
    e->loc_gl_casters = names_alloc_srcloc(c, "draw shadow casters", "GlBackend::DrawCasters",
                                           SRC "gl_backend.cpp", 171, 0);
    e->loc_gl_post = names_alloc_srcloc(c, "post-process", "GlBackend::PostProcess",
                                        SRC "gl_backend.cpp", 210, 0x8040ff);
    e->loc_vk_submit = names_srcloc(c, "vk queue submit", "VkBackend::Submit",
                                    SRC "vk_backend.cpp", 300, 0);
    e->loc_vk_compute = names_srcloc(c, "vk compute pass", "VkBackend::Compute",
                                     SRC "vk_backend.cpp", 340, 0x40c0c0);
    e->loc_vk_dispatch = names_alloc_srcloc(c, "vk dispatch", "VkBackend::Dispatch",
                                            SRC "vk_backend.cpp", 352, 0);
    e->loc_vk_copy = names_alloc_srcloc(c, "vk copy", "VkBackend::CopyBuffers",
                                        SRC "vk_backend.cpp", 390, 0);
    e->loc_vk_upload = names_srcloc(c, "vk async upload", "VkBackend::Upload",
                                    SRC "vk_backend.cpp", 420, 0);
    e->gl = (struct gpu_ctx){ .id = 0, .type = TC_GPU_OPENGL, .thread = e->render.tid,
                              .period = 1.0f, .k_ns = GL_OFFSET_NS,
                              .name = "OpenGL: main window" };
    e->vk = (struct gpu_ctx){ .id = 1, .type = TC_GPU_VULKAN, .period = 1.5f,
                              .calibrated = true, .k_ns = VK_OFFSET_NS,
                              .name = "Vulkan: graphics queue" };
}

/* ------------------------------------------------------------ clocks */

/* The next server ns >= ns whose GPU time is a whole number of ticks. */
static int64_t gpu_align(const struct gpu_ctx *g, int64_t ns)
{
    if (g->period == 1.0f)
        return ns;
    while ((ns + g->k_ns) % 3 != 0)
        ns++;
    return ns;
}

/* GPU ticks of an aligned server ns (period 1: ns; period 1.5: 2/3 ns). */
static int64_t gpu_ticks(const struct gpu_ctx *g, int64_t ns)
{
    int64_t gpu_ns = ns + g->k_ns;
    return g->period == 1.0f ? gpu_ns : gpu_ns / 3 * 2;
}

static int64_t to_ns(const struct ext *e, int64_t tick)
{
    return manifest_ns(e->c, tick);
}

static int64_t to_tick(const struct ext *e, int64_t ns)
{
    return ns + e->c->init_begin;
}

/* ----------------------------------------------------------- contexts */

static void new_context(struct ext *e, struct gpu_ctx *g, int64_t when)
{
    int64_t ns = gpu_align(g, to_ns(e, when));
    struct tc_gpu_context ctx = { to_tick(e, ns), gpu_ticks(g, ns), g->thread, g->period,
                                  g->id, (uint8_t)(g->calibrated ? TC_GPU_FLAG_CALIBRATION : 0),
                                  g->type };
    g->anchor_ns = ns;
    ev_gpu_new_context(e->c, &ctx);
    ev_gpu_context_name(e->c, g->id, g->name);
    manifest_counter(e->c, TC_CNT_GPU_CONTEXT, g->id, g->name)->count2 = g->type;
}

void fam_gpu_contexts(struct ext *e, int64_t when, bool with_vulkan)
{
    new_context(e, &e->gl, when);
    if (!with_vulkan)
        return;
    new_context(e, &e->vk, when + 1000);
    if (!proto_has(&e->c->proto, TC_EV_GPU_ANNOTATION_NAME))
        return;
    ev_gpu_annotation_name(e->c, e->vk.id, 1, "waves");
    ev_gpu_annotation_name(e->c, e->vk.id, 2, "LDS bytes");
}

/* ------------------------------------------------------------- zones */

static uint16_t next_query(struct gpu_ctx *g, int64_t gpu_ns)
{
    uint16_t q = g->next_query;
    g->next_query = (uint16_t)((q + 1) % QUERY_RING);
    if (g->n_pending < FAM_GPU_PENDING)
        g->pending[g->n_pending++] = (struct gpu_pending){ gpu_ticks(g, gpu_ns), q };
    return q;
}

/* CPU time of a zone event: the producer's clock, or the serial clock. */
static int64_t cpu_time(struct ext *e, struct gen_thread *t, bool serial, int64_t gap)
{
    if (serial)
        return gen_serial_at(e->g, gap);
    t->now += gap;
    manifest_time(e->c, t->now);
    return t->now;
}

/* Begin a zone on g (serial forms for an unbound context). The OpenGL
 * client puts its thread in the Callstack forms only. */
static struct gpu_zone gpu_begin(struct ext *e, struct gpu_ctx *g, struct gen_thread *t, int loc,
                                 const uint64_t *stack, int64_t gap, int64_t gpu_ns)
{
    bool serial = g->thread == 0;
    struct gpu_zone z = { loc, 0, gpu_align(g, gpu_ns), serial ? t->tid : 0 };
    struct tc_gpu_begin b = { cpu_time(e, t, serial, gap), t->tid,
                              serial || stack ? t->tid : 0, 0, g->id, serial,
                              names_srcloc_at(e->c, loc), stack, stack ? 3 : 0 };
    b.query = z.query = next_query(g, z.gpu_start);
    ev_gpu_zone_begin(e->c, &b);
    return z;
}

/* End a zone; returns its GPU end (server ns). */
static int64_t gpu_end(struct ext *e, struct gpu_ctx *g, struct gen_thread *t,
                       const struct gpu_zone *z, int64_t gap, int64_t gpu_ns)
{
    bool serial = g->thread == 0;
    int64_t end = gpu_align(g, gpu_ns);
    struct tc_gpu_end ev = { cpu_time(e, t, serial, gap), t->tid, z->thread, 0, g->id, serial };
    ev.query = next_query(g, end);
    ev_gpu_zone_end(e->c, &ev);
    const struct tc_srcloc_entry *s = names_srcloc_at(e->c, z->loc);
    manifest_gpu_zone(e->c, z->gpu_start, end - z->gpu_start, s->name ? s->name : s->function);
    manifest_counter(e->c, TC_CNT_GPU_CONTEXT, g->id, g->name)->count++;
    return end;
}

/* Render thread: a CPU zone around an OpenGL frame of three levels:
 * frame > shadow pass (callstack) > shadow casters (allocated), then
 * post-process (allocated, callstack). */
void fam_gpu_gl_frame(struct ext *e, long f, int64_t start)
{
    struct gen *g = e->g;
    struct gen_thread *t = &e->render;
    (void)f;
    t->now = gen_later(t->now + 1000, start + 150000);
    gen_zone_begin(g, t, e->loc_render_frame, 0);
    int64_t gpu = to_ns(e, t->now) + gen_rnd(g, 200000, 400000);
    struct gpu_zone frame = gpu_begin(e, &e->gl, t, e->loc_gl_frame, NULL, 2000, gpu);
    struct gpu_zone shadow = gpu_begin(e, &e->gl, t, e->loc_gl_shadow, e->stack_gl, 3000,
                                       gpu + 10000);
    struct gpu_zone casters = gpu_begin(e, &e->gl, t, e->loc_gl_casters, NULL, 2000,
                                        gpu + 15000);
    gpu = gpu_end(e, &e->gl, t, &casters, 40000, gpu + 15000 + gen_rnd(g, 300000, 800000));
    gpu = gpu_end(e, &e->gl, t, &shadow, 5000, gpu + 20000);
    struct gpu_zone post = gpu_begin(e, &e->gl, t, e->loc_gl_post, e->stack_gl, 3000,
                                     gpu + 15000);
    gpu = gpu_end(e, &e->gl, t, &post, 30000, post.gpu_start + gen_rnd(g, 200000, 500000));
    gpu_end(e, &e->gl, t, &frame, 2000, gpu + 10000);
    gen_zone_end(g, t, gen_rnd(g, 5000, 20000));
}

static void vk_annotate(struct ext *e, const struct gpu_zone *z, uint32_t thread, long f)
{
    if (!proto_has(&e->c->proto, TC_EV_GPU_ZONE_ANNOTATION))
        return;
    ev_gpu_zone_annotation(e->c, 1, 64.0 + (double)(f % 7), thread, z->query, e->vk.id);
    ev_gpu_zone_annotation(e->c, 2, 16384.0, thread, z->query, e->vk.id);
}

/* Serial anchors of the calibrated context: a calibration every 8 frames
 * (cpuDelta = GPU delta, so the ratio stays exactly 1) and a time sync
 * every 16. */
static void vk_calibrate(struct ext *e, long f)
{
    struct gpu_ctx *g = &e->vk;
    int64_t ns = gpu_align(g, to_ns(e, e->g->serial_now) + 100);
    if (f % 8 == 4) {
        ev_gpu_calibration(e->c, gpu_ticks(g, ns), to_tick(e, ns), ns - g->anchor_ns, g->id);
        g->anchor_ns = ns;
    }
    if (f % 16 == 12 && proto_has(&e->c->proto, TC_EV_GPU_TIME_SYNC)) {
        int64_t sync = gpu_align(g, ns + 50);
        ev_gpu_time_sync(e->c, gpu_ticks(g, sync), to_tick(e, sync), g->id);
    }
}

/* Main thread: submit > compute pass (callstack) > dispatch (allocated),
 * then a copy (allocated, callstack); a worker: an async upload. */
void fam_gpu_vk_frame(struct ext *e, long f)
{
    struct gen *g = e->g;
    struct gen_thread *m = &g->th[0], *w = g->n_threads > 1 ? &g->th[1] : m;
    struct gpu_ctx *vk = &e->vk;
    int64_t gpu = to_ns(e, g->serial_now) + gen_rnd(g, 400000, 700000);
    struct gpu_zone submit = gpu_begin(e, vk, m, e->loc_vk_submit, NULL, 2000, gpu);
    struct gpu_zone compute = gpu_begin(e, vk, m, e->loc_vk_compute, e->stack_vk, 1500,
                                        gpu + 8000);
    struct gpu_zone dispatch = gpu_begin(e, vk, m, e->loc_vk_dispatch, NULL, 1000, gpu + 12000);
    gpu = gpu_end(e, vk, m, &dispatch, 20000, gpu + 12000 + gen_rnd(g, 100000, 400000));
    vk_annotate(e, &compute, m->tid, f);
    gpu = gpu_end(e, vk, m, &compute, 1000, gpu + 5000);
    struct gpu_zone copy = gpu_begin(e, vk, m, e->loc_vk_copy, e->stack_vk, 1000, gpu + 12000);
    gpu = gpu_end(e, vk, m, &copy, 15000, copy.gpu_start + gen_rnd(g, 50000, 150000));
    gpu_end(e, vk, m, &submit, 1000, gpu + 6000);
    struct gpu_zone upload = gpu_begin(e, vk, w, e->loc_vk_upload, NULL, 3000,
                                       to_ns(e, g->serial_now) + 300000);
    gpu_end(e, vk, w, &upload, 8000, upload.gpu_start + gen_rnd(g, 50000, 200000));
    names_thread_used(e->c, w->tid);
    vk_calibrate(e, f);
}

static void collect(struct ext *e, struct gpu_ctx *g)
{
    for (int i = 0; i < g->n_pending; i++)
        ev_gpu_time(e->c, g->pending[i].ticks, g->pending[i].query, g->id);
    g->n_pending = 0;
}

/* GpuTime of every query of the frame, context by context. */
void fam_gpu_collect(struct ext *e)
{
    collect(e, &e->gl);
    collect(e, &e->vk);
}
