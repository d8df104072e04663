/* tfile.c - .tracy container writer with its compression threads (see
 * tfile.h).
 *
 * The producer fills chunk k into slot k % TFILE_SLOTS and hands it over;
 * a free worker compresses it with stream k % N's context once the
 * stream's earlier chunks are done (a zstd or LZ4 stream is sequential);
 * the producer writes finished blocks in chunk order and waits when all
 * slots are in flight. */
#include "tfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <lz4.h>
#include <lz4hc.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "util.h"

/* The file is handed to the FILE, and so to the kernel, in writes of
 * TFILE_OUT_BATCH bytes at multiples of it: ext4 zeroes the rest of a new page-cache folio
 * that a write covers only in part, and with large folios the FILE's
 * 4 KiB writes of the small blocks of a zone-heavy session made that
 * zeroing 0.37 s of the 100 M-zone save (perf: zero_user_segments). */

static void fail(tfile_t *t, int err, const char *what)
{
    if (!t->err) {
        t->err = err ? err : EIO;
        t->err_what = what;
    }
}

/* Compress a chunk into sl with a zstd stream: flushed, so that the
 * block decodes whole, the frame never ended. */
static void compress_zstd(ZSTD_CCtx *zc, tfile_slot_t *sl, size_t cap)
{
    ZSTD_inBuffer in = { sl->in, sl->in_len, 0 };
    ZSTD_outBuffer out = { sl->out, cap, 0 };
    size_t rc = ZSTD_compressStream2(zc, &out, &in, ZSTD_e_flush);
    sl->out_len = out.pos;
    sl->failed = ZSTD_isError(rc) || rc != 0 || in.pos != in.size;
    sl->out_of_memory = ZSTD_isError(rc) && ZSTD_getErrorCode(rc) == ZSTD_error_memory_allocation;
}

/* Compress a chunk into sl with an LZ4 stream, which may refer back into
 * the stream's previous chunk (a reader decodes into two buffers in turn,
 * the previous block kept in the other), then keep this chunk as the
 * next one's dictionary: its slot is reused before the stream's next
 * chunk comes. */
static void compress_lz4(tfile_codec_t codec, tfile_stream_t *st, tfile_slot_t *sl, size_t cap)
{
    const int n = (int)sl->in_len;
    int rc;
    if (codec == TFILE_LZ4) {
        rc = LZ4_compress_fast_continue(st->cx, (const char *)sl->in, (char *)sl->out, n, (int)cap, 1);
        if (rc > 0) LZ4_saveDict(st->cx, st->dict, TFILE_CHUNK);
    } else {
        rc = LZ4_compress_HC_continue(st->cx, (const char *)sl->in, (char *)sl->out, n, (int)cap);
        if (rc > 0) LZ4_saveDictHC(st->cx, st->dict, TFILE_CHUNK);
    }
    sl->out_len = rc > 0 ? (size_t)rc : 0;
    sl->failed = rc <= 0;
    sl->out_of_memory = false;
}

/* Compress chunk k with its stream's context into sl (failed, and why). */
static void compress_chunk(const tfile_t *t, uint64_t k, tfile_slot_t *sl)
{
    tfile_stream_t *st = &t->s[k % (uint64_t)t->streams];
    if (t->codec == TFILE_ZSTD) compress_zstd(st->cx, sl, t->outcap);
    else compress_lz4(t->codec, st, sl, t->outcap);
}

/* Chunk k failed to compress: say which block of which stream, and
 * whether memory ran out (zstd allocates its tables at a stream's first
 * block). */
static void fail_compressing(tfile_t *t, uint64_t k, const tfile_slot_t *sl)
{
    if (t->err) return;
    snprintf(t->what_buf, sizeof t->what_buf, "compressing block %llu (%s stream %d of %d)",
             (unsigned long long)k + 1, t->codec == TFILE_ZSTD ? "zstd" : "LZ4",
             (int)(k % (uint64_t)t->streams) + 1, t->streams);
    fail(t, sl->out_of_memory ? ENOMEM : EIO, t->what_buf);
}

/* How far past the oldest waiting chunk (in rounds of the streams) a
 * worker may stay on its stream: half the slots. */
#define STICK_AHEAD (TFILE_SLOTS / 8)

