/* wire.c - the byte level of tracy-test-client: a non-blocking socket that
 * is always drained of 13-byte query packets while the client sends, and
 * the client-to-server LZ4 frame stream of spec §3 (LZ4 block streaming out
 * of a 3 x 256 KiB ring, `u32 size + block` framing, wrap when the write
 * offset passes 512 KiB), optionally mirrored into a --record file. */
#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

bool wire_init(struct tc_client *c)
{
    struct tc_wire *w = &c->wire;
    w->fd = -1;
    w->ring = malloc(3 * (size_t)TC_FRAME_SIZE);
    w->lz4buf = malloc(sizeof(uint32_t) + TC_LZ4_SIZE);
    w->lz4 = LZ4_createStream();
    w->q_cap = 256;
    w->queue = malloc(w->q_cap * sizeof(*w->queue));
    w->closed = true;
    return w->ring && w->lz4buf && w->lz4 && w->queue;
}

void wire_free(struct tc_client *c)
{
    struct tc_wire *w = &c->wire;
    if (w->fd >= 0)
        close(w->fd);
    free(w->ring);
    free(w->lz4buf);
    if (w->lz4)
        LZ4_freeStream(w->lz4);
    free(w->queue);
    if (w->record)
        fclose(w->record);
}

void wire_attach(struct tc_client *c, int fd)
{
    struct tc_wire *w = &c->wire;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    w->fd = fd;
    w->start = w->offset = 0;
    w->in_len = 0;
    w->q_head = w->q_tail = 0;
    w->closed = w->peer_eof = w->got_terminate = false;
    w->last_send_ns = tc_now_ns();
    LZ4_initStream(w->lz4, sizeof(*w->lz4));
}

void wire_close(struct tc_client *c, bool reset)
{
    struct tc_wire *w = &c->wire;
    if (w->fd < 0)
        return;
    if (reset) {
        struct linger lg = { .l_onoff = 1, .l_linger = 0 };
        setsockopt(w->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    }
    close(w->fd);
    w->fd = -1;
    w->closed = true;
}

bool wire_alive(const struct tc_client *c)
{
    return c->wire.fd >= 0 && !c->wire.closed;
}

static void mark_lost(struct tc_client *c, bool eof)
{
    c->wire.closed = true;
    if (eof)
        c->wire.peer_eof = true;
}

/* Milliseconds left before the overall deadline, capped at `want`
 * (want < 0: as long as allowed). Marks the wire timed out at 0. */
static int deadline_wait_ms(struct tc_client *c, int want)
{
    if (c->deadline_ns == 0)
        return want;
    int64_t left = (c->deadline_ns - tc_now_ns()) / 1000000;
    if (left <= 0) {
        c->wire.timed_out = true;
        c->wire.closed = true;
        return 0;
    }
    if (want < 0 || left < want)
        return (int)left;
    return want;
}

static void queue_push(struct tc_wire *w, const struct tc_query *q)
{
    if (w->q_tail == w->q_cap) {
        if (w->q_head > 0) {
            memmove(w->queue, w->queue + w->q_head, (w->q_tail - w->q_head) * sizeof(*q));
            w->q_tail -= w->q_head;
            w->q_head = 0;
        } else {
            size_t cap = w->q_cap * 2;
            struct tc_query *nq = realloc(w->queue, cap * sizeof(*q));
            if (!nq)
                abort();
            w->queue = nq;
            w->q_cap = cap;
        }
    }
    w->queue[w->q_tail++] = *q;
}

static uint64_t read_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint32_t read_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Split the input buffer into query packets (their type turned into the
 * protocol-82 value, counted by the byte received). A Terminate packet
 * ends the session at once (like upstream, later packets are not looked
 * at). */
static void parse_queries(struct tc_client *c)
{
    struct tc_wire *w = &c->wire;
    size_t pos = 0;
    while (w->in_len - pos >= TC_QUERY_SIZE && !w->got_terminate) {
        const uint8_t *p = w->in + pos;
        struct tc_query q = { proto_query(&c->proto, p[0]), read_le64(p + 1), read_le32(p + 9) };
        pos += TC_QUERY_SIZE;
        w->queries[p[0] < TC_SQ_COUNT ? p[0] : TC_SQ_COUNT]++;
        if (q.type == TC_SQ_TERMINATE) {
            w->got_terminate = true;
            w->closed = true;
        } else {
            queue_push(w, &q);
        }
    }
    memmove(w->in, w->in + pos, w->in_len - pos);
    w->in_len -= pos;
}

/* Read whatever the server has sent so far, without blocking. */
static void read_available(struct tc_client *c)
{
    struct tc_wire *w = &c->wire;
    while (w->fd >= 0 && !w->peer_eof && !w->got_terminate) {
        ssize_t n = recv(w->fd, w->in + w->in_len, sizeof(w->in) - w->in_len, 0);
        if (n > 0) {
            w->in_len += (size_t)n;
            parse_queries(c);
            continue;
        }
        if (n == 0) {
            mark_lost(c, true);
        } else if (errno == EINTR) {
            continue;
        } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
            mark_lost(c, true);
        }
        break;
    }
}

