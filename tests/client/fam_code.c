/* fam_code.c - the invented program image of the extended scenarios of
 * tracy-test-client: the functions of a game executable, libc and the
 * kernel (symbols with sizes, so the server asks for their code), the
 * code addresses of call stacks with inline chains of one to three
 * entries, the call stacks used by GPU zones, memory events, Lua stacks,
 * messages, crashes and samples (some with a kernel frame), and the list
 * of source files the client can send. */
#include <string.h>

#include "family.h"
#include "names.h"

#define GAME_IMAGE "/home/dev/game/build/game"
#define LIBC_IMAGE "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define KERNEL_IMAGE "<kernel>"
#define SRC "/home/dev/game/src/"
/* A generated file with a path over 255 bytes (SecondStringData, long
 * DataTransfer). */
#define GENERATED_FILE                                                                   \
    "/home/dev/game/build/generated/shaders/permutations/forward_plus/clustered_lighting/" \
    "shadow_filtering_pcf_5x5/normal_mapping_parallax_occlusion/skinning_dual_quaternion/" \
    "instancing_indirect_draw/tessellation_displacement/"                                \
    "compile_variant_instantiations_for_all_material_models.inl"

struct fn_spec {
    uint64_t addr;
    uint32_t len;
    const char *name, *file;
    uint32_t line;
    const char *image;
};

static const struct fn_spec functions[] = {
    { 0x7f5500100000, 0x90, "main", SRC "main.cpp", 12, GAME_IMAGE },
    { 0x7f5500100100, 0x180, "Game::Frame", SRC "game.cpp", 40, GAME_IMAGE },
    { 0x7f5500100300, 0x120, "AI::Plan", SRC "ai.cpp", 77, GAME_IMAGE },
    { 0x7f5500100440, 0x140, "Physics::Solve", SRC "physics.cpp", 31, GAME_IMAGE },
    { 0x7f5500100600, 0x1a0, "Renderer::DrawScene", SRC "render/renderer.cpp", 58, GAME_IMAGE },
    { 0x7f55001007c0, 0xc0, "Jobs::WorkerMain", SRC "jobs.cpp", 22, GAME_IMAGE },
    { 0x7f5500100900, 0x20, "Math::Dot", SRC "math.h", 9, GAME_IMAGE },
    { 0x7f5500100940, 0x20, "Transform::Apply", SRC "transform.h", 20, GAME_IMAGE },
    { 0x7f5500100980, 0x40, "std::vector<Entity, std::allocator<Entity> >::push_back",
      "/usr/include/c++/13/bits/stl_vector.h", 1283, GAME_IMAGE },
    { 0x7f5500100a00, 0x100, "IO::ReadAsync", SRC "io.cpp", 101, GAME_IMAGE },
    { 0x7f5500100b00, 0x60, "ShaderCache::CompileVariant", GENERATED_FILE, 2048, GAME_IMAGE },
    { 0x7f5570020000, 0x80, "__memmove_avx_unaligned_erms",
      "./string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S", 263, LIBC_IMAGE },
    { 0xffffffff9a001000, 0x20, "asm_sysvec_apic_timer_interrupt", KERNEL_IMAGE, 0,
      KERNEL_IMAGE },
    { 0xffffffff99e52340, 0x8a0, "__schedule", KERNEL_IMAGE, 0, KERNEL_IMAGE },
    { 0xffffffff99e40100, 0x100, "do_syscall_64", KERNEL_IMAGE, 0, KERNEL_IMAGE },
};

enum {
    FN_MAIN, FN_FRAME, FN_AI, FN_PHYSICS, FN_DRAW, FN_JOBS, FN_DOT, FN_TRANSFORM, FN_PUSH,
    FN_IO, FN_SHADER, FN_MEMMOVE, K_TIMER, K_SCHEDULE, K_SYSCALL,
};