/* The stream whose next chunk worker w compresses, or -1 if no stream is
 * both ready and free. Any worker takes any stream (one at a time, each
 * stream's chunks in order), so the work spreads evenly however many
 * workers there are; a worker stays on its last stream while that one has
 * chunks ready, as switching zstd contexts costs a core its caches, but
 * not so far ahead that the oldest chunk, which the file waits for, is
 * left behind. Called with the lock. */
static int pick_stream(const tfile_t *t, const tfile_worker_t *w)
{
    int oldest = -1;
    for (int s = 0; s < t->streams; s++)
        if (!t->s[s].busy && t->s[s].next < t->produced && (oldest < 0 || t->s[s].next < t->s[oldest].next))
            oldest = s;
    const int cur = w->cur;
    if (cur >= 0 && !t->s[cur].busy && t->s[cur].next < t->produced && oldest >= 0 &&
        t->s[cur].next < t->s[oldest].next + STICK_AHEAD * (uint64_t)t->streams)
        return cur;
    return oldest;
}

#define WORKER_STACK (1u << 20)

/* Start one of the file's own threads (the helper, the write-behind) on a
 * small stack; false when it cannot start. */
static bool start_thread(pthread_t *thread, void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, WORKER_STACK);
    const bool started = pthread_create(thread, &attr, fn, arg) == 0;
    pthread_attr_destroy(&attr);
    return started;
}

/* Worker thread: compress chunks of whichever stream is ready, as they
 * come (each stream's in order: a zstd stream is sequential). */
