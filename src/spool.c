/* spool.c - the received bytes, kept in a file while capturing (see spool.h). */
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Open path with flags, read-write if allowed, else write-only. */
static int open_rw(const char *path, int flags)
{
    int fd = open(path, O_RDWR | flags, 0644);
    if (fd < 0 && errno == EACCES) fd = open(path, O_WRONLY | flags, 0644);   /* a write-only spool */
    return fd;
}

int spool_open(spool_t *s, const char *path, bool force)
{
    *s = (spool_t){ .fd = -1, .path = path };
    int fd = open_rw(path, O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL));
    /* an existing FIFO or device holds no earlier capture: just open it */
    struct stat st;
    if (fd < 0 && errno == EEXIST && stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))
        fd = open_rw(path, O_CLOEXEC);
    if (fd < 0) return errno;
    s->fd = fd;
    /* read back only from a regular file opened for reading (not a FIFO) */
    const int mode = fcntl(fd, F_GETFL) & O_ACCMODE;
    s->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    s->readable = mode == O_RDWR && s->regular;
    return 0;
}

void spool_write(spool_t *s, const void *p, size_t n)
{
    if (s->fd < 0 || s->err) return;
    const char *b = p;
    while (n) {
        ssize_t k = write(s->fd, b, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            s->err = errno;
            return;
        }
        b += k;
        n -= (size_t)k;
        s->bytes += (uint64_t)k;
    }
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

void spool_abandon(spool_t *s)
{
    if (s->fd >= 0 && s->regular) (void)ftruncate(s->fd, 0);
    s->abandoned = true;
}

void spool_close(spool_t *s, bool keep)
{
    if (s->fd < 0) return;
    close(s->fd);
    s->fd = -1;
    if ((!keep || s->abandoned) && s->regular) unlink(s->path);
}
