/* code.c - the contents tracy-test-client serves for its invented
 * functions and files: plausible x86-64 machine code for SymbolCode
 * answers (a frame-pointer prologue, calls and a tail jump to the other
 * functions the client knows, short conditional branches, an epilogue
 * ending exactly at the symbol's last byte) and synthetic source text for
 * SourceCode answers (the functions of the file at their declared lines).
 * Both are deterministic functions of the names tables. */
#include "code.h"

#include <stdlib.h>
#include <string.h>

#include "names.h"

/* ------------------------------------------------------------ machine code */

struct code_buf {
    uint8_t *p;
    size_t n, cap;
    uint64_t base; /* address of p[0] */
};

static void put(struct code_buf *b, const uint8_t *bytes, size_t len)
{
    if (b->n + len <= b->cap) {
        memcpy(b->p + b->n, bytes, len);
        b->n += len;
    }
}

static void put_rel32(struct code_buf *b, uint8_t opcode, uint64_t target)
{
    int64_t rel = (int64_t)(target - (b->base + b->n + 5));
    uint8_t insn[5] = { opcode, (uint8_t)rel, (uint8_t)(rel >> 8), (uint8_t)(rel >> 16),
                        (uint8_t)(rel >> 24) };
    put(b, insn, sizeof(insn));
}