static void *worker_main(void *arg)
{
    tfile_worker_t *w = arg;
    tfile_t *t = w->t;
    pthread_setname_np(pthread_self(), t->codec == TFILE_ZSTD ? "tc-zstd" : "tc-lz4");   /* for top -H, perf */
    pthread_mutex_lock(&t->lock);
    for (;;) {
        int s;
        while ((s = pick_stream(t, w)) < 0 && !t->closing) pthread_cond_wait(&t->work, &t->lock);
        if (s < 0) break;
        const uint64_t k = t->s[s].next;
        t->s[s].busy = true;
        w->cur = s;
        tfile_slot_t *sl = &t->slot[k % TFILE_SLOTS];
        pthread_mutex_unlock(&t->lock);

        compress_chunk(t, k, sl);

        pthread_mutex_lock(&t->lock);
        sl->ready = true;
        t->s[s].busy = false;
        t->s[s].next = k + (uint64_t)t->streams;
        /* the stream's next chunk may wait for a free worker */
        if (t->s[s].next < t->produced) pthread_cond_signal(&t->work);
        if (t->waiting && k == t->waiting_for) pthread_cond_signal(&t->done);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

int tfile_workers_for(int streams)
{
    /* One per core: with any worker taking any free stream, more workers
     * than cores only preempt each other and trade the cores' caches (on 2
     * cores, 3 workers saved the 100 M-zone session 10% slower than 2). */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1) cpus = 1;
    return streams < cpus ? streams : (int)cpus;
}

/* The container's first bytes: 'tr' 0xFD 'P', the compression type (1
 * zstd, 0 LZ4) and the stream count; or the legacy magic alone, 'tZst' or
 * 'tlZ' 4. */
static size_t container_header(uint8_t *out, bool legacy, tfile_codec_t codec, int streams)
{
    static const uint8_t legacy_zstd[4] = { 't', 'Z', 's', 't' }, legacy_lz4[4] = { 't', 'l', 'Z', 4 };
    if (legacy) {
        memcpy(out, codec == TFILE_ZSTD ? legacy_zstd : legacy_lz4, 4);
        return 4;
    }
    const uint8_t header[6] = { 't', 'r', 0xFD, 'P', codec == TFILE_ZSTD ? 1 : 0, (uint8_t)streams };
    memcpy(out, header, sizeof header);
    return sizeof header;
}

/* A stream's compression context, or NULL (out of memory). */
static void *new_context(tfile_codec_t codec, int level)
{
    switch (codec) {
    case TFILE_ZSTD: {
        ZSTD_CCtx *c = ZSTD_createCCtx();
        if (c) {
            ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
            ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
        }
        return c;
    }
    case TFILE_LZ4:
        return LZ4_createStream();
    case TFILE_LZ4HC:
    case TFILE_LZ4_EXTREME: {
        LZ4_streamHC_t *c = LZ4_createStreamHC();
        if (c) LZ4_resetStreamHC_fast(c, codec == TFILE_LZ4HC ? LZ4HC_CLEVEL_DEFAULT : LZ4HC_CLEVEL_MAX);
        return c;
    }
    }
    return NULL;
}

static void free_context(tfile_codec_t codec, void *c)
{
    if (!c) return;
    if (codec == TFILE_ZSTD) ZSTD_freeCCtx(c);
    else if (codec == TFILE_LZ4) LZ4_freeStream(c);
    else LZ4_freeStreamHC(c);
}

/* The largest block a chunk can compress to. */
static size_t block_bound(tfile_codec_t codec)
{
    return codec == TFILE_ZSTD ? ZSTD_compressBound(TFILE_CHUNK) : (size_t)LZ4_COMPRESSBOUND(TFILE_CHUNK);
}

/* The size of out (and of a batch buffer). */
static size_t out_size(const tfile_t *t) { return TFILE_OUT_BATCH + 4 + t->outcap; }

/* p->direct: the file opened a second time, O_DIRECT, for the whole
 * batches, which then go to the disk without a copy into the page cache
 * (on a VM, that copy costs up to 3 s of CPU per GB while the cache takes
 * pages the guest has not touched before); the last, partial one goes
 * through the FILE's descriptor at its place. A file system that refuses
 * leaves every write to the FILE. */
static void open_direct(tfile_t *t)
{
    t->dfd = -1;
#ifdef O_DIRECT
    const int fd = fileno(t->fp);
    struct stat st;
    const off_t at = fd >= 0 ? lseek(fd, 0, SEEK_CUR) : -1;
    if (at < 0 || at % TFILE_OUT_BATCH != 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    t->dfd = open(self, O_WRONLY | O_DIRECT | O_CLOEXEC);
    t->direct = t->dfd >= 0;
    t->out_at = (uint64_t)at;
#endif
}

static void stage_in_slot(tfile_t *t);

int tfile_open_with(tfile_t *t, FILE *fp, const tfile_params_t *p)
{
    const bool legacy = p->legacy;
    const int streams = legacy && p->streams != 0 ? 1 : p->streams;
    const int workers = legacy && p->workers > 1 ? 1 : p->workers;
    memset(t, 0, sizeof *t);
    t->codec = p->codec;
    t->fp = fp;
    /* A FILE on a file descriptor would cut each batch's first 4 KiB off
     * as a write of its own: tfile does the buffering. (A memory stream
     * has no descriptor, and needs its buffer.) */
    if (fileno(fp) >= 0) setvbuf(fp, NULL, _IONBF, 0);
    t->sync = streams == 0 || workers == 0;
    t->spare = t->sync && streams != 0 ? p->spare : NULL;
    t->streams = streams < 1 ? 1 : streams > TFILE_MAX_STREAMS ? TFILE_MAX_STREAMS : streams;
    t->workers = t->sync ? 0 : workers < 1 ? 1 : workers > t->streams ? t->streams : workers;
    t->outcap = block_bound(t->codec);
    t->s = xcalloc((size_t)t->streams, sizeof *t->s);
    t->w = xcalloc((size_t)t->workers + 1, sizeof *t->w);
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->done, NULL);
    pthread_cond_init(&t->work, NULL);
    pthread_mutex_init(&t->wb_lock, NULL);
    pthread_cond_init(&t->wb_cond, NULL);
    for (int i = 0; i < t->streams; i++) {
        tfile_stream_t *st = &t->s[i];
        st->cx = new_context(t->codec, p->level);
        if (t->codec != TFILE_ZSTD) st->dict = malloc(TFILE_CHUNK);
        if (!st->cx || (t->codec != TFILE_ZSTD && !st->dict)) {
            tfile_close(t);
            errno = ENOMEM;
            return -1;
        }
        st->next = (uint64_t)i;
    }
    /* A compressor needs little stack, and the save comes when memory is
     * tightest: not the default (ulimit -s, often 8 MB of address space
     * each under ulimit -v). */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, WORKER_STACK);
    for (int i = 0; i < t->workers; i++) {
        tfile_worker_t *w = &t->w[i];
        w->t = t;
        w->cur = -1;
        w->started = pthread_create(&w->thread, &attr, worker_main, w) == 0;
        if (!w->started) {
            /* (ulimit -v) the ones started do the work; with none, this
             * thread does, as with streams 0 */
            t->workers = i;
            t->sync = i == 0;
            break;
        }
    }
    pthread_attr_destroy(&attr);
    t->stage = t->stage_buf = xmalloc(TFILE_CHUNK);
    if (t->sync) stage_in_slot(t);
    /* aligned for O_DIRECT */
    if (posix_memalign((void **)&t->out, 4096, out_size(t)) != 0) out_of_memory(TFILE_OUT_BATCH);
    t->dfd = -1;
    if (p->direct) open_direct(t);
    t->out_used = container_header(t->out, legacy, t->codec, t->streams);
    t->file_bytes = t->out_used;
    return 0;
}

