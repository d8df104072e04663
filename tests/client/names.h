/* names.h - the invented client address space of tracy-test-client:
 * static strings, static and allocated source locations, threads and
 * call-stack frame addresses, and look-ups used to answer queries. */
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

void names_thread(struct tc_client *c, uint32_t tid, const char *name);
void names_thread_used(struct tc_client *c, uint32_t tid);

/* An invented code address with its resolution (one frame, no inlines). */
void names_code(struct tc_client *c, uint64_t addr, const char *image, const char *function,
                const char *file, uint32_t line, uint64_t sym_addr, uint32_t sym_len);

/* Look-ups; NULL when the client never handed out that address. */
const char *names_find_string(const struct tc_client *c, uint64_t addr);
const struct tc_srcloc_entry *names_find_srcloc(const struct tc_client *c, uint64_t addr);
const char *names_find_thread(const struct tc_client *c, uint32_t tid);
const struct tc_frame_entry *names_find_code(const struct tc_client *c, uint64_t addr);
const struct tc_frame_entry *names_find_symbol(const struct tc_client *c, uint64_t sym_addr);

/* strdup that aborts on failure. */
char *tc_strdup(const char *s);

#endif
