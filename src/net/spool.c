/* spool.c - the received bytes, kept in a file while capturing (see spool.h). */
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* A FIFO or device that takes no byte for this long is given up. */
#define STALL_S 10
#define STALL_MS (STALL_S * 1000)
#define STR_(x) #x
#define STR(x) STR_(x)

/* Open path with flags, read-write if allowed, else write-only. */
static int open_rw(const char *path, int flags)
{
    int fd = open(path, O_RDWR | flags, 0644);
    if (fd < 0 && errno == EACCES) fd = open(path, O_WRONLY | flags, 0644);   /* a write-only spool */
    return fd;
}

/* An existing file at the spool's path, opened: a FIFO or device holds
 * no earlier capture and is simply used; a regular file is locked first
 * (a capture holds its spool's lock while it runs: EBUSY), then taken if
 * it is empty (left by a capture killed before any byte came, or one that
 * could not start) or with force (truncated). Returns 0 or an errno
 * value (the caller closes fd). */
static int take_existing(int fd, const struct stat *st, bool force)
{
    if (S_ISFIFO(st->st_mode) || S_ISCHR(st->st_mode)) return 0;
    if (!S_ISREG(st->st_mode)) return force ? 0 : EEXIST;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) return EBUSY;
    if (st->st_size == 0) return 0;
    if (!force) return EEXIST;
    return ftruncate(fd, 0) == 0 ? 0 : errno;
}

