/* names.c - registry of everything tracy-test-client pretends lives in its
 * address space: static strings (0x400000 + 0x40*k), static source
 * locations (0x600000 + 0x40*k), threads (its own and other processes'),
 * functions (symbols), code addresses used in call stacks with their
 * inline chains, and the source files it can send. Queries are answered
 * from these tables; zone statistics for the manifest live on the source
 * location entries. */
#include "names.h"

#include <stdlib.h>
#include <string.h>

#define TC_STRING_BASE 0x400000u
#define TC_SRCLOC_BASE 0x600000u
#define TC_ADDR_STRIDE 0x40u

char *tc_strdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

/* Grow a table by one element, returning the new (zeroed) slot. */
static void *table_append(void **base, size_t *n, size_t *cap, size_t elem)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        void *nb = realloc(*base, nc * elem);
        if (!nb)
            abort();
        *base = nb;
        *cap = nc;
    }
    void *slot = (char *)*base + *n * elem;
    memset(slot, 0, elem);
    (*n)++;
    return slot;
}

void names_init(struct tc_client *c)
{
    memset(&c->names, 0, sizeof(c->names));
    c->names.unknown_ptr = names_string(c, "???");
}

void names_free(struct tc_client *c)
{
    struct tc_names *n = &c->names;
    for (size_t i = 0; i < n->n_strings; i++)
        free(n->strings[i].text);
    for (size_t i = 0; i < n->n_srclocs; i++) {
        free(n->srclocs[i].name);
        free(n->srclocs[i].function);
        free(n->srclocs[i].file);
    }
    for (size_t i = 0; i < n->n_threads; i++) {
        free(n->threads[i].name);
        free(n->threads[i].process);
    }
    for (size_t i = 0; i < n->n_frames; i++) {
        struct tc_frame_entry *f = &n->frames[i];
        free(f->image);
        free(f->function);
        free(f->file);
        for (int k = 0; k < f->n_inline; k++) {
            free(f->inl[k].function);
            free(f->inl[k].file);
        }
    }
    for (size_t i = 0; i < n->n_symbols; i++) {
        free(n->symbols[i].name);
        free(n->symbols[i].file);
        free(n->symbols[i].image);
    }
    for (size_t i = 0; i < n->n_sources; i++)
        free(n->sources[i]);
    free(n->strings);
    free(n->srclocs);
    free(n->threads);
    free(n->frames);
    free(n->symbols);
    free(n->sources);
}

uint64_t names_string(struct tc_client *c, const char *text)
{
    struct tc_names *n = &c->names;
    for (size_t i = 0; i < n->n_strings; i++)
        if (strcmp(n->strings[i].text, text) == 0)
            return n->strings[i].addr;
    struct tc_string_entry *e = table_append((void **)&n->strings, &n->n_strings,
                                             &n->cap_strings, sizeof(*e));
    e->addr = TC_STRING_BASE + TC_ADDR_STRIDE * (n->n_strings - 1);
    e->text = tc_strdup(text);
    return e->addr;
}

static int add_srcloc(struct tc_client *c, bool allocated, const char *name,
                      const char *function, const char *file, uint32_t line, uint32_t color)
{
    struct tc_names *n = &c->names;
    uint64_t name_ptr = name ? names_string(c, name) : 0;
    uint64_t function_ptr = names_string(c, function);
    uint64_t file_ptr = names_string(c, file);
    struct tc_srcloc_entry *e = table_append((void **)&n->srclocs, &n->n_srclocs,
                                             &n->cap_srclocs, sizeof(*e));
    e->addr = allocated ? 0 : TC_SRCLOC_BASE + TC_ADDR_STRIDE * (n->n_srclocs - 1);
    e->name = name ? tc_strdup(name) : NULL;
    e->function = tc_strdup(function);
    e->file = tc_strdup(file);
    e->name_ptr = name_ptr;
    e->function_ptr = function_ptr;
    e->file_ptr = file_ptr;
    e->line = line;
    e->color = color;
    return (int)(n->n_srclocs - 1);
}

int names_srcloc(struct tc_client *c, const char *name, const char *function,
                 const char *file, uint32_t line, uint32_t color)
{
    return add_srcloc(c, false, name, function, file, line, color);
}

int names_alloc_srcloc(struct tc_client *c, const char *name, const char *function,
                       const char *file, uint32_t line, uint32_t color)
{
    return add_srcloc(c, true, name, function, file, line, color);
}

struct tc_srcloc_entry *names_srcloc_at(struct tc_client *c, int index)
{
    return &c->names.srclocs[index];
}

static struct tc_thread_entry *find_thread(const struct tc_client *c, uint64_t tid)
{
    for (size_t i = 0; i < c->names.n_threads; i++)
        if (c->names.threads[i].tid == tid)
            return &c->names.threads[i];
    return NULL;
}

void names_thread(struct tc_client *c, uint64_t tid, const char *name)
{
    struct tc_names *n = &c->names;
    struct tc_thread_entry *e = table_append((void **)&n->threads, &n->n_threads,
                                             &n->cap_threads, sizeof(*e));
    e->tid = tid;
    e->name = tc_strdup(name);
}

void names_external_thread(struct tc_client *c, uint32_t tid, const char *name,
                           const char *process, uint32_t pid)
{
    names_thread(c, tid, name);
    struct tc_thread_entry *e = &c->names.threads[c->names.n_threads - 1];
    e->process = tc_strdup(process);
    e->pid = pid;
    e->external = true;
}

