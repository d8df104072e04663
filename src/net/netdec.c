/* netdec.c - the decoder thread (see netdec.h). */
#include "netdec.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "csdedup.h"
#include "frame.h"
#include "proto.h"
#include "spoolread.h"
#include "util.h"

#define NETDEC_SLOTS 8          /* decoded frames in flight */
/* A direct spool's staged bytes reach the file within about this time
 * (a kill loses at most that much of a slow or pausing stream; a fast one
 * fills the stage's megabyte much sooner). */
#define SPOOL_HOLD_MS 50

/* Received bytes, in stream order. A chunk stays on the list until it is
 * both decoded and spooled; once spooled and readable from the spool's
 * file (spool_on_disk), its data may be dropped from memory (spilled) and
 * read back when its turn comes. */
typedef struct chunk {
    struct chunk *next;
    size_t n;
    size_t held;                /* the buffer's size, while it is held */
    uint8_t *data;              /* NULL once spilled */
    uint64_t spool_at;          /* spool file offset, once spooled */
    bool spooled, decoding, decoded;
} chunk_t;

struct netdec {
    pthread_t thread, spool_thread;
    bool spool_started;
    pthread_mutex_t lock;
    pthread_cond_t input, space, to_spool, ready;
    chunk_t *head, *tail;       /* every chunk not yet decoded and spooled */
    chunk_t *dec_next;          /* the next chunk to decode */
    chunk_t *spool_next;        /* the next chunk to spool */
    chunk_t *spill_next;        /* the oldest spooled chunk not yet readable from the spool */
    uint64_t on_disk;           /* spool bytes a reader may read (spool_on_disk) */
    uint64_t backlog;           /* bytes received and not decoded */
    uint64_t in_memory;         /* bytes held for chunks: buffers and headers */
    uint64_t awaiting_disk;     /* ...of which for chunks from spill_next on: spooled, not yet
                                 * on disk (a direct spool's stage), to be spilled then */
    uint64_t spilled;           /* bytes dropped from memory, read back later */
    uint64_t unspooled;         /* bytes waiting for the spool thread */
    bool input_ended, stopping, spool_stopping;
    bool spill_ok;              /* the spool holds everything so far */
    int spool_err;              /* the spool's write error, once it failed (lock) */
    size_t partial;             /* at END: bytes of a frame the input ended inside (lock) */
    uint64_t spilled_waiting;   /* spilled chunks not yet read back (lock) */

    frame_decoder_t frames;     /* owned by the thread */
    csdedup_t dedup;            /* owned by the thread */
    spool_reader_t reader;      /* spilled chunks read back (decoder thread) */
    uint8_t *buf[NETDEC_SLOTS];  /* FRAME_OUT_SIZE each: frames are decoded into them */
    int slot;                   /* the one the frame being decoded went to */
    bool busy[NETDEC_SLOTS];
    int nbusy;
    bool space_wanted;          /* the thread waits for free slots */
    netdec_item_t out[NETDEC_SLOTS + 2];   /* FIFO of ready items */
    size_t out_head, out_n;
    bool finished;              /* END or ERROR queued */
    uint64_t stat_frames, stat_compressed, stat_decompressed;
    char err[256];

    void (*notify)(void *);
    void *ctx;
    spool_t *spool;             /* set before the first push */
};

/* Queue an item for the loop (called with the lock held). */
static void put_item(netdec_t *d, netdec_item_t it)
{
    d->out[(d->out_head + d->out_n++) % (NETDEC_SLOTS + 2)] = it;
    pthread_cond_signal(&d->ready);
}

/* Free the chunks at the head that are decoded and spooled (lock held). */
static void collect_chunks(netdec_t *d)
{
    while (d->head && d->head->decoded && d->head->spooled) {
        chunk_t *c = d->head;
        d->head = c->next;
        if (!d->head) d->tail = NULL;
        d->in_memory -= c->held + sizeof *c;
        if (d->spill_next == c) {
            d->awaiting_disk -= c->held + sizeof *c;
            d->spill_next = c->next;
        }
        free(c->data);
        free(c);
    }
}

/* frame.c's, on the decoder thread: the free slot the next frame is
 * decoded into (waiting for one), or NULL when stopping. */
