/* tfile.h - the .tracy container writer: the payload is cut into 64 KiB
 * chunks, chunk k is compressed by stream k mod N (each stream one
 * continuous zstd frame flushed per chunk, or one LZ4 block stream whose
 * blocks refer back to the stream's previous one) and written as u32 size
 * + bytes after the 6-byte header, whose type byte says zstd (1) or LZ4
 * (0) (tracy-file-0.14.md section 1). The legacy container of 0.10 is the
 * same with one stream after a 4-byte magic that alone says the codec,
 * 'tZst' or 'tlZ' 4 (tracy-file-older.md section 1.2).
 *
 * Compression runs on worker threads while the caller goes on producing
 * the payload; blocks are written in chunk order. The stream count is a
 * property of the file (upstream writes 4); the worker count is one of the
 * machine: any worker compresses the next chunk of any free stream, so a
 * 2-core machine runs two compressors over the four streams. With
 * streams 0, one stream is compressed on the caller's thread (no threads
 * at all; for the fuzz targets, which write a file per input); with
 * workers 0, all of them are (the daemon's saves, on its pool), a stream
 * at a time over the chunks waiting in the slots. */
#ifndef TC_TFILE_H
#define TC_TFILE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define TFILE_CHUNK 65536
#define TFILE_MAX_STREAMS 255     /* the header's byte; upstream's limit too */
#define TFILE_SLOTS 128         /* chunks in flight (compressing or waiting to be written; their buffers taken as needed) */
#define TFILE_OUT_BATCH (1u << 20)  /* the FILE gets writes of this size at its multiples */

typedef struct {
    uint8_t *in;                /* TFILE_CHUNK bytes */
    size_t in_len;
    uint8_t *out;               /* compressed block */
    size_t out_len;
    bool ready;                 /* compressed, waiting to be written */
    bool failed;
    bool out_of_memory;         /* failed: zstd could not allocate */
} tfile_slot_t;

typedef struct tfile tfile_t;

/* The compressors upstream's container has (tracy-update -z, -4, -h, -e). */
typedef enum {
    TFILE_ZSTD,                 /* at a level (ZSTD_minCLevel() .. ZSTD_maxCLevel()) */
    TFILE_LZ4,                  /* LZ4, acceleration 1 */
    TFILE_LZ4HC,                /* LZ4 HC at its default level, 9 */
    TFILE_LZ4_EXTREME,          /* LZ4 HC at its highest level, 12 */
} tfile_codec_t;

/* What a container is written with. */
typedef struct {
    tfile_codec_t codec;
    int level;                  /* zstd's level (other codecs: unused) */
    int streams;                /* 1..TFILE_MAX_STREAMS; 0: one, compressed without threads */
    int workers;                /* compression threads; 0: the caller's thread */
    bool legacy;                /* the 0.10 container: one stream, no type or count byte */
    bool direct;                /* a regular file: its whole batches written around the page cache, by a thread of the file's */
    const atomic_int *spare;    /* workers 0: the caller's pool's idle threads (pool_spare), or NULL */
} tfile_params_t;

/* A stream's compressor: its context and, for LZ4, the previous block it
 * refers back to (kept here, as the block's slot is reused meanwhile). */
typedef struct {
    void *cx;                   /* ZSTD_CCtx, LZ4_stream_t or LZ4_streamHC_t */
    char *dict;                 /* LZ4: TFILE_CHUNK bytes */
    uint64_t next;              /* the stream's next chunk to compress */
    bool busy;                  /* a worker compresses one of its chunks */
} tfile_stream_t;

typedef struct {
    tfile_t *t;
    pthread_t thread;
    bool started;
    int cur;                    /* the stream it compressed last, or -1 */
} tfile_worker_t;

