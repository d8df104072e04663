/* spool.c - the received bytes, kept in a file while capturing (see spool.h). */
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int spool_open(spool_t *s, const char *path, bool force)
{
    *s = (spool_t){ .fd = -1, .path = path };
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL);
    int fd = open(path, flags, 0644);
    if (fd < 0) return errno;
    s->fd = fd;
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

void spool_close(spool_t *s, bool keep)
{
    if (s->fd < 0) return;
    close(s->fd);
    s->fd = -1;
    if (!keep) unlink(s->path);
}