static uint8_t *take_slot(void *ctx)
{
    netdec_t *d = ctx;
    pthread_mutex_lock(&d->lock);
    /* All slots taken: sleep until half of them are free again, so that
     * the model wakes this thread once per few frames, not per frame. */
    if (d->nbusy == NETDEC_SLOTS) {
        d->space_wanted = true;
        while (!d->stopping && d->nbusy > NETDEC_SLOTS / 2) pthread_cond_wait(&d->space, &d->lock);
        d->space_wanted = false;
    }
    if (d->stopping) {
        pthread_mutex_unlock(&d->lock);
        return NULL;
    }
    int slot = 0;
    while (d->busy[slot]) slot++;
    d->busy[slot] = true;
    d->nbusy++;
    pthread_mutex_unlock(&d->lock);
    d->slot = slot;
    return d->buf[slot];
}

/* frame.c callback, on the decoder thread: the frame, decoded into its
 * slot, numbered and queued. */
static int on_frame(void *ctx, const uint8_t *p, size_t n)
{
    netdec_t *d = ctx;
    const int slot = d->slot;
    uint8_t *frame = d->buf[slot] + FRAME_HISTORY;     /* = p, ours to change */
    (void)p;
    /* numbering changes the bytes the next frame's LZ4 may refer to */
    if (csdedup_walks_next(&d->dedup)) frame_keep_history(&d->frames);
    const size_t numbered = csdedup_frame(&d->dedup, frame, n);
    netdec_item_t it = { .kind = NETDEC_FRAME, .data = frame, .n = n, .frame_no = d->frames.frames,
                         .offset = d->frames.frame_offset, .numbered = numbered, .slot = slot };
    pthread_mutex_lock(&d->lock);
    put_item(d, it);
    d->stat_frames = d->frames.frames;
    d->stat_compressed = d->frames.compressed;
    d->stat_decompressed = d->frames.decompressed;
    pthread_mutex_unlock(&d->lock);
    d->notify(d->ctx);
    return 0;
}

/* A spool that failed holds only a part of the input, and a full disk
 * needs its space for the trace: give it up once no spilled chunk waits
 * to be read back from it (lock held). Returns whether it was given up
 * just now: the caller then empties it (spool_empty) without the lock, as
 * truncating a big file takes a while and no thread uses it any more. */
static bool release_failed_spool(netdec_t *d)
{
    if (!d->spool_err || d->spool->abandoned || d->spilled_waiting > 0) return false;
    spool_abandon(d->spool);
    return true;
}

/* The bytes of chunk c: in memory, or read back from the spool. NULL if
 * the spool cannot be read (then nothing more can be decoded). */
static const uint8_t *chunk_bytes(netdec_t *d, const chunk_t *c, uint64_t on_disk)
{
    if (c->data) return c->data;
    int err = 0;
    const uint8_t *p = spool_reader_get(&d->reader, c->spool_at, c->n, on_disk, &err);
    if (!p)
        snprintf(d->err, sizeof d->err, "stream offset %" PRIu64 ": cannot read the received bytes back from %s: %s",
                 d->frames.offset, d->spool->path, strerror(err));
    return p;
}

/* Queue the item that ends the output (lock held). */
static void finish_output(netdec_t *d, netdec_kind_t kind)
{
    put_item(d, (netdec_item_t){ .kind = kind, .slot = -1 });
    d->finished = true;
}

static void *decoder_main(void *arg)
{
    netdec_t *d = arg;
    pthread_setname_np(pthread_self(), "tc-decode");   /* for top -H, perf */
    for (;;) {
        pthread_mutex_lock(&d->lock);
        while (!d->dec_next && !d->input_ended && !d->stopping) pthread_cond_wait(&d->input, &d->lock);
        if (d->stopping) {
            pthread_mutex_unlock(&d->lock);
            return NULL;
        }
        chunk_t *c = d->dec_next;
        if (!c) {
            /* input ended and all of it decoded */
            d->partial = frame_partial(&d->frames);
            finish_output(d, NETDEC_END);
            pthread_mutex_unlock(&d->lock);
            d->notify(d->ctx);
            return NULL;
        }
        c->decoding = true;
        const bool spilled = !c->data;
        const uint64_t on_disk = d->on_disk;
        pthread_mutex_unlock(&d->lock);

        const uint8_t *bytes = chunk_bytes(d, c, on_disk);
        int rc = bytes ? frame_feed(&d->frames, bytes, c->n, on_frame, d) : -1;
        if (bytes && rc < 0) snprintf(d->err, sizeof d->err, "%s", d->frames.err);

        pthread_mutex_lock(&d->lock);
        c->decoding = false;
        c->decoded = true;
        bool empty_spool = false;
        /* (a stop may have left the rest of the chunk undecoded: then it
         * still counts as waiting in the spool) */
        if (spilled && !d->stopping) {
            d->spilled_waiting--;
            empty_spool = release_failed_spool(d);
        }
        d->dec_next = c->next;
        d->backlog -= c->n;
        collect_chunks(d);
        const bool failed = rc < 0 && !d->stopping;
        if (failed) finish_output(d, NETDEC_ERROR);
        pthread_mutex_unlock(&d->lock);
        if (empty_spool) spool_empty(d->spool);
        if (failed) {
            d->notify(d->ctx);
            return NULL;
        }
        /* The backlog shrank: the connection may resume reading (it
         * checks when woken; the frames' own wake-ups came before this). */
        d->notify(d->ctx);
    }
}