int spool_open(spool_t *s, const char *path, bool force)
{
    *s = (spool_t){ .fd = -1, .dfd = -1, .path = path };
    int fd = open_rw(path, O_CREAT | O_EXCL | O_CLOEXEC);
    const bool created = fd >= 0;
    if (fd < 0 && errno == EEXIST) {
        fd = open_rw(path, O_CLOEXEC);
        if (fd < 0 && !force && !is_shortage(errno)) return EEXIST;
    }
    if (fd < 0) return errno;
    struct stat st;
    int err = fstat(fd, &st) != 0 ? errno : created ? 0 : take_existing(fd, &st, force);
    /* the lock says the spool is in use (failing where locks are not
     * supported, which leaves only that protection out); a capture that
     * took the new file as an empty one left behind in the moment before
     * has it */
    if (!err && created && flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) err = EBUSY;
    if (err) {
        close(fd);
        return err;
    }
    s->fd = fd;
    s->regular = S_ISREG(st.st_mode);
    /* read back only from a regular file opened for reading (not a FIFO) */
    s->readable = (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR && s->regular;
    /* a FIFO whose reader stalls or left must not hold the capture for
     * good (spool_write) */
    if (!s->regular) (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return 0;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A full FIFO or device: wait for its reader to take something. Returns 0,
 * or an errno value: ETIMEDOUT after STALL_MS without progress, ECANCELED
 * once spool_stop_waiting was called. */
static int wait_writable(spool_t *s, int64_t since)
{
    for (;;) {
        if (atomic_load(&s->stop_waiting)) return ECANCELED;
        const int64_t left = since + STALL_MS - now_ms();
        if (left <= 0) return ETIMEDOUT;
        struct pollfd pf = { .fd = s->fd, .events = POLLOUT };
        const int r = poll(&pf, 1, left < 100 ? (int)left : 100);
        if (r > 0) return 0;
        if (r < 0 && errno != EINTR) return errno;
    }
}

#define DROP_WINDOW (8u << 20)

int spool_reopen(const spool_t *s, int flags)
{
    const int fd = open(s->path, flags | O_CLOEXEC);
    struct stat a, b;
    if (fd >= 0 && (fstat(fd, &a) != 0 || fstat(s->fd, &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev)) {
        close(fd);              /* the name is another file's by now */
        return -1;
    }
    return fd;
}

/* The spool written around the page cache: a second descriptor of the
 * same file, opened O_DIRECT, and an aligned buffer for its writes. False
 * where the file system refuses (tmpfs, some FUSE ones). */
static bool open_direct(spool_t *s)
{
#ifdef O_DIRECT
    void *stage;
    if (s->bytes % SPOOL_STAGE != 0 || posix_memalign(&stage, 4096, SPOOL_STAGE) != 0) return false;
    s->dfd = spool_reopen(s, O_WRONLY | O_DIRECT);
    if (s->dfd < 0) {
        free(stage);
        return false;
    }
    s->stage = stage;
    s->direct_at = s->bytes;
    return true;
#else
    return false;
#endif
}

static void close_direct(spool_t *s)
{
    if (s->dfd >= 0) close(s->dfd);
    s->dfd = -1;
    free(s->stage);
    s->stage = NULL;
    free(s->spare);
    s->spare = NULL;
}

void spool_direct(spool_t *s)
{
    if (s->fd >= 0 && s->regular && !s->stage && !open_direct(s)) close_direct(s);
}

void spool_drop_behind(spool_t *s)
{
    s->drop_behind = s->fd >= 0 && s->regular;
    if (s->drop_behind) spool_direct(s);
}

/* Past each window: its writeback starts, and the window before it, by
 * now on the disk, leaves the page cache. */
static void drop_written(spool_t *s)
{
    while (s->bytes - s->dropped_to >= 2 * (uint64_t)DROP_WINDOW) {
        const off_t old = (off_t)s->dropped_to, recent = old + DROP_WINDOW;
        sync_file_range(s->fd, recent, DROP_WINDOW, SYNC_FILE_RANGE_WRITE);
        sync_file_range(s->fd, old, DROP_WINDOW,
                        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
        posix_fadvise(s->fd, old, DROP_WINDOW, POSIX_FADV_DONTNEED);
        s->dropped_to += DROP_WINDOW;
    }
}

static size_t write_buffered(spool_t *s, const void *p, size_t n);

/* A direct write failed (EINVAL: the file system takes no O_DIRECT after
 * all; ENOSPC...): the n bytes at p, whose place is file offset `at`, and
 * everything after them go through the page cache, which reports a real
 * failure. Returns how many of them went. */
static size_t fall_back(spool_t *s, uint64_t at, const uint8_t *p, size_t n)
{
    size_t went = 0;
    if (lseek(s->fd, (off_t)at, SEEK_SET) < 0) s->err = errno;
    else went = write_buffered(s, p, n);
    close_direct(s);
    return went;
}

static bool hand_over(spool_t *s);

/* The staged megabyte, written around the page cache (by the io thread,
 * for a write-behind spool). */
/* A stage's megabyte at file offset `at` through the O_DIRECT descriptor;
 * how much of it went (less: a failure, or a write that left the
 * alignment, after which the rest must go through the page cache). */
static size_t write_megabyte(int dfd, const uint8_t *buf, uint64_t at)
{
    size_t done = 0;
    while (done < SPOOL_STAGE) {
        const ssize_t k = pwrite(dfd, buf + done, SPOOL_STAGE - done, (off_t)(at + done));
        if (k < 0 && errno == EINTR) continue;
        if (k > 0) done += (size_t)k;
        if (k <= 0 || done % 4096 != 0) break;
    }
    return done;
}

/* The stage starts over at the next megabyte of the file. */
static void next_stage(spool_t *s)
{
    s->direct_at += SPOOL_STAGE;
    s->staged = 0;
    s->tail_flushed = 0;
}

static void write_stage(spool_t *s)
{
    if (s->io && hand_over(s)) return;
    const size_t done = write_megabyte(s->dfd, s->stage, s->direct_at);
    if (done < SPOOL_STAGE) {
        /* what was written stays; the rest goes the other way */
        const size_t left = SPOOL_STAGE - done;
        s->bytes -= left - fall_back(s, s->direct_at + done, s->stage + done, left);
        return;
    }
    next_stage(s);
}

static void write_direct(spool_t *s, const uint8_t *b, size_t n)
{
    if (s->staged == s->tail_flushed) s->staged_ms = now_ms();
    while (n && s->stage) {
        const size_t take = SPOOL_STAGE - s->staged < n ? SPOOL_STAGE - s->staged : n;
        memcpy(s->stage + s->staged, b, take);
        s->staged += take;
        s->bytes += take;
        b += take;
        n -= take;
        if (s->staged == SPOOL_STAGE) write_stage(s);
    }
    if (n && !s->err) s->bytes += write_buffered(s, b, n);   /* direct writing given up */
}

/* What is staged and not yet written, through the page cache at its place
 * (the direct write of the full megabyte later covers it again). */
static void flush_tail(spool_t *s)
{
    while (s->stage && s->tail_flushed < s->staged) {
        const ssize_t k = pwrite(s->fd, s->stage + s->tail_flushed, s->staged - s->tail_flushed,
                                 (off_t)(s->direct_at + s->tail_flushed));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            s->err = k < 0 ? errno : EIO;
            s->bytes = s->direct_at + s->tail_flushed;   /* what the file holds */
            return;
        }
        s->tail_flushed += (size_t)k;
    }
}

/* ---- write-behind: full megabytes written by a thread of their own ---------------------- */

struct spool_io {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    spool_req_t *head, **tail;
    bool stop;
};

static void *io_main(void *arg)
{
    struct spool_io *io = arg;
    pthread_setname_np(pthread_self(), "tc-spool");
    pthread_mutex_lock(&io->lock);
    for (;;) {
        while (!io->head && !io->stop) pthread_cond_wait(&io->work, &io->lock);
        spool_req_t *r = io->head;
        if (!r) break;
        if (!(io->head = r->next)) io->tail = &io->head;
        pthread_mutex_unlock(&io->lock);
        const size_t done = write_megabyte(r->dfd, r->buf, r->at);   /* the rest, if any: spool_settle's */
        pthread_mutex_lock(&io->lock);
        r->done = done;
        r->busy = false;
        pthread_cond_broadcast(&io->done);
    }
    pthread_mutex_unlock(&io->lock);
    return NULL;
}

struct spool_io *spool_io_start(void)
{
    struct spool_io *io = xcalloc(1, sizeof *io);
    io->tail = &io->head;
    pthread_mutex_init(&io->lock, NULL);
    pthread_cond_init(&io->work, NULL);
    pthread_cond_init(&io->done, NULL);
    /* signals stay the loop thread's; a small stack is plenty */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256u << 10);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const int err = pthread_create(&io->thread, &attr, io_main, io);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (err) {
        pthread_cond_destroy(&io->done);
        pthread_cond_destroy(&io->work);
        pthread_mutex_destroy(&io->lock);
        free(io);
        return NULL;
    }
    return io;
}

void spool_io_stop(struct spool_io *io)
{
    if (!io) return;
    pthread_mutex_lock(&io->lock);
    io->stop = true;
    pthread_cond_signal(&io->work);
    pthread_mutex_unlock(&io->lock);
    pthread_join(io->thread, NULL);
    pthread_cond_destroy(&io->done);
    pthread_cond_destroy(&io->work);
    pthread_mutex_destroy(&io->lock);
    free(io);
}

void spool_write_behind(spool_t *s, struct spool_io *io)
{
    if (s->stage) s->io = io;
}

/* The full stage to the io thread, the spare one to fill; false (the
 * caller writes the stage itself) when no spare can be had. */
static bool hand_over(spool_t *s)
{
    spool_settle(s);
    if (!s->stage) return true;         /* it fell back to the page cache, this stage too */
    if (!s->spare && posix_memalign((void **)&s->spare, 4096, SPOOL_STAGE) != 0) {
        s->spare = NULL;
        return false;
    }
    struct spool_io *io = s->io;
    s->req = (spool_req_t){ .dfd = s->dfd, .buf = s->stage, .at = s->direct_at, .busy = true };
    pthread_mutex_lock(&io->lock);
    *io->tail = &s->req;
    io->tail = &s->req.next;
    pthread_cond_signal(&io->work);
    pthread_mutex_unlock(&io->lock);
    s->stage = s->spare;
    s->spare = NULL;
    next_stage(s);
    return true;
}

void spool_settle(spool_t *s)
{
    if (!s->req.buf) return;
    pthread_mutex_lock(&s->io->lock);
    while (s->req.busy) pthread_cond_wait(&s->io->done, &s->io->lock);
    pthread_mutex_unlock(&s->io->lock);
    uint8_t *buf = s->req.buf;
    s->req.buf = NULL;
    if (s->req.done == SPOOL_STAGE) {
        if (s->spare) free(buf);
        else s->spare = buf;
        return;
    }
    /* The direct write failed: the rest of that megabyte, then what is
     * staged after it, through the page cache at their places. */
    const size_t left = SPOOL_STAGE - s->req.done, staged = s->stage ? s->staged : 0;
    uint8_t *stage = s->stage;
    s->stage = NULL;                    /* kept from close_direct */
    const size_t went = fall_back(s, s->req.at + s->req.done, buf + s->req.done, left);
    const size_t went2 = went == left && !s->err && staged ? write_buffered(s, stage, staged) : 0;
    s->bytes -= (left - went) + (staged - went2);
    free(buf);
    free(stage);
}

bool spool_holds_back(const spool_t *s)
{
    return s->fd >= 0 && !s->err && s->stage && !s->cached && s->tail_flushed < s->staged;
}

void spool_flush_stale(spool_t *s, int max_ms)
{
    if (spool_holds_back(s) && now_ms() - s->staged_ms >= max_ms) flush_tail(s);
}

uint64_t spool_on_disk(const spool_t *s)
{
    if (s->req.buf) return s->req.at;   /* the megabyte under way is not yet */
    return s->stage && !s->cached ? s->direct_at : s->bytes;
}

/* Write through the page cache at the end of what was written. */
static void write_cached(spool_t *s, const uint8_t *p, size_t n)
{
    while (n) {
        const ssize_t k = pwrite(s->fd, p, n, (off_t)s->bytes);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            s->err = k < 0 ? errno : EIO;
            return;
        }
        s->bytes += (uint64_t)k;
        p += k;
        n -= (size_t)k;
    }
}

void spool_write(spool_t *s, const void *p, size_t n)
{
    if (s->fd < 0 || s->err) return;
    if (s->stage && s->cached) {
        /* back to the disk, from the next whole megabyte on */
        const size_t to_edge = (size_t)((SPOOL_STAGE - s->bytes % SPOOL_STAGE) % SPOOL_STAGE);
        const size_t take = to_edge < n ? to_edge : n;
        write_cached(s, p, take);
        if (s->err) return;
        p = (const uint8_t *)p + take;
        n -= take;
        if (s->bytes % SPOOL_STAGE != 0) return;
        s->cached = false;
        s->direct_at = s->bytes;
        s->staged = s->tail_flushed = 0;
    }
    if (s->stage) write_direct(s, p, n);
    else s->bytes += write_buffered(s, p, n);
    if (s->drop_behind && !s->stage && !s->err) drop_written(s);
}

void spool_write_now(spool_t *s, const void *p, size_t n)
{
    if (s->fd < 0 || s->err) return;
    if (!s->stage) {
        spool_write(s, p, n);
        return;
    }
    if (!s->cached) {
        flush_tail(s);          /* the staged bytes first, at their place */
        if (s->err) return;
        s->cached = true;
    }
    write_cached(s, p, n);
}

/* Write through the page cache at the descriptor's offset; returns how
 * many bytes went (fewer: s->err says why). */
static size_t write_buffered(spool_t *s, const void *p, size_t n)
{
    const char *b = p;
    size_t went = 0;
    int64_t progress = now_ms();
    while (went < n) {
        ssize_t k = write(s->fd, b + went, n - went);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            const int err = wait_writable(s, progress);
            if (err) {
                s->err = err;
                break;
            }
            continue;
        }
        if (k <= 0) {
            s->err = k < 0 ? errno : EIO;
            break;
        }
        progress = now_ms();
        went += (size_t)k;
    }
    return went;
}

int spool_read_at(const spool_t *s, uint64_t at, void *p, size_t n)
{
    char *b = p;
    if (s->stage && !s->cached && at + n > s->direct_at) {
        /* the staged part, from memory */
        const uint64_t from = at > s->direct_at ? at : s->direct_at;
        if (at + n > s->direct_at + s->staged) return EIO;
        memcpy(b + (from - at), s->stage + (from - s->direct_at), (size_t)(at + n - from));
        n = (size_t)(from - at);
    }
    if (s->req.buf && at + n > s->req.at) {
        /* the megabyte under way, from memory too */
        const uint64_t from = at > s->req.at ? at : s->req.at;
        memcpy(b + (from - at), s->req.buf + (from - s->req.at), (size_t)(at + n - from));
        n = (size_t)(from - at);
    }
    while (n) {
        ssize_t k = pread(s->fd, b, n, (off_t)at);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return k < 0 ? errno : EIO;
        b += k;
        n -= (size_t)k;
        at += (uint64_t)k;
    }
    return 0;
}

void spool_stop_waiting(spool_t *s)
{
    atomic_store(&s->stop_waiting, true);
}

const char *spool_strerror(int err)
{
    if (err == ETIMEDOUT) return "its reader took nothing for " STR(STALL_S) " s";
    if (err == ECANCELED) return "its reader was not waited for after the second signal";
    return strerror(err);
}

void spool_abandon(spool_t *s)
{
    s->abandoned = true;
}

void spool_empty(spool_t *s)
{
    spool_settle(s);
    if (s->fd >= 0 && s->regular) (void)ftruncate(s->fd, 0);
    s->staged = s->tail_flushed = 0;
    s->direct_at = 0;
}

void spool_remove(spool_t *s)
{
    s->abandoned = true;
    if (s->fd < 0 || !s->regular || s->removed) return;
    (void)unlink(s->path);
    s->removed = true;
}

void spool_close(spool_t *s, bool keep)
{
    if (s->fd < 0) return;
    spool_settle(s);
    if (keep && !s->abandoned && !s->err) flush_tail(s);
    close_direct(s);
    close(s->fd);
    s->fd = -1;
    if ((!keep || s->abandoned) && s->regular && !s->removed) unlink(s->path);
}
