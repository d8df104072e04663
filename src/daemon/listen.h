/* listen.h - hearing client announcements: a UDP socket on the caller's
 * libuv loop, bound as upstream's UdpListen binds it (0.0.0.0:PORT with
 * SO_REUSEADDR, so that several listeners and a client can share the port,
 * each listener getting its own copy of every broadcast; and
 * SO_BROADCAST), decoding each datagram (announce.h) and handing on the
 * announcements. */
#ifndef TC_LISTEN_H
#define TC_LISTEN_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "announce.h"

/* An announcement heard, from the address it came from. */
typedef void (*listener_announce_cb)(void *ctx, const announce_t *a, const struct sockaddr *from);
/* A datagram that is no announcement (why, from whom, how long); optional. */
typedef void (*listener_ignored_cb)(void *ctx, announce_result_t why, const struct sockaddr *from, size_t len);

typedef struct listener listener_t;
typedef void (*listener_closed_cb)(listener_t *l);

struct listener {
    uv_udp_t udp;
    listener_announce_cb on_announce;
    listener_ignored_cb on_ignored;  /* NULL: only counted */
    listener_closed_cb on_closed;
    void *ctx;
    uint16_t port;                   /* the port bound (the one chosen, for 0) */
    uint64_t heard;                  /* announcements handed on */
    uint64_t ignored[ANNOUNCE_N_RESULTS]; /* datagrams ignored, by reason */
    uint64_t read_errors;            /* failed reads (the socket's own errors) */
    uint8_t buf[ANNOUNCE_MAX_SIZE + 1]; /* one more: a longer datagram shows */
};

/* Bind to 0.0.0.0:port (0: a free port, see l->port) on loop and start
 * hearing. Returns 0, or a libuv error (uv_strerror): UV_EADDRINUSE when
 * another socket holds the port without SO_REUSEADDR, UV_EACCES, UV_EMFILE...
 * When the socket cannot be had, nothing is left open; only when libuv
 * itself then fails (not seen in practice) is the handle being closed, and
 * l must outlive the loop's next run. */
int listener_init(listener_t *l, uv_loop_t *loop, uint16_t port,
                  listener_announce_cb on_announce, void *ctx);

/* Datagrams ignored, all reasons together. */
uint64_t listener_ignored(const listener_t *l);

/* Stop hearing and close the socket. l must stay until on_closed (may be
 * NULL) has run on the loop; no callback runs after this call. */
void listener_close(listener_t *l, listener_closed_cb on_closed);

#endif
