/* disasm.h - disassembly of symbol code received from the client, to find
 * the code addresses upstream asks the client to resolve: every
 * instruction, and the target of every direct jump or call. Built on
 * Capstone when available (HAVE_CAPSTONE); otherwise nothing is found. */
#ifndef TC_DISASM_H
#define TC_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Called for each address found, in upstream's order. */
typedef void (*disasm_fn)(void *ctx, uint64_t addr);

/* Disassemble n bytes of code loaded at addr for the welcome's CPU
 * architecture (1 x86, 2 x64, 3 ARM32, 4 ARM64). Returns the number of
 * instructions decoded. */
size_t disasm_code(uint8_t cpu_arch, const uint8_t *code, size_t n, uint64_t addr, disasm_fn fn, void *ctx);

/* Whether this build can disassemble, and with what (for --version). */
const char *disasm_engine(void);

#endif
