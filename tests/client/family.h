/* family.h - state and per-family functions of the extended scenarios of
 * tracy-test-client (everything, crash, on-demand; scenario_ext.c). Each
 * fam_*_frame() sends one event family for one frame of the synthetic
 * application on top of the normal workload of gen.h; the fam_*_init()
 * functions register the names, code and source locations the family
 * uses. Implemented in fam_code.c (the invented program image), fam_gpu.c,
 * fam_sched.c (scheduling, sampling, hardware and system reports) and
 * fam_misc.c (fibers, sections, frame images, memory, locks, call stacks,
 * parameters and the rest). The state lives on the scenario's stack. */
#ifndef TC_FAMILY_H
#define TC_FAMILY_H

#include "gen.h"

#define FAM_GPU_PENDING 64
#define FAM_CTX_EVENTS 1024
#define FAM_SCHED_THREADS 16
#define FAM_STACKS 32
#define FAM_STACK_DEPTH 6
#define FAM_TEXTURES 3        /* texture-pool blocks allocated at once */

/* A GpuTime still to be collected. */
struct gpu_pending {
    int64_t ticks;
    uint16_t query;
};

/* One GPU context and its clock: GPU ns = server ns + k_ns, GPU ticks =
 * GPU ns / period (chosen exact, so the server's conversion is exact). */
struct gpu_ctx {
    uint8_t id, type;
    uint32_t thread;          /* bound thread, 0 = unbound */
    float period;
    bool calibrated;
    int64_t k_ns;
    int64_t anchor_ns;        /* server ns of the last calibration anchor */
    uint16_t next_query;
    const char *name;
    struct gpu_pending pending[FAM_GPU_PENDING];
    int n_pending;
};

/* Context-switch-clock events of one frame, sent sorted by time. */
enum ctx_kind { CTX_SWITCH, CTX_WAKEUP, CTX_SAMPLE, CTX_SWITCH_SAMPLE };

struct ctx_event {
    int64_t t;
    int seq;                  /* creation order, second sort key */
    uint8_t kind, cpu, state;
    uint32_t a, b;            /* switch: old, new thread; others: thread in a */
    int stack;                /* sample call stack index */
};

/* What the server will hold for one OS thread's context-switch data. */
struct sched_thread {
    uint32_t tid;
    bool back_wakeup, back_open;
    uint64_t records;
};

struct sample_stack {
    uint64_t frames[FAM_STACK_DEPTH];
    size_t n;
};

struct ext {
    struct gen *g;
    struct tc_client *c;
    struct gen_thread render;
    uint32_t io_tid, xorg_tid, kworker_tid, pipewire_tid;

    /* the invented program image (fam_code.c) */
    uint64_t fn_main, fn_frame, fn_ai, fn_physics, fn_draw, fn_jobs, fn_dot, fn_transform,
        fn_push, fn_io, fn_shader, fn_memmove, k_timer, k_schedule, k_syscall;
    uint64_t stack_gl[3], stack_vk[3], stack_free[3], stack_discard[3], stack_lua[2],
        stack_msg[3], stack_crash[4];
    struct sample_stack stacks[FAM_STACKS];
    int n_stacks;

    /* GPU */
    struct gpu_ctx gl, vk;
    int loc_render_frame, loc_gl_frame, loc_gl_shadow, loc_gl_casters, loc_gl_post;
    int loc_vk_submit, loc_vk_compute, loc_vk_dispatch, loc_vk_copy, loc_vk_upload;

    /* scheduling and sampling */
    struct ctx_event ev[FAM_CTX_EVENTS];
    int n_ev;
    struct sched_thread sched[FAM_SCHED_THREADS];
    int n_sched;
    bool reordered;           /* one sample was sent out of time order */
    uint64_t power_name[2];
    bool power_seen[2];

    /* fibers */
    struct gen_thread fiber[2];
    uint64_t fiber_ptr[2];
    uint64_t fiber_vtid[2];   /* the server's virtual thread id of each fiber */
    bool fiber_seen[2];
    int n_fibers_seen;
    int loc_fiber_job, loc_fiber_step;

    /* sections */
    uint32_t next_section;
    bool section_open_sent;

    /* memory, locks, call stacks */
    uint64_t texture_pool;
    uint64_t texture_ptr[FAM_TEXTURES]; /* the live blocks of the texture pool */
    int texture_live;
    uint64_t late_free_ptr;
    long late_free_frame;
    int loc_lock_mark, loc_temp_lock, loc_lua_zone;
    uint32_t temp_lock;
    uint64_t lit_lock_warning;

    /* misc */
    uint64_t param_name[3];
    uint8_t image[64 * 32 / 2];
};

/* fam_code.c; sample stacks: role (FAM_ROLE_*) x variant (0-2) x kernel */
enum fam_role { FAM_ROLE_MAIN, FAM_ROLE_WORKER, FAM_ROLE_RENDER, FAM_ROLE_IO, FAM_ROLES };
void fam_code_init(struct ext *e);
/* After all names are registered: the files the client can send. */
void fam_code_sources(struct ext *e);
int fam_sample_stack(int role, int variant, bool kernel);
int fam_switch_stack(int role);

/* fam_gpu.c */
void fam_gpu_init(struct ext *e);
void fam_gpu_contexts(struct ext *e, int64_t when, bool with_vulkan);
void fam_gpu_gl_frame(struct ext *e, long f, int64_t start);
void fam_gpu_vk_frame(struct ext *e, long f);
void fam_gpu_collect(struct ext *e);

/* fam_sched.c */
void fam_sched_init(struct ext *e);
void fam_topology(struct ext *e);
void fam_sched_frame(struct ext *e, long f, int64_t start, int64_t end);
void fam_hw_frame(struct ext *e, long f, int64_t start);
void fam_sys_frame(struct ext *e, long f, int64_t end);

/* fam_misc.c */
void fam_misc_init(struct ext *e);
void fam_params(struct ext *e);
void fam_section_setup(struct ext *e, bool with_strings);
void fam_fiber_frame(struct ext *e, long f);
void fam_section_frame(struct ext *e, long f, bool last);
void fam_image_frame(struct ext *e, long f);
void fam_memory_frame(struct ext *e, long f);
void fam_lock_frame(struct ext *e, long f);
void fam_callstack_frame(struct ext *e, long f);
void fam_vsync_frame(struct ext *e, int64_t start);
void fam_keepalive(struct ext *e);

#endif