struct tfile {
    FILE *fp;
    int streams, workers;
    tfile_codec_t codec;
    bool sync;                  /* compress on the caller's thread (streams 0) */
    const atomic_int *spare;    /* sync: a helper takes half a round while this is > 0 */
    pthread_t helper;
    int helper_state;           /* 0: not started, 1: running, -1: could not start */
    bool help_asked;            /* the helper has streams help_from.. of chunks [help_lo, help_hi) */
    int help_from;
    uint64_t help_lo, help_hi;
    uint64_t rounds_helped;     /* rounds the helper took part in (tests) */
    tfile_stream_t *s;          /* `streams` of them */
    tfile_worker_t *w;          /* `workers` of them */
    pthread_cond_t work;        /* a chunk to compress, or closing */
    tfile_slot_t slot[TFILE_SLOTS];
    size_t outcap;
    uint64_t produced;          /* chunks handed to the compressors */
    uint64_t written;           /* chunks written to the file */
    bool closing;
    bool waiting;               /* the producer waits for a block... */
    uint64_t waiting_for;       /* ...this one, the next to write */
    pthread_mutex_t lock;
    pthread_cond_t done;
    uint8_t *out;               /* file bytes not yet handed to the FILE (see tfile.c) */
    size_t out_used;
    uint8_t *stage;             /* the chunk being filled: stage_buf, or in sync mode the next slot's input */
    uint8_t *stage_buf;         /* memory this thread keeps warm, copied into a slot once full */
    size_t used;
    uint64_t nchunks;
    uint64_t payload_bytes, file_bytes;
    uint64_t writeback_from;    /* file bytes before this are being written back */
    int dfd;                    /* direct: the file opened O_DIRECT, or -1 */
    bool direct;                /* ...it was: the FILE's offset is set before each write of its own */
    uint64_t out_at;            /* the file offset of out[0] (direct's) */
    /* Direct's write-behind: a thread of its own writes one whole batch
     * at a time while this one goes on filling the next. */
    pthread_t wb_thread;
    int wb_state;               /* 0: not started, 1: running, -1: could not start */
    pthread_mutex_t wb_lock;
    pthread_cond_t wb_cond;
    uint8_t *wb_buf;            /* the batch handed over (being written, or its outcome not yet taken) */
    uint8_t *wb_spare;          /* a batch buffer to go on in */
    uint64_t wb_at;             /* wb_buf's file offset */
    bool wb_pending;            /* the thread has wb_buf to write */
    bool wb_quit;
    int wb_err;                 /* the outcome: 0, an errno, or WB_REFUSED (tfile.c) */
    uint64_t batches_behind;    /* batches written behind (tests) */
    int err;                    /* errno of the first failure */
    const char *err_what;
    char what_buf[80];          /* err_what, when it names a block */
};

/* Start a container on an open stream as p says, with p->workers
 * compression threads (at most one per stream; streams 0: one stream,
 * compressed without threads; workers 0: every stream compressed on the
 * caller's thread; legacy: one stream, by one worker unless streams is 0).
 * Workers that cannot start (ulimit -v) leave the work to the ones that
 * did, or with none to the caller's thread. Returns 0, or -1 (errno set)
 * with nothing left to close. */
int tfile_open_with(tfile_t *t, FILE *fp, const tfile_params_t *p);
/* zstd at `level`, in the current container... */
int tfile_open(tfile_t *t, FILE *fp, int level, int streams, int workers);
/* ...and in the legacy one (streams 0: compressed on the caller's thread;
 * any other count: one stream, by one worker). */
int tfile_open_legacy(tfile_t *t, FILE *fp, int level, int streams);
/* "zstd 3", "LZ4", "LZ4HC", "LZ4 extreme": the codec as the summary and
 * --help name it. */
const char *tfile_codec_name(tfile_codec_t codec, int level, char *buf, size_t len);
/* The compression threads worth running on this machine for `streams`:
 * one per online CPU, at most one per stream. */
int tfile_workers_for(int streams);
/* Append payload bytes. Failures are remembered and reported by close. */
void tfile_write_slow(tfile_t *t, const void *p, size_t n);
static inline void tfile_write(tfile_t *t, const void *p, size_t n)
{
    if (__builtin_expect(t->used + n < TFILE_CHUNK, 1)) {
        memcpy(t->stage + t->used, p, n);
        t->used += n;
        t->payload_bytes += n;
        return;
    }
    tfile_write_slow(t, p, n);
}
/* Room for n bytes in the chunk being filled, to build a record in place,
 * or NULL when the chunk has less room left (then build it elsewhere and
 * tfile_write it). A record built in a buffer of its own, field by field,
 * and then copied in is read back by the copy's wide loads before its
 * narrow stores have reached the cache: the loads wait for them (a
 * store-forwarding stall, half of the zones' write loop). */
static inline uint8_t *tfile_room(tfile_t *t, size_t n)
{
    if (__builtin_expect(t->used + n < TFILE_CHUNK, 1)) {
        uint8_t *p = t->stage + t->used;
        t->used += n;
        t->payload_bytes += n;
        return p;
    }
    return NULL;
}
/* Flush the last chunk, wait for the compressors and release them (the
 * FILE stays open). Returns 0 or -1 with t->err / t->err_what set (a
 * compressor that ran out of memory: ENOMEM, and err_what names the
 * block and its stream). */
int tfile_close(tfile_t *t);

static inline void tfile_u8(tfile_t *t, uint8_t v) { tfile_write(t, &v, 1); }
static inline void tfile_u16(tfile_t *t, uint16_t v) { tfile_write(t, &v, 2); }
static inline void tfile_u32(tfile_t *t, uint32_t v) { tfile_write(t, &v, 4); }
static inline void tfile_u64(tfile_t *t, uint64_t v) { tfile_write(t, &v, 8); }
static inline void tfile_i64(tfile_t *t, int64_t v) { tfile_write(t, &v, 8); }
static inline void tfile_f64(tfile_t *t, double v) { tfile_write(t, &v, 8); }
static inline void tfile_int24(tfile_t *t, uint32_t v) { uint8_t b[3] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16) }; tfile_write(t, b, 3); }

#endif