static void register_functions(struct ext *e)
{
    for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) {
        const struct fn_spec *s = &functions[i];
        names_symbol(e->c, s->addr, s->len, s->name, s->file, s->line, s->image);
    }
    e->fn_main = functions[FN_MAIN].addr;
    e->fn_frame = functions[FN_FRAME].addr;
    e->fn_ai = functions[FN_AI].addr;
    e->fn_physics = functions[FN_PHYSICS].addr;
    e->fn_draw = functions[FN_DRAW].addr;
    e->fn_jobs = functions[FN_JOBS].addr;
    e->fn_dot = functions[FN_DOT].addr;
    e->fn_transform = functions[FN_TRANSFORM].addr;
    e->fn_push = functions[FN_PUSH].addr;
    e->fn_io = functions[FN_IO].addr;
    e->fn_shader = functions[FN_SHADER].addr;
    e->fn_memmove = functions[FN_MEMMOVE].addr;
    e->k_timer = functions[K_TIMER].addr;
    e->k_schedule = functions[K_SCHEDULE].addr;
    e->k_syscall = functions[K_SYSCALL].addr;
}

/* A call-stack address inside function fn, reported at `line`. */
static void code_at(struct ext *e, int fn, uint32_t offset, uint32_t line)
{
    const struct fn_spec *s = &functions[fn];
    names_code(e->c, s->addr + offset, s->image, s->name, s->file, line, s->addr, s->len);
}

/* The address also runs inlined code of function fn (innermost first). */
static void inlined(struct ext *e, int host, uint32_t offset, int fn, uint32_t line)
{
    const struct fn_spec *s = &functions[fn];
    names_code_inline(e->c, functions[host].addr + offset, s->name, s->file, line, s->addr,
                      s->len);
}

static void register_frames(struct ext *e)
{
    code_at(e, FN_MAIN, 0x2b, 15);
    code_at(e, FN_FRAME, 0x45, 57);
    inlined(e, FN_FRAME, 0x45, FN_DOT, 11);
    inlined(e, FN_FRAME, 0x45, FN_TRANSFORM, 23);
    code_at(e, FN_FRAME, 0x9c, 63);
    code_at(e, FN_AI, 0x1c, 80);
    code_at(e, FN_AI, 0x60, 91);
    inlined(e, FN_AI, 0x60, FN_DOT, 10);
    code_at(e, FN_PHYSICS, 0x33, 44);
    inlined(e, FN_PHYSICS, 0x33, FN_DOT, 12);
    code_at(e, FN_DRAW, 0x31, 88);
    inlined(e, FN_DRAW, 0x31, FN_DOT, 11);
    code_at(e, FN_DRAW, 0xa0, 95);
    inlined(e, FN_DRAW, 0xa0, FN_PUSH, 1287);
    code_at(e, FN_JOBS, 0x18, 25);
    code_at(e, FN_IO, 0x40, 110);
    code_at(e, FN_SHADER, 0x14, 2061);
    code_at(e, FN_MEMMOVE, 0x22, 300);
}

static void set3(uint64_t *dst, uint64_t a, uint64_t b, uint64_t c)
{
    dst[0] = a;
    dst[1] = b;
    dst[2] = c;
}

static void register_stacks(struct ext *e)
{
    uint64_t main_ = e->fn_main + 0x2b, frame = e->fn_frame + 0x9c;
    set3(e->stack_gl, e->fn_draw + 0x31, frame, main_);
    set3(e->stack_vk, e->fn_draw + 0xa0, frame, main_);
    set3(e->stack_free, e->fn_memmove + 0x22, e->fn_io + 0x40, e->fn_jobs + 0x18);
    set3(e->stack_discard, e->fn_physics + 0x33, frame, main_);
    set3(e->stack_msg, e->fn_ai + 0x1c, e->fn_frame + 0x45, main_);
    e->stack_lua[0] = e->fn_ai + 0x60;
    e->stack_lua[1] = e->fn_jobs + 0x18;
    e->stack_crash[0] = e->fn_memmove + 0x22;
    e->stack_crash[1] = e->fn_io + 0x40;
    e->stack_crash[2] = frame;
    e->stack_crash[3] = main_;
}

