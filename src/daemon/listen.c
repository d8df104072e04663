/* listen.c - the announcement listener on the libuv loop (see listen.h). */
#include "listen.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    listener_t *l = h->data;
    /* libuv hands each buffer back (to on_read) before it asks again. */
    *buf = uv_buf_init((char *)l->buf, sizeof l->buf);
}

static void ignore(listener_t *l, announce_result_t why, const struct sockaddr *from, size_t len)
{
    l->ignored[why]++;
    if (l->on_ignored) l->on_ignored(l->ctx, why, from, len);
}

static void on_read(uv_udp_t *h, ssize_t nread, const uv_buf_t *buf, const struct sockaddr *from, unsigned flags)
{
    (void)buf;
    listener_t *l = h->data;
    if (nread < 0) {
        l->read_errors++;
        return;
    }
    if (!from) return;               /* nothing more to read for now */
    const size_t len = (size_t)nread;
    announce_t a;
    announce_result_t r = (flags & UV_UDP_PARTIAL) ? ANNOUNCE_TOO_LONG
                                                   : announce_parse(l->buf, len, &a);
    if (r != ANNOUNCE_OK) {
        ignore(l, r, from, len);
        return;
    }
    l->heard++;
    l->on_announce(l->ctx, &a, from);
}

/* The socket as upstream's UdpListen makes it: IPv4, SO_REUSEADDR and
 * SO_BROADCAST, bound to INADDR_ANY:port. A descriptor, or -errno. */
static int open_socket(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return -errno;
    const int one = 1;
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(port),
                                .sin_addr.s_addr = htonl(INADDR_ANY) };
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof one) != 0 ||
        bind(fd, (const struct sockaddr *)&addr, sizeof addr) != 0) {
        const int err = errno;
        close(fd);
        return -err;
    }
    return fd;
}

static uint16_t bound_port(int fd)
{
    struct sockaddr_in addr;
    socklen_t n = sizeof addr;
    if (getsockname(fd, (struct sockaddr *)&addr, &n) != 0) return 0;
    return ntohs(addr.sin_port);
}

int listener_init(listener_t *l, uv_loop_t *loop, uint16_t port,
                  listener_announce_cb on_announce, void *ctx)
{
    memset(l, 0, sizeof *l);
    l->on_announce = on_announce;
    l->ctx = ctx;
    const int fd = open_socket(port);
    if (fd < 0) return fd;           /* libuv's errors are -errno here */
    l->port = bound_port(fd);
    int rc = uv_udp_init(loop, &l->udp);
    if (rc < 0) {
        close(fd);
        return rc;
    }
    l->udp.data = l;
    rc = uv_udp_open(&l->udp, fd);
    if (rc < 0) close(fd);           /* not the handle's */
    else rc = uv_udp_recv_start(&l->udp, on_alloc, on_read);
    if (rc < 0) {
        uv_close((uv_handle_t *)&l->udp, NULL);
        return rc;
    }
    return 0;
}

uint64_t listener_ignored(const listener_t *l)
{
    uint64_t n = 0;
    for (int i = 0; i < ANNOUNCE_N_RESULTS; i++) n += l->ignored[i];
    return n;
}

static void on_udp_closed(uv_handle_t *h)
{
    listener_t *l = h->data;
    if (l->on_closed) l->on_closed(l);
}

void listener_close(listener_t *l, listener_closed_cb on_closed)
{
    l->on_closed = on_closed;
    uv_udp_recv_stop(&l->udp);
    uv_close((uv_handle_t *)&l->udp, on_udp_closed);
}