int tfile_open(tfile_t *t, FILE *fp, int level, int streams, int workers)
{
    const tfile_params_t p = { .codec = TFILE_ZSTD, .level = level, .streams = streams, .workers = workers };
    return tfile_open_with(t, fp, &p);
}

int tfile_open_legacy(tfile_t *t, FILE *fp, int level, int streams)
{
    const tfile_params_t p = { .codec = TFILE_ZSTD, .level = level, .streams = streams, .workers = 1, .legacy = true };
    return tfile_open_with(t, fp, &p);
}

const char *tfile_codec_name(tfile_codec_t codec, int level, char *buf, size_t len)
{
    switch (codec) {
    case TFILE_ZSTD: snprintf(buf, len, "zstd %d", level); break;
    case TFILE_LZ4: snprintf(buf, len, "LZ4"); break;
    case TFILE_LZ4HC: snprintf(buf, len, "LZ4HC"); break;
    case TFILE_LZ4_EXTREME: snprintf(buf, len, "LZ4 extreme"); break;
    }
    return buf;
}

/* pwrite_batch's "the file system refuses O_DIRECT after all". */
#define WB_REFUSED (-1)

/* n bytes at file offset `at` on an O_DIRECT descriptor: 0, WB_REFUSED
 * (EINVAL before any byte), or the errno of the failure. */
static int pwrite_batch(int fd, const uint8_t *b, size_t n, uint64_t at)
{
    for (size_t done = 0; done < n;) {
        const ssize_t k = pwrite(fd, b + done, n - done, (off_t)(at + done));
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && errno == EINVAL && done == 0) return WB_REFUSED;
        if (k <= 0) return k < 0 ? errno : EIO;
        done += (size_t)k;
    }
    return 0;
}

/* A batch's direct write came back `err`: a refusal gives the descriptor
 * up and leaves the batch to the FILE, at its place; a failure is the
 * file's. */
static void took_direct(tfile_t *t, int err, const uint8_t *b, size_t n, uint64_t at)
{
    if (err == WB_REFUSED) {
        close(t->dfd);
        t->dfd = -1;
        if (lseek(fileno(t->fp), (off_t)at, SEEK_SET) < 0 || fwrite(b, 1, n, t->fp) != n) fail(t, errno, "writing a block");
    } else if (err) {
        fail(t, err, "writing a block");
    }
}

/* The write-behind thread: each batch handed over, until the file closes. */
static void *writer_main(void *arg)
{
    tfile_t *t = arg;
    pthread_setname_np(pthread_self(), "tc-file-write");
    pthread_mutex_lock(&t->wb_lock);
    for (;;) {
        while (!t->wb_pending && !t->wb_quit) pthread_cond_wait(&t->wb_cond, &t->wb_lock);
        if (!t->wb_pending) break;
        const uint8_t *b = t->wb_buf;
        const uint64_t at = t->wb_at;
        pthread_mutex_unlock(&t->wb_lock);
        const int err = pwrite_batch(t->dfd, b, TFILE_OUT_BATCH, at);
        pthread_mutex_lock(&t->wb_lock);
        t->wb_err = err;
        t->wb_pending = false;
        pthread_cond_signal(&t->wb_cond);
    }
    pthread_mutex_unlock(&t->wb_lock);
    return NULL;
}

/* Wait for the batch handed over, if any, and take its outcome; its
 * buffer becomes the spare. */
static void settle_behind(tfile_t *t)
{
    if (t->wb_state != 1) return;
    pthread_mutex_lock(&t->wb_lock);
    while (t->wb_pending) pthread_cond_wait(&t->wb_cond, &t->wb_lock);
    pthread_mutex_unlock(&t->wb_lock);
    if (!t->wb_buf) return;
    took_direct(t, t->wb_err, t->wb_buf, TFILE_OUT_BATCH, t->wb_at);
    free(t->wb_spare);
    t->wb_spare = t->wb_buf;
    t->wb_buf = NULL;
}