/* Leaf functions (and their callers) of each thread role, by variant. */
static void role_frames(const struct ext *e, int role, int variant, uint64_t *out, size_t *n)
{
    uint64_t main_ = e->fn_main + 0x2b, frame = e->fn_frame + 0x9c, jobs = e->fn_jobs + 0x18;
    static const uint32_t main_leaf[3] = { 0x1c, 0x60, 0x33 };
    switch (role) {
    case FAM_ROLE_MAIN:
        out[0] = variant == 2 ? e->fn_physics + main_leaf[2] : e->fn_ai + main_leaf[variant];
        out[1] = frame;
        out[2] = main_;
        *n = 3;
        break;
    case FAM_ROLE_WORKER:
        out[0] = variant == 0 ? e->fn_physics + 0x33 : variant == 1 ? e->fn_memmove + 0x22
                                                                    : e->fn_shader + 0x14;
        out[1] = jobs;
        *n = 2;
        break;
    case FAM_ROLE_RENDER:
        out[0] = variant == 1 ? e->fn_draw + 0xa0 : e->fn_draw + 0x31;
        out[1] = variant == 2 ? e->fn_frame + 0x45 : main_;
        *n = 2;
        break;
    default:
        out[0] = variant == 0 ? e->fn_io + 0x40 : e->fn_memmove + 0x22;
        out[1] = variant == 0 ? jobs : e->fn_io + 0x40;
        *n = 2;
        break;
    }
}

static void add_stack(struct ext *e, const uint64_t *frames, size_t n)
{
    struct sample_stack *s = &e->stacks[e->n_stacks++];
    memcpy(s->frames, frames, n * sizeof(*frames));
    s->n = n;
}

/* Per role: 3 variants without and with a kernel (timer interrupt) top
 * frame, then one context-switch stack per role (__schedule from a
 * system call). */
static void register_sample_stacks(struct ext *e)
{
    uint64_t frames[FAM_STACK_DEPTH];
    size_t n;
    for (int role = 0; role < FAM_ROLES; role++)
        for (int v = 0; v < 3; v++) {
            role_frames(e, role, v, frames + 1, &n);
            add_stack(e, frames + 1, n);
            frames[0] = e->k_timer + 0x12;
            add_stack(e, frames, n + 1);
        }
    for (int role = 0; role < FAM_ROLES; role++) {
        role_frames(e, role, 0, frames + 2, &n);
        frames[0] = e->k_schedule + 0x1f4;
        frames[1] = e->k_syscall + 0x5c;
        add_stack(e, frames, n + 2);
    }
}

int fam_sample_stack(int role, int variant, bool kernel)
{
    return (role * 3 + variant) * 2 + (kernel ? 1 : 0);
}

int fam_switch_stack(int role)
{
    return FAM_ROLES * 6 + role;
}

void fam_code_init(struct ext *e)
{
    register_functions(e);
    register_frames(e);
    register_stacks(e);
    register_sample_stacks(e);
}

/* Files of the project (not system headers, libc or the kernel). */
static bool project_file(const char *file)
{
    return strncmp(file, "/usr/", 5) != 0 && strncmp(file, "./", 2) != 0 && file[0] != '<' &&
           file[0] != '@' && strcmp(file, "???") != 0;
}

void fam_code_sources(struct ext *e)
{
    struct tc_client *c = e->c;
    for (size_t i = 0; i < c->names.n_srclocs; i++)
        if (project_file(c->names.srclocs[i].file))
            names_source(c, c->names.srclocs[i].file);
    for (size_t i = 0; i < c->names.n_symbols; i++)
        if (project_file(c->names.symbols[i].file))
            names_source(c, c->names.symbols[i].file);
}
