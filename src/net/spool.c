/* spool.c - the received bytes, kept in a file while capturing (see spool.h). */
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
    *s = (spool_t){ .fd = -1, .path = path };
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

void spool_drop_behind(spool_t *s)
{
    s->drop_behind = s->fd >= 0 && s->regular;
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

void spool_write(spool_t *s, const void *p, size_t n)
{
    if (s->fd < 0 || s->err) return;
    const char *b = p;
    int64_t progress = now_ms();
    while (n) {
        ssize_t k = write(s->fd, b, n);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            const int err = wait_writable(s, progress);
            if (err) {
                s->err = err;
                return;
            }
            continue;
        }
        if (k <= 0) {
            s->err = k < 0 ? errno : EIO;
            return;
        }
        progress = now_ms();
        b += k;
        n -= (size_t)k;
        s->bytes += (uint64_t)k;
    }
    if (s->drop_behind) drop_written(s);
}

int spool_read_at(const spool_t *s, uint64_t at, void *p, size_t n)
{
    char *b = p;
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
    if (s->fd >= 0 && s->regular) (void)ftruncate(s->fd, 0);
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
    close(s->fd);
    s->fd = -1;
    if ((!keep || s->abandoned) && s->regular && !s->removed) unlink(s->path);
}
