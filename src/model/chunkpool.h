/* chunkpool.h - memory chunks for the zone logs, allocated and touched
 * (page-faulted) ahead of time on another thread, so that the thread
 * building the model does not pay for fresh pages. The pool's own thread
 * (chunkpool_start) fills it up after every take, at idle priority: it uses
 * time the cores have to spare (on a VM, a fresh page can cost a few
 * microseconds), and never delays the decoding or the model. The model takes
 * from it without waiting and falls back to malloc when it is empty. The
 * pool starts one chunk deep and doubles its depth, up to max_depth, each
 * time a take finds it empty, so a session with few zones holds one spare
 * chunk, not max_depth. One thread takes; one fills at a time. */
#ifndef TC_CHUNKPOOL_H
#define TC_CHUNKPOOL_H

#include <stddef.h>

typedef struct chunkpool chunkpool_t;

chunkpool_t *chunkpool_new(size_t chunk_size, int max_depth);
/* A ready chunk of chunk_size bytes (the caller owns it), or NULL. */
void *chunkpool_take(chunkpool_t *p);
/* Start the thread that keeps the pool filled. Returns 0, or the errno of
 * pthread_create: then the pool stays empty unless chunkpool_refill is
 * called, and everything works. */
int chunkpool_start(chunkpool_t *p);
/* Top the pool up now, on the calling thread (with no thread started). */
void chunkpool_refill(chunkpool_t *p);
size_t chunkpool_size(const chunkpool_t *p);
/* The bytes of the chunks ready in the pool (NULL: none). */
size_t chunkpool_memory(chunkpool_t *p);
/* Free the pool and the chunks still in it. */
void chunkpool_free(chunkpool_t *p);

#endif
