/* spoolread.h - a spool read back while it is being written: the received
 * bytes the decoder let go of (netdec.c drops them from memory once they
 * are in the file), read again in their turn, in windows of a few MB, by
 * the decoder thread.
 *
 * A direct spool's file (spool_direct) is read around the page cache
 * (O_DIRECT, straight into the window's buffer: no copy and no cache pages
 * to fill and drop), and the next window is read ahead on a thread of its
 * own, so that the decoder seldom waits for the disk. Any other file is
 * read through the page cache, each window dropped from it as the next is
 * read, so that reading back holds no more of the machine's memory than a
 * window (and the cache's pages are used again: on a VM, fresh ones cost
 * much more). */
#ifndef TC_SPOOLREAD_H
#define TC_SPOOLREAD_H

#include <stddef.h>
#include <stdint.h>

#include "spool.h"

#define SPOOL_READ_WINDOW (4u << 20)

typedef struct spool_readahead spool_readahead_t;

typedef struct {
    int fd;                     /* through the page cache */
    int dfd;                    /* around it (O_DIRECT), or -1 */
    uint8_t *buf;               /* the window: file bytes [at, at + n) */
    size_t cap;
    uint64_t at;
    size_t n;
    spool_readahead_t *ra;      /* the next window's read (direct only), or NULL */
    uint64_t windows, ahead;    /* windows read; of which read ahead */
} spool_reader_t;

/* Open a reader of a readable spool (spool_t.readable), with descriptors
 * of its own. Returns 0 or an errno value. */
int spool_reader_open(spool_reader_t *r, const spool_t *s);
/* The n bytes at offset `at`, all below `on_disk` (the writer's
 * spool_on_disk, passed on): from the window, or read with the window
 * moved there. NULL, with *err the errno, when they cannot be read. */
const uint8_t *spool_reader_get(spool_reader_t *r, uint64_t at, size_t n, uint64_t on_disk, int *err);
void spool_reader_close(spool_reader_t *r);

#endif