/* Hand the first batch of out to the write-behind thread (started the
 * first time) and go on in a spare buffer with the rest: the compressing
 * thread never waits for the disk but for the batch before. False when
 * that cannot be (no thread, no memory, the direct descriptor given up):
 * the caller writes it. */
static bool write_behind(tfile_t *t)
{
    if (t->wb_state == 0) t->wb_state = start_thread(&t->wb_thread, writer_main, t) ? 1 : -1;
    if (t->wb_state != 1) return false;
    settle_behind(t);
    if (t->err || t->dfd < 0) return false;
    if (!t->wb_spare && posix_memalign((void **)&t->wb_spare, 4096, out_size(t)) != 0) {
        t->wb_spare = NULL;
        return false;
    }
    uint8_t *full = t->out;
    const size_t rest = t->out_used - TFILE_OUT_BATCH;
    memcpy(t->wb_spare, full + TFILE_OUT_BATCH, rest);
    t->out = t->wb_spare;
    t->wb_spare = NULL;
    pthread_mutex_lock(&t->wb_lock);
    t->wb_buf = full;
    t->wb_at = t->out_at;
    t->wb_pending = true;
    pthread_cond_signal(&t->wb_cond);
    pthread_mutex_unlock(&t->wb_lock);
    t->out_at += TFILE_OUT_BATCH;
    t->out_used = rest;
    t->batches_behind++;
    return true;
}

/* Stop the write-behind thread, its last batch written (what is left is
 * written on this thread). */
static void stop_behind(tfile_t *t)
{
    settle_behind(t);
    if (t->wb_state == 1) {
        pthread_mutex_lock(&t->wb_lock);
        t->wb_quit = true;
        pthread_cond_signal(&t->wb_cond);
        pthread_mutex_unlock(&t->wb_lock);
        pthread_join(t->wb_thread, NULL);
    }
    t->wb_state = -1;
}

/* The first n bytes of out to the file: whole batches around the page
 * cache where p->direct could open it so (behind this thread's back when
 * it can), the rest (the file's end) through the FILE, whose descriptor is
 * then first put at their place. */
static void write_out(tfile_t *t, size_t n)
{
    if (!t->err && t->dfd >= 0 && n == TFILE_OUT_BATCH && write_behind(t)) return;
    /* (the batch before may have given the direct descriptor up) */
    if (t->err) {
        /* nothing more is written: close reports the failure */
    } else if (t->dfd >= 0 && n == TFILE_OUT_BATCH) {
        took_direct(t, pwrite_batch(t->dfd, t->out, n, t->out_at), t->out, n, t->out_at);
    } else if (t->direct && lseek(fileno(t->fp), (off_t)t->out_at, SEEK_SET) < 0) {
        fail(t, errno, "writing a block");
    } else if (fwrite(t->out, 1, n, t->fp) != n) {
        fail(t, errno, "writing a block");
    }
    t->out_at += n;
    memmove(t->out, t->out + n, t->out_used - n);
    t->out_used -= n;
}

/* Start the kernel writing back what is written so far, every few MB, so
 * that the fsync before the rename has only the tail left to wait for. */
#define WRITEBACK_STEP (8u << 20)

static void start_writeback(tfile_t *t)
{
    if (t->dfd >= 0 || t->file_bytes - t->writeback_from < WRITEBACK_STEP) return;
#ifdef SYNC_FILE_RANGE_WRITE
    if (fflush(t->fp) == 0)
        (void)sync_file_range(fileno(t->fp), (off_t)t->writeback_from, 0, SYNC_FILE_RANGE_WRITE);
#endif
    t->writeback_from = t->file_bytes - t->out_used;    /* the rest is still in t->out */
}

/* Write every finished block that is next in order; with `wait_for`,
 * block until chunk `wait_for` has been written. Called with the lock. */