bool wire_poll(struct tc_client *c, int timeout_ms)
{
    struct tc_wire *w = &c->wire;
    if (!wire_alive(c))
        return false;
    int wait = deadline_wait_ms(c, timeout_ms);
    if (w->timed_out)
        return false;
    struct pollfd pfd = { .fd = w->fd, .events = POLLIN };
    int r = poll(&pfd, 1, wait);
    if (r > 0)
        read_available(c);
    return wire_alive(c);
}

bool wire_pop_query(struct tc_client *c, struct tc_query *q)
{
    struct tc_wire *w = &c->wire;
    if (w->q_head == w->q_tail)
        return false;
    *q = w->queue[w->q_head++];
    if (w->q_head == w->q_tail)
        w->q_head = w->q_tail = 0;
    return true;
}

static void record_bytes(struct tc_wire *w, const void *data, size_t len)
{
    if (w->record && len > 0)
        fwrite(data, 1, len, w->record);
}

bool wire_send_raw(struct tc_client *c, const void *data, size_t len)
{
    struct tc_wire *w = &c->wire;
    const char *p = data;
    while (len > 0) {
        if (w->fd < 0 || w->closed)
            return false;
        ssize_t n = send(w->fd, p, len, MSG_NOSIGNAL);
        if (n > 0) {
            record_bytes(w, p, (size_t)n);
            w->wire_bytes += (uint64_t)n;
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            mark_lost(c, true);
            return false;
        }
        /* Socket full: wait for room, answering nothing but reading the
         * queries the server sends meanwhile (it may block otherwise). */
        int wait = deadline_wait_ms(c, 1000);
        if (w->timed_out)
            return false;
        struct pollfd pfd = { .fd = w->fd, .events = POLLIN | POLLOUT };
        if (poll(&pfd, 1, wait) > 0 && (pfd.revents & (POLLIN | POLLHUP | POLLERR)))
            read_available(c);
    }
    return true;
}

void wire_reserve(struct tc_client *c, size_t len)
{
    struct tc_wire *w = &c->wire;
    if (w->offset - w->start + len > TC_FRAME_SIZE)
        wire_commit(c);
}

void wire_put(struct tc_client *c, const void *data, size_t len)
{
    struct tc_wire *w = &c->wire;
    memcpy(w->ring + w->offset, data, len);
    w->offset += len;
}

uint8_t *wire_window(struct tc_client *c, uint8_t **end)
{
    struct tc_wire *w = &c->wire;
    *end = (uint8_t *)w->ring + w->start + TC_FRAME_SIZE;
    return (uint8_t *)w->ring + w->offset;
}

void wire_window_set(struct tc_client *c, const uint8_t *p)
{
    c->wire.offset = (size_t)(p - (const uint8_t *)c->wire.ring);
}

/* Compress ring[start, offset) as the next block; returns the framed size. */
static size_t compress_block(struct tc_wire *w, const char *src, size_t len)
{
    int n = LZ4_compress_fast_continue(w->lz4, src, w->lz4buf + sizeof(uint32_t),
                                       (int)len, TC_LZ4_SIZE, 1);
    uint32_t sz = (uint32_t)n;
    memcpy(w->lz4buf, &sz, sizeof(sz));
    return sizeof(sz) + (size_t)n;
}

/* Apply the ring rule after a frame left the buffer (§3.2). */
static void advance_ring(struct tc_wire *w)
{
    w->raw_bytes += w->offset - w->start;
    if (w->offset > 2 * (size_t)TC_FRAME_SIZE)
        w->offset = 0;
    w->start = w->offset;
}

size_t wire_compress_pending(struct tc_client *c, const char **framed)
{
    struct tc_wire *w = &c->wire;
    size_t n = compress_block(w, w->ring + w->start, w->offset - w->start);
    advance_ring(w);
    *framed = w->lz4buf;
    return n;
}

void wire_commit(struct tc_client *c)
{
    struct tc_wire *w = &c->wire;
    if (w->offset == w->start)
        return;
    if (!wire_alive(c)) {
        advance_ring(w);
        return;
    }
    const char *framed;
    size_t n = wire_compress_pending(c, &framed);
    if (wire_send_raw(c, framed, n))
        w->frames++;
    w->last_send_ns = tc_now_ns();
}

void wire_send_terminate(struct tc_client *c)
{
    struct tc_wire *w = &c->wire;
    wire_commit(c);
    w->terminate_byte = (char)proto_wire(&c->proto, TC_EV_TERMINATE);
    size_t n = compress_block(w, &w->terminate_byte, 1);
    if (wire_send_raw(c, w->lz4buf, n))
        w->frames++;
    c->ev.sent[(uint8_t)w->terminate_byte]++;
    w->last_send_ns = tc_now_ns();
}

int wire_unsent_bytes(const struct tc_client *c)
{
    int pending = 0;
    if (c->wire.fd < 0 || ioctl(c->wire.fd, SIOCOUTQ, &pending) != 0)
        return 0;
    return pending;
}