/* One multi-byte NOP of 1..8 bytes (the recommended Intel encodings). */
static void put_nop(struct code_buf *b, size_t len)
{
    static const uint8_t nops[8][8] = {
        { 0x90 },
        { 0x66, 0x90 },
        { 0x0f, 0x1f, 0x00 },
        { 0x0f, 0x1f, 0x40, 0x00 },
        { 0x0f, 0x1f, 0x44, 0x00, 0x00 },
        { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
        { 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
        { 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
    };
    put(b, nops[len - 1], len);
}

static void fill_nops(struct code_buf *b, size_t len)
{
    while (len > 0) {
        size_t n = len > 8 ? 8 : len;
        put_nop(b, n);
        len -= n;
    }
}

/* The k-th user-space function other than `self` that a rel32 reaches. */
static const struct tc_symbol_entry *call_target(const struct tc_client *c,
                                                 const struct tc_symbol_entry *self, size_t k)
{
    size_t n = c->names.n_symbols, seen = 0;
    const struct tc_symbol_entry *found[64];
    for (size_t i = 0; i < n && seen < 64; i++) {
        const struct tc_symbol_entry *s = &c->names.symbols[i];
        int64_t dist = (int64_t)(s->addr - self->addr);
        if (s != self && s->addr >> 63 == 0 && s->len > 0 && dist > -0x7fff0000 &&
            dist < 0x7fff0000)
            found[seen++] = s;
    }
    return seen ? found[(k + (size_t)(self - c->names.symbols)) % seen] : NULL;
}

/* mov edi, imm32; call target; test eax, eax; je +4; add rbx, 8 */
static void block_call(struct code_buf *b, uint32_t arg, uint64_t target)
{
    uint8_t mov[5] = { 0xbf, (uint8_t)arg, (uint8_t)(arg >> 8), 0, 0 };
    static const uint8_t tail[] = { 0x85, 0xc0, 0x74, 0x04, 0x48, 0x83, 0xc3, 0x08 };
    put(b, mov, sizeof(mov));
    put_rel32(b, 0xe8, target);
    put(b, tail, sizeof(tail));
}

/* test rbx, rbx; jne +5; jmp target (a tail call on one path) */
static void block_jump(struct code_buf *b, uint64_t target)
{
    static const uint8_t head[] = { 0x48, 0x85, 0xdb, 0x75, 0x05 };
    put(b, head, sizeof(head));
    put_rel32(b, 0xe9, target);
}

/* mov rax, [rbx+0x10]; add rbx, rax; xor eax, eax */
static void block_arith(struct code_buf *b)
{
    static const uint8_t insn[] = { 0x48, 0x8b, 0x43, 0x10, 0x48, 0x01, 0xc3, 0x31, 0xc0 };
    put(b, insn, sizeof(insn));
}

#define CALL_BLOCK 18
#define JUMP_BLOCK 10
#define ARITH_BLOCK 9

static void function_body(const struct tc_client *c, const struct tc_symbol_entry *s,
                          struct code_buf *b, size_t end)
{
    for (size_t k = 0;; k++) {
        const struct tc_symbol_entry *t = call_target(c, s, k);
        size_t kind = k % 4;
        size_t need = !t || kind == 3 ? ARITH_BLOCK : kind == 2 ? JUMP_BLOCK : CALL_BLOCK;
        if (b->n + need > end)
            break;
        if (!t || kind == 3)
            block_arith(b);
        else if (kind == 2)
            block_jump(b, t->addr);
        else
            block_call(b, (uint32_t)(k * 16 + 1), t->addr);
    }
}

size_t code_symbol_bytes(const struct tc_client *c, const struct tc_symbol_entry *s, uint8_t *out,
                         size_t cap)
{
    static const uint8_t prologue[] = { 0x55, 0x48, 0x89, 0xe5, 0x53, 0x48, 0x83,
                                        0xec, 0x28, 0x48, 0x89, 0xfb };
    static const uint8_t epilogue[] = { 0x48, 0x83, 0xc4, 0x28, 0x5b, 0x5d, 0xc3 };
    if (s->len > cap || s->addr >> 63 != 0)
        return 0;
    struct code_buf b = { out, 0, s->len, s->addr };
    if (s->len < sizeof(prologue) + sizeof(epilogue)) {
        fill_nops(&b, s->len - 1);
        put(&b, epilogue + sizeof(epilogue) - 1, 1);
        return b.n;
    }
    put(&b, prologue, sizeof(prologue));
    function_body(c, s, &b, s->len - sizeof(epilogue));
    fill_nops(&b, s->len - sizeof(epilogue) - b.n);
    put(&b, epilogue, sizeof(epilogue));
    return b.n;
}

/* ------------------------------------------------------------ source text */

struct text_buf {
    char *p;
    size_t n, cap;
};

static void text_append(struct text_buf *t, const char *s)
{
    size_t len = strlen(s);
    if (t->n + len + 1 > t->cap) {
        size_t cap = (t->cap + len + 1) * 2;
        char *np = realloc(t->p, cap);
        if (!np)
            abort();
        t->p = np;
        t->cap = cap;
    }
    memcpy(t->p + t->n, s, len + 1);
    t->n += len;
}

/* The function declared at `line` of `file`, if the client knows one. */
static const char *function_at(const struct tc_client *c, const char *file, uint32_t line)
{
    for (size_t i = 0; i < c->names.n_symbols; i++) {
        const struct tc_symbol_entry *s = &c->names.symbols[i];
        if (s->line == line && strcmp(s->file, file) == 0)
            return s->name;
    }
    for (size_t i = 0; i < c->names.n_srclocs; i++) {
        const struct tc_srcloc_entry *s = &c->names.srclocs[i];
        if (s->line == line && strcmp(s->file, file) == 0)
            return s->function;
    }
    return NULL;
}

static uint32_t last_line(const struct tc_client *c, const char *file)
{
    uint32_t last = 0;
    for (size_t i = 0; i < c->names.n_symbols; i++)
        if (strcmp(c->names.symbols[i].file, file) == 0 && c->names.symbols[i].line > last)
            last = c->names.symbols[i].line;
    for (size_t i = 0; i < c->names.n_srclocs; i++)
        if (strcmp(c->names.srclocs[i].file, file) == 0 && c->names.srclocs[i].line > last)
            last = c->names.srclocs[i].line;
    for (size_t i = 0; i < c->names.n_frames; i++)
        if (strcmp(c->names.frames[i].file, file) == 0 && c->names.frames[i].line > last)
            last = c->names.frames[i].line;
    return last;
}

char *code_source_text(const struct tc_client *c, const char *file, size_t *len)
{
    struct text_buf t = { NULL, 0, 0 };
    char line[512];
    snprintf(line, sizeof(line), "// %s - served by tracy-test-client (synthetic source)\n",
             file);
    text_append(&t, line);
    uint32_t end = last_line(c, file) + 12;
    for (uint32_t i = 2; i <= end; i++) {
        const char *fn = function_at(c, file, i);
        if (fn)
            snprintf(line, sizeof(line), "void %s()\n", fn);
        else if (function_at(c, file, i - 1))
            snprintf(line, sizeof(line), "{\n");
        else
            snprintf(line, sizeof(line), "    step(%u);\n", i);
        text_append(&t, line);
    }
    *len = t.n;
    return t.p;
}
