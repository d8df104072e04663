/* broadcast.c - the test client's announcements (see broadcast.h). The
 * datagram is built here, independently of the capture's decoder, so a
 * test of one checks the other. */
#include "broadcast.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BROADCAST_VERSION 3
#define NAME_OFFSET 20           /* programName in BroadcastMessage v3 */
#define NAME_SIZE 64

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

bool broadcast_open(struct tc_client *c)
{
    c->ann.fd = -1;
    if (!c->opt.announce_port)
        return true;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one)) != 0) {
        fprintf(stderr, "tracy-test-client: cannot open the announcement socket: %s\n",
                strerror(errno));
        if (fd >= 0)
            close(fd);
        return false;
    }
    c->ann.fd = fd;
    c->ann.next_ns = 0;
    return true;
}

/* BroadcastMessage v3 (spec §1.2), cut after the name's NUL. */
static size_t encode(const struct tc_client *c, int32_t active_time, uint8_t *m)
{
    size_t n = strnlen(c->opt.program_name, NAME_SIZE - 1);
    uint32_t protocol = c->opt.protocol == TC_PROTOCOL_NONE ? TC_PROTOCOL_VERSION
                                                            : c->opt.protocol;
    put_le(m + 0, BROADCAST_VERSION, 2);
    put_le(m + 2, (uint64_t)c->bound_port, 2);
    put_le(m + 4, protocol, 4);
    put_le(m + 8, (uint64_t)getpid(), 8);
    put_le(m + 16, (uint32_t)active_time, 4);
    memcpy(m + NAME_OFFSET, c->opt.program_name, n);
    m[NAME_OFFSET + n] = '\0';
    return NAME_OFFSET + n + 1;
}

static void send_one(struct tc_client *c, int32_t active_time)
{
    uint8_t m[NAME_OFFSET + NAME_SIZE];
    size_t len = encode(c, active_time, m);
    struct sockaddr_in to = { .sin_family = AF_INET,
                              .sin_port = htons((uint16_t)c->opt.announce_port) };
    inet_pton(AF_INET, TC_ANNOUNCE_ADDRESS, &to.sin_addr);
    if (sendto(c->ann.fd, m, len, MSG_NOSIGNAL, (struct sockaddr *)&to, sizeof(to)) < 0) {
        if (!c->ann.warned)
            tc_log(c, "cannot announce to %s:%d: %s", TC_ANNOUNCE_ADDRESS,
                   c->opt.announce_port, strerror(errno));
        c->ann.warned = true;
        return;
    }
    c->ann.sent++;
}

void broadcast_tick(struct tc_client *c)
{
    if (c->ann.fd < 0)
        return;
    int64_t now = tc_now_ns();
    if (now < c->ann.next_ns)
        return;
    send_one(c, (int32_t)((now - c->start_ns) / 1000000000));
    c->ann.next_ns = now + (int64_t)c->opt.announce_interval_ms * 1000000;
}

int broadcast_wait_ms(const struct tc_client *c, int max_ms)
{
    if (c->ann.fd < 0)
        return max_ms;
    int64_t left = (c->ann.next_ns - tc_now_ns() + 999999) / 1000000;
    return left < 0 ? 0 : left < max_ms ? (int)left : max_ms;
}

void broadcast_busy(struct tc_client *c)
{
    if (c->ann.fd < 0)
        return;
    send_one(c, -1);
    c->ann.next_ns = 0;
}

void broadcast_close(struct tc_client *c)
{
    if (c->ann.fd >= 0)
        close(c->ann.fd);
    c->ann.fd = -1;
}
