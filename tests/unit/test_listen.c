/* test_listen.c - unit tests of listen.c on a libuv loop: datagrams sent
 * to 127.0.0.1 on an ephemeral port are heard or ignored (and counted by
 * reason); two listeners share a port and both hear a broadcast to
 * 127.255.255.255; a port held without SO_REUSEADDR is an error returned.
 * And the test client's own announcements (--announce, the binary named
 * by TC_TEST_CLIENT) arrive, with activeTime -1 when a connection is
 * accepted and again >= 0 after it was turned away. */
#include <arpa/inet.h>
#include <check.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include "announce.h"
#include "listen.h"
#include "unit.h"

extern char **environ;

#define GUARD_MS 10000

/* What a test heard; the listeners stop once `want` datagrams came. */
typedef struct {
    listener_t l[2];
    int nl;
    uv_timer_t guard;
    bool timed_out;
    int want;                        /* datagrams (heard or ignored) to wait for, all listeners */
    int seen;
    announce_t last;
    struct sockaddr_in last_from;
    announce_result_t why[8];
    int nwhy;
    /* the test client's */
    pid_t pid;
    int phase;                       /* 0: announcements, 1: waiting for -1, 2: for >= 0 again, 3: done */
    int heard_before;
} heard_t;

static void stop(heard_t *h)
{
    for (int i = 0; i < h->nl; i++) listener_close(&h->l[i], NULL);
    uv_close((uv_handle_t *)&h->guard, NULL);
}

static void count_one(heard_t *h)
{
    if (++h->seen == h->want) stop(h);
}

static void on_announce(void *ctx, const announce_t *a, const struct sockaddr *from)
{
    heard_t *h = ctx;
    h->last = *a;
    ck_assert_int_eq(from->sa_family, AF_INET);
    memcpy(&h->last_from, from, sizeof h->last_from);
    count_one(h);
}

static void on_ignored(void *ctx, announce_result_t why, const struct sockaddr *from, size_t len)
{
    (void)from;
    (void)len;
    heard_t *h = ctx;
    if (h->nwhy < 8) h->why[h->nwhy++] = why;
    count_one(h);
}

static void on_guard(uv_timer_t *t)
{
    heard_t *h = t->data;
    h->timed_out = true;
    stop(h);
}

static void start(heard_t *h, uv_loop_t *loop, int want)
{
    h->want = want;
    ck_assert_int_eq(uv_timer_init(loop, &h->guard), 0);
    h->guard.data = h;
    ck_assert_int_eq(uv_timer_start(&h->guard, on_guard, GUARD_MS, 0), 0);
}

static void run_and_close(uv_loop_t *loop)
{
    ck_assert_int_eq(uv_run(loop, UV_RUN_DEFAULT), 0);
    ck_assert_int_eq(uv_loop_close(loop), 0);
}

static void send_to(const char *addr, uint16_t port, const void *data, size_t len)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    ck_assert_int_ge(fd, 0);
    int one = 1;
    ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof one), 0);
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port) };
    ck_assert_int_eq(inet_pton(AF_INET, addr, &to.sin_addr), 1);
    ck_assert_int_eq(sendto(fd, data, len, 0, (struct sockaddr *)&to, sizeof to), (ssize_t)len);
    close(fd);
}

START_TEST(hears_and_ignores_on_an_ephemeral_port)
{
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    heard_t h = { 0 };
    ck_assert_int_eq(listener_init(&h.l[0], &loop, 0, on_announce, &h), 0);
    h.nl = 1;
    h.l[0].on_ignored = on_ignored;
    const uint16_t port = h.l[0].port;
    ck_assert_uint_ne(port, 0);
    start(&h, &loop, 5);

    uint8_t m[200] = { 0 };
    announce_t a = { .protocol_version = 82, .listen_port = 8093, .pid = 4321, .active_time = 9 };
    strcpy(a.program_name, "heard");
    send_to("127.0.0.1", port, m, 5);               /* too short */
    m[0] = 9;
    send_to("127.0.0.1", port, m, 30);              /* unknown version */
    size_t len = announce_encode(&a, m);
    send_to("127.0.0.1", port, m, 100);             /* too long */
    send_to("127.0.0.1", port, m, 0);               /* empty: too short */
    send_to("127.0.0.1", port, m, len);
    run_and_close(&loop);

    ck_assert(!h.timed_out);
    ck_assert_uint_eq(h.l[0].heard, 1);
    ck_assert_uint_eq(listener_ignored(&h.l[0]), 4);
    ck_assert_uint_eq(h.l[0].ignored[ANNOUNCE_TOO_SHORT], 2);
    ck_assert_uint_eq(h.l[0].ignored[ANNOUNCE_UNKNOWN_VERSION], 1);
    ck_assert_uint_eq(h.l[0].ignored[ANNOUNCE_TOO_LONG], 1);
    ck_assert_int_eq(h.nwhy, 4);
    ck_assert_int_eq(h.why[0], ANNOUNCE_TOO_SHORT);
    ck_assert_int_eq(h.why[1], ANNOUNCE_UNKNOWN_VERSION);
    ck_assert_int_eq(h.why[2], ANNOUNCE_TOO_LONG);
    ck_assert_int_eq(h.why[3], ANNOUNCE_TOO_SHORT);
    ck_assert_uint_eq(h.last.pid, 4321);
    ck_assert_uint_eq(h.last.listen_port, 8093);
    ck_assert_int_eq(h.last.active_time, 9);
    ck_assert_str_eq(h.last.program_name, "heard");
    char text[ANNOUNCE_ADDR_SIZE];
    ck_assert_str_eq(announce_address_text((struct sockaddr *)&h.last_from, text), "127.0.0.1");
}
END_TEST