/* Spill a chunk that waits to be decoded while too much waits in memory,
 * besides what waits to be on disk (lock held). */
static void maybe_spill(netdec_t *d, chunk_t *c)
{
    if (!d->spill_ok || c->decoding || c->decoded || !c->data ||
        d->in_memory - d->awaiting_disk <= NETDEC_KEEP_IN_MEMORY)
        return;
    free(c->data);
    c->data = NULL;
    d->in_memory -= c->held;
    c->held = 0;
    d->spilled += c->n;
    d->spilled_waiting++;
}

/* The spool's file holds bytes up to `on_disk` now: the chunks below it
 * may be spilled (lock held). */
static void spill_written(netdec_t *d, uint64_t on_disk)
{
    d->on_disk = on_disk;
    for (chunk_t *c = d->spill_next; c && c->spooled && c->spool_at + c->n <= on_disk; c = d->spill_next) {
        d->awaiting_disk -= c->held + sizeof *c;
        maybe_spill(d, c);
        d->spill_next = c->next;
    }
}

/* After a write: a spool that failed stops being read back, and is given
 * up as soon as nothing waits in it (then true: the caller empties it
 * without the lock). Lock held. */
static bool note_spool_error(netdec_t *d)
{
    if (!d->spool->err || d->spool_err) return false;
    d->spill_ok = false;
    d->spool_err = d->spool->err;
    return release_failed_spool(d);
}

/* The spool thread: append every chunk to the spool as it arrives, in
 * order; at netdec_stop, the ones still queued too (received, so kept). */
static void *spool_main(void *arg)
{
    netdec_t *d = arg;
    pthread_setname_np(pthread_self(), "tc-spool");
    pthread_mutex_lock(&d->lock);
    for (;;) {
        while (!d->spool_next && !d->spool_stopping) {
            /* what a direct spool holds back goes to the file once
             * nothing more came for a moment */
            if (!spool_holds_back(d->spool)) {
                pthread_cond_wait(&d->to_spool, &d->lock);
                continue;
            }
            struct timespec at;
            clock_gettime(CLOCK_REALTIME, &at);
            at.tv_nsec += SPOOL_HOLD_MS * 1000000L;
            if (at.tv_nsec >= 1000000000L) {
                at.tv_sec++;
                at.tv_nsec -= 1000000000L;
            }
            if (pthread_cond_timedwait(&d->to_spool, &d->lock, &at) == ETIMEDOUT) {
                pthread_mutex_unlock(&d->lock);
                spool_flush_stale(d->spool, 0);
                pthread_mutex_lock(&d->lock);
            }
        }
        chunk_t *c = d->spool_next;
        if (!c) break;

        /* the disk is slower than the wire for now: the page cache takes it */
        const bool behind = d->unspooled - c->n >= NETDEC_SPOOL_BEHIND;
        pthread_mutex_unlock(&d->lock);

        const uint64_t at = d->spool->bytes;
        if (behind) spool_write_now(d->spool, c->data, c->n);
        else spool_write(d->spool, c->data, c->n);      /* c->data stays until spooled */
        spool_flush_stale(d->spool, SPOOL_HOLD_MS);   /* a slow stream */
        const uint64_t on_disk = spool_on_disk(d->spool);

        pthread_mutex_lock(&d->lock);
        c->spooled = true;
        c->spool_at = at;
        if (!d->spill_next) d->spill_next = c;
        d->awaiting_disk += c->held + sizeof *c;
        d->unspooled -= c->n;
        bool empty_spool = note_spool_error(d);
        d->spool_next = c->next;
        spill_written(d, on_disk);
        collect_chunks(d);
        /* memory was freed: a reader paused for it may go on */
        const bool wake = !d->spool_stopping;
        if (empty_spool || wake) {
            pthread_mutex_unlock(&d->lock);
            if (empty_spool) spool_empty(d->spool);
            if (wake) d->notify(d->ctx);
            pthread_mutex_lock(&d->lock);
        }
    }
    pthread_mutex_unlock(&d->lock);
    /* what a direct spool still holds back goes to the file now */
    spool_flush_stale(d->spool, 0);
    pthread_mutex_lock(&d->lock);
    const bool empty_spool = note_spool_error(d);
    pthread_mutex_unlock(&d->lock);
    if (empty_spool) spool_empty(d->spool);
    return NULL;
}

