/* spool.c - the received bytes, kept in a file while capturing (see spool.h). */
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int spool_open(spool_t *s, const char *path, bool force)
{
    *s = (spool_t){ .fd = -1, .path = path };
    const int flags = O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL);
    int fd = open(path, O_RDWR | flags, 0644);
    if (fd < 0 && errno == EACCES) fd = open(path, O_WRONLY | flags, 0644);   /* a write-only spool */
    if (fd < 0) return errno;
    s->fd = fd;
    /* read back only from a regular file opened for reading (not a FIFO) */
    struct stat st;
    const int mode = fcntl(fd, F_GETFL) & O_ACCMODE;
    s->readable = mode == O_RDWR && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
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

void spool_close(spool_t *s, bool keep)
{
    if (s->fd < 0) return;
    close(s->fd);
    s->fd = -1;
    if (!keep) unlink(s->path);
}