static void write_ready(tfile_t *t, uint64_t wait_for)
{
    while (t->written < t->produced) {
        tfile_slot_t *sl = &t->slot[t->written % TFILE_SLOTS];
        if (!sl->ready) {
            if (t->written > wait_for || wait_for == UINT64_MAX) break;
            t->waiting = true;
            t->waiting_for = t->written;   /* only this chunk lets it go on */
            pthread_cond_wait(&t->done, &t->lock);
            t->waiting = false;
            continue;
        }
        /* The block stays put until this thread frees its slot, so the
         * workers need not wait for the write. */
        pthread_mutex_unlock(&t->lock);
        if (sl->failed) fail_compressing(t, t->written, sl);
        else if (!t->err) {
            const uint32_t size = (uint32_t)sl->out_len;
            memcpy(t->out + t->out_used, &size, 4);
            memcpy(t->out + t->out_used + 4, sl->out, sl->out_len);
            t->out_used += 4 + sl->out_len;
            t->file_bytes += 4 + sl->out_len;
            if (t->out_used >= TFILE_OUT_BATCH) {
                write_out(t, TFILE_OUT_BATCH);
                start_writeback(t);
            }
        }
        pthread_mutex_lock(&t->lock);
        sl->ready = false;
        t->written++;
    }
}

/* Compressing on the caller's thread, the chunks waiting in the slots
 * are compressed a stream at a time, each stream's in order: going from
 * one stream's context to the next at every chunk keeps every context's
 * tables and window (some 3 MB each at zstd level 3) in the caches at
 * once, which a second core doing the same (the daemon's other save)
 * then evicts. Run by run, four streams on one thread cost no more than
 * one: each context is used for TFILE_SLOTS / streams chunks in a row.
 * The blocks are the same as compressed chunk by chunk. */
static void compress_streams(tfile_t *t, int from, int to, uint64_t lo, uint64_t hi)
{
    const uint64_t n = (uint64_t)t->streams;
    for (uint64_t s = (uint64_t)from; s < (uint64_t)to; s++) {
        for (uint64_t k = lo + (s + n - lo % n) % n; k < hi; k += n) compress_chunk(t, k, &t->slot[k % TFILE_SLOTS]);
    }
}

/* The helper: the upper half of the streams of each round it is asked
 * into, until the file closes. */
