/* names.h - the invented client address space of tracy-test-client:
 * static strings, static and allocated source locations, threads,
 * functions (symbols), call-stack frame addresses with inline chains and
 * known source files, and look-ups used to answer queries. */
#ifndef TC_NAMES_H
#define TC_NAMES_H

#include "client.h"

void names_init(struct tc_client *c);
void names_free(struct tc_client *c);

/* Address of a static string with this text (same text, same address). */
uint64_t names_string(struct tc_client *c, const char *text);

/* A static source location (has an address the server will query).
 * `name` may be NULL (the function then names the zone). Returns its index. */
int names_srcloc(struct tc_client *c, const char *name, const char *function,
                 const char *file, uint32_t line, uint32_t color);

/* An allocated source location, sent as SourceLocationPayload (no address). */
int names_alloc_srcloc(struct tc_client *c, const char *name, const char *function,
                       const char *file, uint32_t line, uint32_t color);

struct tc_srcloc_entry *names_srcloc_at(struct tc_client *c, int index);

/* A thread of this program (or a fiber: tid = (1 << 32) | n). */
void names_thread(struct tc_client *c, uint64_t tid, const char *name);
/* A thread of another process (answers ExternalName; TidToPid pid). */
void names_external_thread(struct tc_client *c, uint32_t tid, const char *name,
                           const char *process, uint32_t pid);
/* Group hint sent (as ThreadGroupHint) after the thread's name answer. */
void names_thread_hint(struct tc_client *c, uint64_t tid, int32_t hint);
void names_thread_used(struct tc_client *c, uint64_t tid);

/* A function of the invented address space; returns its index (an
 * existing entry with the same address is kept). */
int names_symbol(struct tc_client *c, uint64_t addr, uint32_t len, const char *name,
                 const char *file, uint32_t line, const char *image);

/* An invented code address with its resolution (the function it is in);
 * also registers that function as a symbol. */
void names_code(struct tc_client *c, uint64_t addr, const char *image, const char *function,
                const char *file, uint32_t line, uint64_t sym_addr, uint32_t sym_len);
/* Add an inlined callee (function sym_addr/sym_len, at file:line) to the
 * chain of a registered code address; call innermost first. */
void names_code_inline(struct tc_client *c, uint64_t addr, const char *function,
                       const char *file, uint32_t line, uint64_t sym_addr, uint32_t sym_len);

/* Source files the client can send on a SourceCode query. */
void names_source(struct tc_client *c, const char *file);
bool names_knows_source(const struct tc_client *c, const char *file);

/* Look-ups; NULL when the client never handed out that address. */
const char *names_find_string(const struct tc_client *c, uint64_t addr);
const struct tc_srcloc_entry *names_find_srcloc(const struct tc_client *c, uint64_t addr);
const char *names_find_thread(const struct tc_client *c, uint64_t tid);
const struct tc_thread_entry *names_find_thread_entry(const struct tc_client *c, uint64_t tid);
const struct tc_frame_entry *names_find_code(const struct tc_client *c, uint64_t addr);
const struct tc_symbol_entry *names_find_symbol(const struct tc_client *c, uint64_t sym_addr);
const struct tc_symbol_entry *names_symbol_containing(const struct tc_client *c, uint64_t addr);

/* strdup that aborts on failure. */
char *tc_strdup(const char *s);

#endif
