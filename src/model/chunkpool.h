/* chunkpool.h - memory chunks for the zone logs, allocated and touched
 * (page-faulted) ahead of time on another thread, so that the thread
 * building the model does not pay for fresh pages. The decoder thread
 * refills the pool between frames; the model takes from it and falls back
 * to malloc when it is empty. The pool starts one chunk deep and doubles
 * its depth, up to max_depth, each time a take finds it empty, so a session
 * with few zones holds one spare chunk, not max_depth. */
#ifndef TC_CHUNKPOOL_H
#define TC_CHUNKPOOL_H

#include <stddef.h>

typedef struct chunkpool chunkpool_t;

chunkpool_t *chunkpool_new(size_t chunk_size, int max_depth);
/* A ready chunk of chunk_size bytes (the caller owns it), or NULL. */
void *chunkpool_take(chunkpool_t *p);
/* Top the pool up (on the producing thread). */
void chunkpool_refill(chunkpool_t *p);
size_t chunkpool_size(const chunkpool_t *p);
/* The bytes of the chunks ready in the pool (NULL: none). */
size_t chunkpool_memory(chunkpool_t *p);
/* Free the pool and the chunks still in it. */
void chunkpool_free(chunkpool_t *p);

#endif