/* Free what netdec_start made before its thread. */
static void free_unstarted(netdec_t *d)
{
    for (int i = 0; i < NETDEC_SLOTS; i++) free(d->buf[i]);
    frame_decoder_free(&d->frames);
    csdedup_free(&d->dedup);
    pthread_mutex_destroy(&d->lock);
    pthread_cond_destroy(&d->input);
    pthread_cond_destroy(&d->space);
    pthread_cond_destroy(&d->to_spool);
    pthread_cond_destroy(&d->ready);
    free(d);
}

netdec_t *netdec_start(uint64_t base_offset, const proto_desc_t *desc, void (*notify)(void *ctx), void *ctx,
                       int *err)
{
    netdec_t *d = xcalloc(1, sizeof *d);
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->input, NULL);
    pthread_cond_init(&d->space, NULL);
    pthread_cond_init(&d->to_spool, NULL);
    pthread_cond_init(&d->ready, NULL);
    frame_decoder_init(&d->frames, base_offset);
    csdedup_init(&d->dedup, desc);
    d->reader.fd = d->reader.dfd = -1;
    frame_decode_into(&d->frames, take_slot);
    for (int i = 0; i < NETDEC_SLOTS; i++) d->buf[i] = xmalloc(FRAME_OUT_SIZE);
    d->notify = notify;
    d->ctx = ctx;
    *err = pthread_create(&d->thread, NULL, decoder_main, d);
    if (*err) {
        free_unstarted(d);
        return NULL;
    }
    return d;
}

int netdec_spool(netdec_t *d, spool_t *spool)
{
    if (!spool || spool->fd < 0) return 0;
    /* (without a reader of its own, nothing is spilled) */
    const bool readable = spool->readable && !spool->err && spool_reader_open(&d->reader, spool) == 0;
    pthread_mutex_lock(&d->lock);
    d->spool = spool;
    d->on_disk = spool_on_disk(spool);
    d->spill_ok = readable;
    d->spool_err = spool->err;      /* it may have failed in the handshake */
    const bool empty_spool = release_failed_spool(d);
    pthread_mutex_unlock(&d->lock);
    if (empty_spool) spool_empty(spool);
    const int err = pthread_create(&d->spool_thread, NULL, spool_main, d);
    d->spool_started = err == 0;
    if (err) {
        /* no thread reads d->spool: pushed bytes count as spooled */
        pthread_mutex_lock(&d->lock);
        d->spool = NULL;
        d->spill_ok = false;
        pthread_mutex_unlock(&d->lock);
    }
    return err;
}

void netdec_push(netdec_t *d, const uint8_t *p, size_t n)
{
    if (n == 0) return;
    uint8_t *data = xmalloc(n);
    memcpy(data, p, n);
    netdec_push_owned(d, data, n, n);
}

void netdec_push_owned(netdec_t *d, uint8_t *data, size_t n, size_t size)
{
    if (n == 0) {
        free(data);
        return;
    }
    chunk_t *c = xmalloc(sizeof *c);
    *c = (chunk_t){ .n = n, .held = size, .data = data };
    pthread_mutex_lock(&d->lock);
    c->spooled = !d->spool_started;
    if (d->tail) d->tail->next = c;
    else d->head = c;
    d->tail = c;
    if (!d->dec_next) d->dec_next = c;
    if (!c->spooled && !d->spool_next) d->spool_next = c;
    if (!c->spooled) d->unspooled += n;
    d->backlog += n;
    d->in_memory += size + sizeof *c;
    pthread_cond_signal(&d->input);
    if (!c->spooled) pthread_cond_signal(&d->to_spool);
    pthread_mutex_unlock(&d->lock);
}