START_TEST(two_listeners_share_a_port_and_hear_a_broadcast)
{
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    heard_t h = { 0 };
    ck_assert_int_eq(listener_init(&h.l[0], &loop, 0, on_announce, &h), 0);
    ck_assert_int_eq(listener_init(&h.l[1], &loop, h.l[0].port, on_announce, &h), 0);
    h.nl = 2;
    ck_assert_uint_eq(h.l[1].port, h.l[0].port);
    start(&h, &loop, 2);
    uint8_t m[ANNOUNCE_MAX_SIZE];
    announce_t a = { .protocol_version = 82, .listen_port = 8086, .pid = 1 };
    strcpy(a.program_name, "both");
    send_to("127.255.255.255", h.l[0].port, m, announce_encode(&a, m));
    run_and_close(&loop);
    ck_assert(!h.timed_out);
    ck_assert_uint_eq(h.l[0].heard, 1);
    ck_assert_uint_eq(h.l[1].heard, 1);
}
END_TEST

START_TEST(a_port_held_without_reuse_is_an_error)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t n = sizeof addr;
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&addr, &n), 0);
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    listener_t l;
    ck_assert_int_eq(listener_init(&l, &loop, ntohs(addr.sin_port), on_announce, NULL), UV_EADDRINUSE);
    ck_assert_int_eq(uv_loop_close(&loop), 0);  /* nothing left open */
    close(fd);
}
END_TEST

/* --------------------------------------------- the test client's announcements */

/* Connect to the client's data port and offer protocol 1: the client
 * answers ProtocolMismatch (2) and goes on listening. */
static void offer_wrong_version(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    struct timeval tv = { .tv_sec = 5 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&to, sizeof to), 0);
    const uint8_t hs[12] = { 'T', 'r', 'a', 'c', 'y', 'P', 'r', 'f', 1, 0, 0, 0 };
    ck_assert_int_eq(send(fd, hs, sizeof hs, 0), (ssize_t)sizeof hs);
    uint8_t status = 0;
    ck_assert_int_eq(recv(fd, &status, 1, 0), 1);
    ck_assert_int_eq(status, 2);
    close(fd);
}

static void on_client_announce(void *ctx, const announce_t *a, const struct sockaddr *from)
{
    heard_t *h = ctx;
    char text[ANNOUNCE_ADDR_SIZE];
    ck_assert_str_eq(announce_address_text(from, text), "127.0.0.1");
    ck_assert_uint_eq(a->broadcast_version, 3);
    ck_assert_uint_eq(a->protocol_version, 76);
    ck_assert_uint_eq(a->pid, (uint64_t)h->pid);
    ck_assert_str_eq(a->program_name, "unit client");
    ck_assert_uint_ne(a->listen_port, 0);
    ck_assert_int_le(a->active_time, 60);
    if (h->phase == 1 && a->active_time == -1) {
        h->phase = 2;
        return;
    }
    ck_assert_int_ge(a->active_time, 0);
    if (h->phase == 0 && ++h->heard_before == 2) {
        h->last = *a;
        offer_wrong_version(a->listen_port);
        h->phase = 1;
    } else if (h->phase == 2) {
        ck_assert_uint_eq(a->listen_port, h->last.listen_port);
        h->phase = 3;
        stop(h);
    }
}

START_TEST(test_client_announces_on_the_chosen_port)
{
    const char *client = getenv("TC_TEST_CLIENT");
    if (!client || !*client) {
        fprintf(stderr, "test_client_announces_on_the_chosen_port: TC_TEST_CLIENT not set, not run\n");
        return;
    }
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    heard_t h = { 0 };
    ck_assert_int_eq(listener_init(&h.l[0], &loop, 0, on_client_announce, &h), 0);
    h.nl = 1;
    start(&h, &loop, -1);
    char port[16];
    snprintf(port, sizeof port, "%u", (unsigned)h.l[0].port);
    char *argv[] = { (char *)client, "--port", "0", "--protocol", "76", "--name", "unit client",
                     "--announce", port, "--announce-interval", "50", "--timeout", "30",
                     "--quiet", NULL };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    ck_assert_int_eq(posix_spawn(&h.pid, client, &fa, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
    kill(h.pid, SIGTERM);
    int status;
    ck_assert_int_eq(waitpid(h.pid, &status, 0), h.pid);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    ck_assert(!h.timed_out);
    ck_assert_int_eq(h.phase, 3);
    ck_assert_uint_eq(listener_ignored(&h.l[0]), 0);
}
END_TEST

Suite *listen_suite(void)
{
    Suite *s = suite_create("listen");
    TCase *tc = tcase_create("listen");
    tcase_add_test(tc, hears_and_ignores_on_an_ephemeral_port);
    tcase_add_test(tc, two_listeners_share_a_port_and_hear_a_broadcast);
    tcase_add_test(tc, a_port_held_without_reuse_is_an_error);
    tcase_add_test(tc, test_client_announces_on_the_chosen_port);
    suite_add_tcase(s, tc);
    return s;
}