void names_thread_hint(struct tc_client *c, uint64_t tid, int32_t hint)
{
    struct tc_thread_entry *e = find_thread(c, tid);
    if (e)
        e->group_hint = hint;
}

void names_thread_used(struct tc_client *c, uint64_t tid)
{
    struct tc_thread_entry *e = find_thread(c, tid);
    if (e)
        e->used = true;
}

int names_symbol(struct tc_client *c, uint64_t addr, uint32_t len, const char *name,
                 const char *file, uint32_t line, const char *image)
{
    struct tc_names *n = &c->names;
    for (size_t i = 0; i < n->n_symbols; i++)
        if (n->symbols[i].addr == addr)
            return (int)i;
    struct tc_symbol_entry *e = table_append((void **)&n->symbols, &n->n_symbols,
                                             &n->cap_symbols, sizeof(*e));
    e->addr = addr;
    e->len = len;
    e->name = tc_strdup(name);
    e->file = tc_strdup(file);
    e->image = tc_strdup(image);
    e->line = line;
    return (int)(n->n_symbols - 1);
}

void names_code(struct tc_client *c, uint64_t addr, const char *image, const char *function,
                const char *file, uint32_t line, uint64_t sym_addr, uint32_t sym_len)
{
    struct tc_names *n = &c->names;
    struct tc_frame_entry *e = table_append((void **)&n->frames, &n->n_frames,
                                            &n->cap_frames, sizeof(*e));
    e->addr = addr;
    e->image = tc_strdup(image);
    e->function = tc_strdup(function);
    e->file = tc_strdup(file);
    e->line = line;
    e->sym_addr = sym_addr;
    e->sym_len = sym_len;
    if (sym_addr != 0)
        names_symbol(c, sym_addr, sym_len, function, file, line, image);
}

void names_code_inline(struct tc_client *c, uint64_t addr, const char *function,
                       const char *file, uint32_t line, uint64_t sym_addr, uint32_t sym_len)
{
    struct tc_frame_entry *f = NULL;
    for (size_t i = 0; i < c->names.n_frames && !f; i++)
        if (c->names.frames[i].addr == addr)
            f = &c->names.frames[i];
    if (!f || f->n_inline >= TC_MAX_INLINE)
        return;
    struct tc_inline_entry *e = &f->inl[f->n_inline++];
    e->function = tc_strdup(function);
    e->file = tc_strdup(file);
    e->line = line;
    e->sym_addr = sym_addr;
    e->sym_len = sym_len;
}

void names_source(struct tc_client *c, const char *file)
{
    struct tc_names *n = &c->names;
    if (names_knows_source(c, file))
        return;
    char **slot = table_append((void **)&n->sources, &n->n_sources, &n->cap_sources,
                               sizeof(*slot));
    *slot = tc_strdup(file);
}

bool names_knows_source(const struct tc_client *c, const char *file)
{
    for (size_t i = 0; i < c->names.n_sources; i++)
        if (strcmp(c->names.sources[i], file) == 0)
            return true;
    return false;
}

const char *names_find_string(const struct tc_client *c, uint64_t addr)
{
    for (size_t i = 0; i < c->names.n_strings; i++)
        if (c->names.strings[i].addr == addr)
            return c->names.strings[i].text;
    return NULL;
}

const struct tc_srcloc_entry *names_find_srcloc(const struct tc_client *c, uint64_t addr)
{
    /* a static location's address gives its index (tens of thousands of
     * them in the srcloc-overflow scenario) */
    uint64_t at = (addr - TC_SRCLOC_BASE) / TC_ADDR_STRIDE;
    if (addr >= TC_SRCLOC_BASE && at < c->names.n_srclocs && c->names.srclocs[at].addr == addr)
        return &c->names.srclocs[at];
    for (size_t i = 0; i < c->names.n_srclocs; i++)
        if (c->names.srclocs[i].addr == addr && addr != 0)
            return &c->names.srclocs[i];
    return NULL;
}

const char *names_find_thread(const struct tc_client *c, uint64_t tid)
{
    const struct tc_thread_entry *e = find_thread(c, tid);
    return e ? e->name : NULL;
}

const struct tc_thread_entry *names_find_thread_entry(const struct tc_client *c, uint64_t tid)
{
    return find_thread(c, tid);
}

const struct tc_frame_entry *names_find_code(const struct tc_client *c, uint64_t addr)
{
    for (size_t i = 0; i < c->names.n_frames; i++)
        if (c->names.frames[i].addr == addr)
            return &c->names.frames[i];
    return NULL;
}

const struct tc_symbol_entry *names_find_symbol(const struct tc_client *c, uint64_t sym_addr)
{
    for (size_t i = 0; i < c->names.n_symbols; i++)
        if (c->names.symbols[i].addr == sym_addr && sym_addr != 0)
            return &c->names.symbols[i];
    return NULL;
}

const struct tc_symbol_entry *names_symbol_containing(const struct tc_client *c, uint64_t addr)
{
    for (size_t i = 0; i < c->names.n_symbols; i++) {
        const struct tc_symbol_entry *s = &c->names.symbols[i];
        if (addr >= s->addr && addr - s->addr < s->len)
            return s;
    }
    return NULL;
}