void netdec_end(netdec_t *d)
{
    pthread_mutex_lock(&d->lock);
    d->input_ended = true;
    pthread_cond_signal(&d->input);
    pthread_mutex_unlock(&d->lock);
}

/* Take the oldest ready item, if any (lock held). */
static bool take_item(netdec_t *d, netdec_item_t *it)
{
    if (!d->out_n) return false;
    *it = d->out[d->out_head];
    d->out_head = (d->out_head + 1) % (NETDEC_SLOTS + 2);
    d->out_n--;
    return true;
}

bool netdec_pop(netdec_t *d, netdec_item_t *it)
{
    pthread_mutex_lock(&d->lock);
    const bool got = take_item(d, it);
    pthread_mutex_unlock(&d->lock);
    return got;
}

bool netdec_pop_wait(netdec_t *d, netdec_item_t *it)
{
    pthread_mutex_lock(&d->lock);
    while (!d->out_n && !d->finished) pthread_cond_wait(&d->ready, &d->lock);
    const bool got = take_item(d, it);
    pthread_mutex_unlock(&d->lock);
    return got;
}

void netdec_release(netdec_t *d, const netdec_item_t *it)
{
    if (it->kind != NETDEC_FRAME) return;
    pthread_mutex_lock(&d->lock);
    d->busy[it->slot] = false;
    d->nbusy--;
    if (d->space_wanted && d->nbusy <= NETDEC_SLOTS / 2) pthread_cond_signal(&d->space);
    pthread_mutex_unlock(&d->lock);
}

/* One of the counters, read under the lock. */
static uint64_t read_counter(netdec_t *d, const uint64_t *counter)
{
    pthread_mutex_lock(&d->lock);
    const uint64_t n = *counter;
    pthread_mutex_unlock(&d->lock);
    return n;
}

size_t netdec_backlog(netdec_t *d) { return (size_t)read_counter(d, &d->backlog); }
size_t netdec_unspooled(netdec_t *d) { return (size_t)read_counter(d, &d->unspooled); }
uint64_t netdec_spilled(netdec_t *d) { return read_counter(d, &d->spilled); }

size_t netdec_partial(netdec_t *d)
{
    pthread_mutex_lock(&d->lock);
    const size_t n = d->partial;
    pthread_mutex_unlock(&d->lock);
    return n;
}

int netdec_spool_error(netdec_t *d)
{
    pthread_mutex_lock(&d->lock);
    const int err = d->spool_err;
    pthread_mutex_unlock(&d->lock);
    return err;
}
size_t netdec_in_memory(netdec_t *d)
{
    /* what waits for a direct spool's stage to be written is spilled (or
     * decoded) then: bounded by the stage, unless spilling failed */
    pthread_mutex_lock(&d->lock);
    const uint64_t n = d->spill_ok ? d->in_memory - d->awaiting_disk : d->in_memory;
    pthread_mutex_unlock(&d->lock);
    return (size_t)n;
}

const char *netdec_error(netdec_t *d)
{
    return d->err;
}

void netdec_stats(netdec_t *d, uint64_t *frames, uint64_t *compressed, uint64_t *decompressed)
{
    pthread_mutex_lock(&d->lock);
    *frames = d->stat_frames;
    *compressed = d->stat_compressed;
    *decompressed = d->stat_decompressed;
    pthread_mutex_unlock(&d->lock);
}

void netdec_stop(netdec_t *d)
{
    if (!d) return;
    pthread_mutex_lock(&d->lock);
    d->stopping = true;
    pthread_cond_broadcast(&d->input);
    pthread_cond_broadcast(&d->space);
    pthread_mutex_unlock(&d->lock);
    pthread_join(d->thread, NULL);
    if (d->spool_started) {
        /* the spool thread writes what is still queued, then ends */
        pthread_mutex_lock(&d->lock);
        d->spool_stopping = true;
        pthread_cond_signal(&d->to_spool);
        pthread_mutex_unlock(&d->lock);
        pthread_join(d->spool_thread, NULL);
    }
    for (chunk_t *c = d->head, *n; c; c = n) {
        n = c->next;
        free(c->data);
        free(c);
    }
    spool_reader_close(&d->reader);
    free_unstarted(d);
}
