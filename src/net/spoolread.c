/* spoolread.c - a spool read back in windows, read ahead (see spoolread.h). */
#include "spoolread.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "util.h"

#define READ_ALIGN 4096u        /* a direct read's offset, length and buffer */
/* The next window is read ahead only when this much of it is on the disk
 * already (a decoder that caught up with the disk reads what is there). */
#define READ_AHEAD_MIN (1u << 20)
/* ...and it starts this much before the current one's end, so that a
 * chunk across the two is in it whole (the decoder's chunks are reads of
 * up to 256 KiB, conn.c); a larger one is read when it is wanted. */
#define READ_AHEAD_OVERLAP (256u << 10)

/* The read-ahead thread's one request: set by the decoder thread while
 * IDLE, then read, then DONE until the decoder takes (or drops) it. */
struct spool_readahead {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    enum { RA_IDLE, RA_WANTED, RA_DONE } state;
    bool stop;
    int fd;                     /* the reader's dfd */
    uint8_t *buf;
    size_t cap;
    uint64_t at;
    size_t len, valid;          /* read len bytes; the first `valid` may be used */
    size_t n;                   /* the result: usable bytes */
    int err;
};

static uint64_t align_down(uint64_t v) { return v & ~(uint64_t)(READ_ALIGN - 1); }
static uint64_t align_up(uint64_t v) { return align_down(v + READ_ALIGN - 1); }

/* Make room for len bytes in *buf (aligned for a direct read). */
static void reserve(uint8_t **buf, size_t *cap, size_t len)
{
    if (len <= *cap) return;
    free(*buf);
    void *b;
    if (posix_memalign(&b, READ_ALIGN, len) != 0) out_of_memory(len);
    *buf = b;
    *cap = len;
}

/* Read up to len bytes at `at` into buf, at least `need`: the bytes read,
 * or -1 with *err set. A direct read stops at the file's end (a short,
 * unaligned read). */
static ssize_t read_span(int fd, bool direct, uint8_t *buf, uint64_t at, size_t len, size_t need, int *err)
{
    size_t got = 0;
    while (got < need) {
        const ssize_t k = pread(fd, buf + got, len - got, (off_t)(at + got));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            *err = k < 0 ? errno : EIO;
            return -1;
        }
        got += (size_t)k;
        if (direct && (size_t)k % READ_ALIGN) break;
    }
    if (got < need) {
        *err = EIO;
        return -1;
    }
    return (ssize_t)got;
}

static void *readahead_main(void *arg)
{
    spool_readahead_t *ra = arg;
    pthread_setname_np(pthread_self(), "tc-readback");   /* for top -H, perf */
    pthread_mutex_lock(&ra->lock);
    for (;;) {
        while (!ra->stop && ra->state != RA_WANTED) pthread_cond_wait(&ra->cond, &ra->lock);
        if (ra->stop) break;
        pthread_mutex_unlock(&ra->lock);
        int err = 0;
        const ssize_t k = read_span(ra->fd, true, ra->buf, ra->at, ra->len, ra->valid, &err);
        pthread_mutex_lock(&ra->lock);
        ra->n = k < 0 ? 0 : ra->valid;
        ra->err = k < 0 ? err : 0;
        ra->state = RA_DONE;
        pthread_cond_broadcast(&ra->cond);
    }
    pthread_mutex_unlock(&ra->lock);
    return NULL;
}

static spool_readahead_t *readahead_start(int fd)
{
    spool_readahead_t *ra = xcalloc(1, sizeof *ra);
    ra->fd = fd;
    pthread_mutex_init(&ra->lock, NULL);
    pthread_cond_init(&ra->cond, NULL);
    if (pthread_create(&ra->thread, NULL, readahead_main, ra) != 0) {
        pthread_mutex_destroy(&ra->lock);
        pthread_cond_destroy(&ra->cond);
        free(ra);
        return NULL;            /* every window read when it is wanted */
    }
    return ra;
}

static void readahead_stop(spool_readahead_t *ra)
{
    if (!ra) return;
    pthread_mutex_lock(&ra->lock);
    ra->stop = true;
    pthread_cond_broadcast(&ra->cond);
    pthread_mutex_unlock(&ra->lock);
    pthread_join(ra->thread, NULL);
    pthread_mutex_destroy(&ra->lock);
    pthread_cond_destroy(&ra->cond);
    free(ra->buf);
    free(ra);
}

/* Wait for the request in flight, if any, and take its result: whether
 * there was one (then the request is IDLE again, its buffer ours). */
static bool readahead_collect(spool_readahead_t *ra)
{
    pthread_mutex_lock(&ra->lock);
    while (ra->state == RA_WANTED) pthread_cond_wait(&ra->cond, &ra->lock);
    const bool done = ra->state == RA_DONE;
    ra->state = RA_IDLE;
    pthread_mutex_unlock(&ra->lock);
    return done;
}

/* Ask for the window after the current one, when enough of it is on the
 * disk. */