static void *helper_main(void *arg)
{
    tfile_t *t = arg;
    pthread_setname_np(pthread_self(), "tc-zstd-help");
    pthread_mutex_lock(&t->lock);
    for (;;) {
        while (!t->help_asked && !t->closing) pthread_cond_wait(&t->work, &t->lock);
        if (!t->help_asked) break;
        const int from = t->help_from;
        const uint64_t lo = t->help_lo, hi = t->help_hi;
        pthread_mutex_unlock(&t->lock);
        compress_streams(t, from, t->streams, lo, hi);
        pthread_mutex_lock(&t->lock);
        t->help_asked = false;
        pthread_cond_signal(&t->done);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

/* Whether a helper may take part in this round: the caller's pool has a
 * thread with nothing to do, and the helper runs (started the first time
 * it is wanted). */
static bool helper_wanted(tfile_t *t)
{
    if (t->streams < 2 || !t->spare || atomic_load_explicit(t->spare, memory_order_relaxed) <= 0) return false;
    if (t->helper_state == 0) t->helper_state = start_thread(&t->helper, helper_main, t) ? 1 : -1;
    return t->helper_state == 1;
}

/* Compress every chunk waiting in the slots (sync mode, with the lock;
 * the caller's thread alone touches the slots meanwhile, so the lock is
 * let go while compressing). */
static void compress_waiting(tfile_t *t)
{
    const uint64_t lo = t->written, hi = t->produced;
    int split = t->streams;
    if (helper_wanted(t)) {
        split = t->streams / 2;
        t->help_from = split;
        t->help_lo = lo;
        t->help_hi = hi;
        t->help_asked = true;
        t->rounds_helped++;
        pthread_cond_signal(&t->work);
    }
    pthread_mutex_unlock(&t->lock);
    compress_streams(t, 0, split, lo, hi);
    pthread_mutex_lock(&t->lock);
    while (t->help_asked) pthread_cond_wait(&t->done, &t->lock);
    for (uint64_t k = lo; k < hi; k++) t->slot[k % TFILE_SLOTS].ready = true;
}

/* A slot's buffers, taken when it is first used, so that a small file
 * (a fuzz target writes one per input) takes only the slots it fills.
 * False, the failure remembered, when memory ran out. */
static bool slot_buffers(tfile_t *t, tfile_slot_t *sl)
{
    if (sl->in) return true;
    sl->in = malloc(TFILE_CHUNK);
    sl->out = sl->in ? malloc(t->outcap) : NULL;
    if (sl->out) return true;
    free(sl->in);
    sl->in = NULL;
    fail(t, ENOMEM, "allocating the compression buffers");
    return false;
}

/* Compressing on this thread (sync mode), the chunk is filled in place
 * in the next slot's input, which is free (see emit_chunk): no other core
 * reads it, so there is nothing to gain from filling warm memory and
 * copying it in (for the 100 M-zone session, 2.6 GB copied). Where the
 * slot's buffers cannot be had yet, stage_buf takes the chunk, as with
 * workers (and emit_chunk tries again, and says so). */
static void stage_in_slot(tfile_t *t)
{
    tfile_slot_t *sl = &t->slot[t->produced % TFILE_SLOTS];
    if (!sl->in && (sl->in = malloc(TFILE_CHUNK)) != NULL && !(sl->out = malloc(t->outcap))) {
        free(sl->in);
        sl->in = NULL;
    }
    t->stage = sl->in ? sl->in : t->stage_buf;
}

/* Hand the filled chunk to its stream; take the next slot (`more`: a
 * chunk follows). */
static void emit_chunk(tfile_t *t, bool more)
{
    if (t->used == 0) return;
    tfile_slot_t *sl = &t->slot[t->produced % TFILE_SLOTS];
    if (t->stage != sl->in && !slot_buffers(t, sl)) {
        t->used = 0;            /* nothing more is written: close reports it */
        return;
    }
    /* The slot is free (see below): unless the chunk is there already,
     * copy it in with one block copy, which writes memory the workers'
     * cores last read without fetching it first, as the payload's many
     * small writes would. */
    if (t->stage != sl->in) memcpy(sl->in, t->stage, t->used);
    pthread_mutex_lock(&t->lock);
    sl->in_len = t->used;
    if (!t->sync) pthread_cond_signal(&t->work);
    t->produced++;
    if (t->sync && t->produced - t->written == TFILE_SLOTS) compress_waiting(t);
    /* The next slot must be free: its previous chunk written. When it is
     * not, wait until a few more are, so that the workers wake this thread
     * once per few chunks, not per chunk. */
    const uint64_t need = t->produced >= TFILE_SLOTS ? t->produced - TFILE_SLOTS : UINT64_MAX;
    if (need != UINT64_MAX && t->written <= need) {
        const uint64_t more = need + TFILE_SLOTS / 4;
        write_ready(t, more < t->produced ? more : t->produced - 1);
    } else {
        write_ready(t, UINT64_MAX);
    }
    pthread_mutex_unlock(&t->lock);
    t->nchunks++;
    t->used = 0;
    if (t->sync && more) stage_in_slot(t);
}

void tfile_write_slow(tfile_t *t, const void *p, size_t n)
{
    const uint8_t *b = p;
    t->payload_bytes += n;
    while (n > 0) {
        size_t take = TFILE_CHUNK - t->used < n ? TFILE_CHUNK - t->used : n;
        memcpy(t->stage + t->used, b, take);
        t->used += take;
        b += take;
        n -= take;
        if (t->used == TFILE_CHUNK) emit_chunk(t, true);
    }
}

int tfile_close(tfile_t *t)
{
    emit_chunk(t, false);
    pthread_mutex_lock(&t->lock);
    if (t->sync) compress_waiting(t);
    if (t->produced) write_ready(t, t->produced - 1);
    stop_behind(t);
    if (t->out) write_out(t, t->out_used);
    t->closing = true;
    pthread_cond_broadcast(&t->work);
    pthread_mutex_unlock(&t->lock);
    for (int i = 0; i < t->workers; i++) {
        if (t->w[i].started) pthread_join(t->w[i].thread, NULL);
    }
    if (t->helper_state == 1) pthread_join(t->helper, NULL);
    for (int i = 0; i < t->streams; i++) {
        free_context(t->codec, t->s[i].cx);
        free(t->s[i].dict);
    }
    free(t->s);
    free(t->w);
    for (int i = 0; i < TFILE_SLOTS; i++) {
        free(t->slot[i].in);
        free(t->slot[i].out);
    }
    free(t->stage_buf);
    free(t->out);
    free(t->wb_spare);
    if (t->dfd >= 0) close(t->dfd);
    pthread_mutex_destroy(&t->lock);
    pthread_cond_destroy(&t->done);
    pthread_cond_destroy(&t->work);
    pthread_mutex_destroy(&t->wb_lock);
    pthread_cond_destroy(&t->wb_cond);
    return t->err ? -1 : 0;
}
