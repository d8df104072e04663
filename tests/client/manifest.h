/* manifest.h - facts about what tracy-test-client sent, for tests to
 * assert against (format documented in manifest.c). */
#ifndef TC_MANIFEST_H
#define TC_MANIFEST_H

#include "client.h"

void manifest_init(struct tc_client *c);
void manifest_free(struct tc_client *c);

/* Find or create the counter of a plot / frame set / lock / memory pool. */
struct tc_named_counter *manifest_counter(struct tc_client *c, enum tc_counter_kind kind,
                                          uint64_t key, const char *name);

void manifest_message(struct tc_client *c, int64_t t, const char *text);
void manifest_appinfo(struct tc_client *c, const char *text);

/* Note a timed event at tick t (tracks the last event time). */
void manifest_time(struct tc_client *c, int64_t t);
/* The same for a time already in server nanoseconds (GPU times). */
void manifest_time_ns(struct tc_client *c, int64_t ns);

/* A call stack the server interns (by content hash; duplicates ignored). */
void manifest_callstack(struct tc_client *c, uint64_t hash);
/* An allocated (Lua-style) frame the server interns, by content hash. */
void manifest_alloc_frame(struct tc_client *c, uint64_t hash);
/* A source file sent on a SourceCode query (files sent twice count once). */
void manifest_source_file(struct tc_client *c, const char *file, size_t bytes);
/* A GPU zone as csvexport -g reports it (server ns); name is borrowed. */
void manifest_gpu_zone(struct tc_client *c, int64_t start_ns, int64_t duration_ns,
                       const char *name);

/* Zones begun so far (closed with end > start, or still open). */
uint64_t manifest_zones_sent(const struct tc_client *c);

/* Client ticks to server nanoseconds (timerMul is 1, origin initBegin). */
int64_t manifest_ns(const struct tc_client *c, int64_t t);

/* True if a message was already recorded at exactly tick t. */
bool manifest_message_time_taken(const struct tc_client *c, int64_t t);

bool manifest_write(struct tc_client *c, const char *path);

#endif