static void readahead_next(spool_reader_t *r, uint64_t on_disk)
{
    spool_readahead_t *ra = r->ra;
    const uint64_t end = r->at + r->n;
    const uint64_t from = align_down(end - r->at > READ_AHEAD_OVERLAP ? end - READ_AHEAD_OVERLAP : r->at);
    if (!ra || on_disk < from + READ_AHEAD_MIN) return;
    uint64_t to = from + SPOOL_READ_WINDOW;
    if (to > on_disk) to = on_disk;
    reserve(&ra->buf, &ra->cap, (size_t)(align_up(to) - from));   /* (IDLE: the buffer is ours) */
    pthread_mutex_lock(&ra->lock);
    ra->at = from;
    ra->len = (size_t)(align_up(to) - from);
    ra->valid = (size_t)(to - from);
    ra->state = RA_WANTED;
    pthread_cond_signal(&ra->cond);
    pthread_mutex_unlock(&ra->lock);
}

/* The window read ahead, when it holds [at, at + n): made the reader's. */
static bool take_readahead(spool_reader_t *r, uint64_t at, size_t n)
{
    spool_readahead_t *ra = r->ra;
    if (!ra || !readahead_collect(ra)) return false;
    if (ra->err || at < ra->at || at + n > ra->at + ra->n) return false;
    uint8_t *b = r->buf;
    const size_t cap = r->cap;
    r->buf = ra->buf;
    r->cap = ra->cap;
    r->at = ra->at;
    r->n = ra->n;
    ra->buf = b;
    ra->cap = cap;
    return true;
}

/* A descriptor of the spool's file that reads around the page cache, or
 * -1 (no direct spool). */
static int open_direct_reader(const spool_t *s)
{
#ifdef O_DIRECT
    return s->dfd >= 0 ? spool_reopen(s, O_RDONLY | O_DIRECT) : -1;
#else
    (void)s;
    return -1;
#endif
}

int spool_reader_open(spool_reader_t *r, const spool_t *s)
{
    *r = (spool_reader_t){ .fd = fcntl(s->fd, F_DUPFD_CLOEXEC, 0), .dfd = -1 };
    if (r->fd < 0) return errno;
    r->dfd = open_direct_reader(s);
    if (r->dfd >= 0) r->ra = readahead_start(r->dfd);
    return 0;
}

/* No more direct reads (the file system wants another alignment). */
static void give_up_direct(spool_reader_t *r)
{
    readahead_stop(r->ra);
    r->ra = NULL;
    close(r->dfd);
    r->dfd = -1;
}

/* The window moved to `at`, read around the page cache: 0 or an errno
 * value. Only bytes below on_disk count as read. */
static int fill_direct(spool_reader_t *r, uint64_t at, size_t n, uint64_t on_disk)
{
    const uint64_t from = align_down(at);
    uint64_t to = at + (n > SPOOL_READ_WINDOW ? n : SPOOL_READ_WINDOW);
    if (to > on_disk) to = on_disk;
    const size_t len = (size_t)(align_up(to) - from);
    reserve(&r->buf, &r->cap, len);
    int err = 0;
    r->at = from;
    r->n = 0;
    if (read_span(r->dfd, true, r->buf, from, len, (size_t)(to - from), &err) < 0) return err;
    r->n = (size_t)(to - from);
    return 0;
}

/* The window moved to `at`, read through the page cache (the window read
 * before leaves it: its bytes are on the disk, or go there now). */
static int fill_cached(spool_reader_t *r, uint64_t at, size_t n, uint64_t on_disk)
{
    if (r->n) (void)posix_fadvise(r->fd, (off_t)r->at, (off_t)r->n, POSIX_FADV_DONTNEED);
    size_t len = SPOOL_READ_WINDOW > n ? SPOOL_READ_WINDOW : n;
    if (len > on_disk - at) len = (size_t)(on_disk - at);
    reserve(&r->buf, &r->cap, len);
    int err = 0;
    r->at = at;
    r->n = 0;
    const ssize_t k = read_span(r->fd, false, r->buf, at, len, n, &err);
    if (k < 0) return err;
    r->n = (size_t)k;
    return 0;
}

const uint8_t *spool_reader_get(spool_reader_t *r, uint64_t at, size_t n, uint64_t on_disk, int *err)
{
    if (at >= r->at && at + n <= r->at + r->n) return r->buf + (at - r->at);
    if (at + n > on_disk) {
        *err = EIO;     /* not written yet: the caller's mistake */
        return NULL;
    }
    r->windows++;
    if (r->dfd >= 0) {
        const bool ahead = take_readahead(r, at, n);
        r->ahead += ahead;
        if (ahead || (*err = fill_direct(r, at, n, on_disk)) == 0) {
            readahead_next(r, on_disk);
            return r->buf + (at - r->at);
        }
        if (*err != EINVAL) return NULL;
        give_up_direct(r);
    }
    *err = fill_cached(r, at, n, on_disk);
    return *err ? NULL : r->buf;
}

void spool_reader_close(spool_reader_t *r)
{
    readahead_stop(r->ra);
    if (r->fd >= 0) close(r->fd);
    if (r->dfd >= 0) close(r->dfd);
    free(r->buf);
    *r = (spool_reader_t){ .fd = -1, .dfd = -1 };
}
