/* disasm.c - symbol code disassembly with Capstone (see disasm.h). */
#include "disasm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

#ifdef HAVE_CAPSTONE
#include <capstone/capstone.h>

/* Capstone allocates with our checked allocators: it does not survive a
 * failed allocation of its own (a crash inside cs_disasm under ulimit -v),
 * and running out of memory ends the capture as anywhere else here. */
static void use_checked_allocation(void)
{
    cs_opt_mem mem = { .malloc = xmalloc, .calloc = xcalloc, .realloc = xrealloc, .free = free,
                       .vsnprintf = vsnprintf };
    cs_option(0, CS_OPT_MEM, (size_t)&mem);
}

/* The immediate operand of a single-operand jump or call, or 0. */
static uint64_t branch_target(uint8_t arch, const cs_detail *d)
{
    bool branch = false;
    for (uint8_t g = 0; g < d->groups_count && !branch; g++)
        branch = d->groups[g] == CS_GRP_JUMP || d->groups[g] == CS_GRP_CALL;
    if (!branch) return 0;
    switch (arch) {
    case 1:
    case 2:
        if (d->x86.op_count == 1 && d->x86.operands[0].type == X86_OP_IMM) return (uint64_t)d->x86.operands[0].imm;
        break;
    case 3:
        if (d->arm.op_count == 1 && d->arm.operands[0].type == ARM_OP_IMM) return (uint64_t)(int64_t)d->arm.operands[0].imm;
        break;
    case 4:
#if CS_API_MAJOR >= 6
        if (d->aarch64.op_count == 1 && d->aarch64.operands[0].type == AARCH64_OP_IMM)
            return (uint64_t)d->aarch64.operands[0].imm;
#else
        if (d->arm64.op_count == 1 && d->arm64.operands[0].type == ARM64_OP_IMM)
            return (uint64_t)d->arm64.operands[0].imm;
#endif
        break;
    default:
        break;
    }
    return 0;
}

size_t disasm_code(uint8_t arch, const uint8_t *code, size_t n, uint64_t addr, disasm_fn fn, void *ctx)
{
    cs_arch a;
    cs_mode mode;
    switch (arch) {
    case 1: a = CS_ARCH_X86; mode = CS_MODE_32; break;
    case 2: a = CS_ARCH_X86; mode = CS_MODE_64; break;
    case 3: a = CS_ARCH_ARM; mode = CS_MODE_ARM; break;
#if CS_API_MAJOR >= 6
    case 4: a = CS_ARCH_AARCH64; mode = CS_MODE_ARM; break;
#else
    case 4: a = CS_ARCH_ARM64; mode = CS_MODE_ARM; break;
#endif
    default: return 0;
    }
    csh handle;
    use_checked_allocation();
    if (cs_open(a, mode, &handle) != CS_ERR_OK) return 0;
    cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
    cs_insn *insn;
    size_t count = cs_disasm(handle, code, n, addr, 0, &insn);
    for (size_t i = 0; i < count; i++) {
        fn(ctx, insn[i].address);
        uint64_t target = branch_target(arch, insn[i].detail);
        if (target) fn(ctx, target);
    }
    if (count) cs_free(insn, count);
    cs_close(&handle);
    return count;
}

const char *disasm_engine(void)
{
    static char name[32];
    int major, minor;
    cs_version(&major, &minor);
    snprintf(name, sizeof name, "Capstone %d.%d", major, minor);
    return name;
}

#else

size_t disasm_code(uint8_t arch, const uint8_t *code, size_t n, uint64_t addr, disasm_fn fn, void *ctx)
{
    (void)arch; (void)code; (void)n; (void)addr; (void)fn; (void)ctx;
    return 0;
}

const char *disasm_engine(void)
{
    return "no disassembler";
}

#endif
