/* session.c - the client side of a Tracy connection for
 * tracy-test-client: listen, accept, the handshake of spec §2 (including
 * turning away other protocol versions, or all of them, and the
 * not-available / drop behaviours), the UDP announcements while waiting
 * for a server (broadcast.c), the WelcomeMessage of the protocol
 * spoken (and on-demand payload), servicing
 * queries between sends, the
 * normal Terminate / Disconnect endings of §8, and the abrupt endings used
 * by the failure scenarios. */
#include "session.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "broadcast.h"
#include "events.h"
#include "manifest.h"
#include "queries.h"
#include "scenario.h"
#include "wire.h"

#define HANDSHAKE_TIMEOUT_MS 5000
#define KEEPALIVE_NS 5000000000LL
#define ABORT_WAIT_MS 2000

/* ------------------------------------------------------------ listening */

static int bind_listener(const char *address, int port, int *bound_port)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
    struct addrinfo *res = NULL;
    char service[16];
    snprintf(service, sizeof(service), "%d", port);
    if (getaddrinfo(address, service, &hints, &res) != 0)
        return -1;
    int fd = -1;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 4) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        return -1;
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    getsockname(fd, (struct sockaddr *)&ss, &len);
    *bound_port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                           : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    return fd;
}

bool session_listen(struct tc_client *c)
{
    c->listen_fd = bind_listener(c->opt.address, c->opt.port, &c->bound_port);
    if (c->listen_fd < 0) {
        fprintf(stderr, "tracy-test-client: cannot listen on %s:%d: %s\n", c->opt.address,
                c->opt.port, strerror(errno));
        return false;
    }
    fprintf(stderr, "tracy-test-client: listening on %s:%d\n", c->opt.address, c->bound_port);
    fflush(stderr);
    return broadcast_open(c);
}

/* ------------------------------------------------------------- helpers */

int64_t session_ticks_now(const struct tc_client *c)
{
    return c->init_begin + (tc_now_ns() - c->start_ns);
}

static bool deadline_passed(const struct tc_client *c)
{
    return c->deadline_ns != 0 && tc_now_ns() >= c->deadline_ns;
}

/* Read exactly len bytes from a blocking socket within timeout_ms. */
static bool read_exact_timeout(int fd, void *buf, size_t len, int timeout_ms)
{
    char *p = buf;
    int64_t end = tc_now_ns() + (int64_t)timeout_ms * 1000000;
    while (len > 0) {
        int left = (int)((end - tc_now_ns()) / 1000000);
        if (left <= 0)
            return false;
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int r = poll(&pfd, 1, left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        ssize_t n = recv(fd, p, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

static void send_status_and_close(int fd, uint8_t status)
{
    ssize_t n = send(fd, &status, 1, MSG_NOSIGNAL);
    (void)n;
    close(fd);
}

static void open_record(struct tc_client *c)
{
    if (!c->opt.record_path)
        return;
    if (c->wire.record)
        fclose(c->wire.record);
    c->wire.record = fopen(c->opt.record_path, "wb");
    if (!c->wire.record)
        tc_log(c, "cannot write %s: %s", c->opt.record_path, strerror(errno));
}

/* Wait for a connection, announcing (--announce) meanwhile; -1 when the
 * overall deadline passed. A connection accepted is announced as busy
 * before its handshake is read, as upstream does. */
static int accept_connection(struct tc_client *c)
{
    for (;;) {
        if (deadline_passed(c)) {
            broadcast_busy(c);                 /* leaving unconnected */
            return -1;
        }
        broadcast_tick(c);
        struct pollfd pfd = { .fd = c->listen_fd, .events = POLLIN };
        if (poll(&pfd, 1, broadcast_wait_ms(c, 200)) <= 0)
            continue;
        int fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        broadcast_busy(c);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        return fd;
    }
}

/* --------------------------------------------------------------- welcome */

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The WelcomeMessage of §2.3: 1170 bytes, or in protocols 64-74 1178 with
 * the client's queue delay (u64 ticks) at offset 24 and every later field
 * 8 bytes further (protocol-older.md §2). */
static void build_welcome(const struct tc_client *c, uint8_t *w)
{
    const size_t d = proto_feature(&c->proto, TC_FEAT_WELCOME_DELAY) ? 8 : 0;
    memset(w, 0, c->proto.welcome_size);
    uint64_t mul_bits;
    memcpy(&mul_bits, &c->welcome.timer_mul, sizeof(mul_bits));
    put_le(w + 0, mul_bits, 8);                /* normally 1.0: ticks are ns */
    put_le(w + 8, (uint64_t)c->welcome.init_begin, 8);
    put_le(w + 16, (uint64_t)c->init_end, 8);
    if (d)
        put_le(w + 24, c->welcome.queue_delay, 8);
    w += d;
    put_le(w + 24, c->welcome.resolution, 8);  /* normally 10 ticks */
    put_le(w + 32, (uint64_t)time(NULL), 8);   /* epoch */
    put_le(w + 40, c->welcome.exectime, 8);    /* 0: unknown */
    put_le(w + 48, (uint64_t)getpid(), 8);
    put_le(w + 56, (uint64_t)c->welcome.sampling_period, 8);
    w[64] = c->welcome.flags;                  /* normal: none, no CodeTransfer */
    w[65] = TC_CPU_ARCH_X64;
    memcpy(w + 66, "TestClient  ", 12);
    put_le(w + 78, 0, 4);                      /* cpuId */
    snprintf((char *)w + 82, 64, "%s", c->opt.program_name);
    snprintf((char *)w + 146, 1024,
             "OS: Linux (tracy-test-client)\n"
             "Compiler: tracy-test-client (C11)\n"
             "User: test@localhost\n"
             "Arch: x64\n"
             "CPU: Invented CPU @ 1.00 GHz\n"
             "CPU cores: 4\n"
             "RAM: 4096 MB\n"
             "Scenario: %s\n",
             c->opt.scenario_name);
}

/* --------------------------------------------------------- query service */

static void handle_disconnect(struct tc_client *c)
{
    if (c->disconnecting)
        return;
    tc_log(c, "server asked to disconnect; sending Terminate");
    c->disconnecting = true;
    wire_send_terminate(c);
    c->terminate_sent = true;
}

bool session_active(const struct tc_client *c)
{
    return wire_alive(c) && !c->disconnecting;
}

void session_pump(struct tc_client *c)
{
    if (c->in_answer || !wire_alive(c))
        return;
    c->in_answer = true;
    wire_poll(c, 0);
    struct tc_query q;
    while (wire_alive(c) && wire_pop_query(c, &q))
        if (!queries_answer(c, &q))
            handle_disconnect(c);
    c->in_answer = false;
}

void session_flush(struct tc_client *c)
{
    session_pump(c);
    wire_commit(c);
}

void session_idle(struct tc_client *c, int ms)
{
    int64_t end = tc_now_ns() + (int64_t)ms * 1000000;
    for (;;) {
        session_flush(c);
        if (!wire_alive(c))
            return;
        if (!c->terminate_sent && tc_now_ns() - c->wire.last_send_ns >= KEEPALIVE_NS) {
            ev_keep_alive(c);
            wire_commit(c);
        }
        int64_t left = (end - tc_now_ns()) / 1000000;
        if (left <= 0)
            return;
        wire_poll(c, left > 100 ? 100 : (int)left);
    }
}

void session_finish(struct tc_client *c)
{
    session_flush(c);
    if (!c->terminate_sent && wire_alive(c)) {
        wire_send_terminate(c);
        c->terminate_sent = true;
    }
    while (wire_alive(c)) {
        wire_poll(c, 100);
        session_flush(c);
    }
}

/* ----------------------------------------------------- failure injection */

void session_send_partial_frame(struct tc_client *c)
{
    const char *framed;
    size_t n = wire_compress_pending(c, &framed);
    size_t half = 4 + (n - 4) / 2;
    wire_send_raw(c, framed, half);
}

void session_send_garbage(struct tc_client *c, enum tc_garbage_kind kind)
{
    static const uint8_t bad_block[] = { 0xF0, 0xFF, 0xFF, 0x10, 'a', 'b' };
    uint8_t buf[4 + 64] = { 0 };
    switch (kind) {
    case TC_GARBAGE_LENGTH:
        put_le(buf, TC_LZ4_SIZE + 1, 4);       /* one more than LZ4Size */
        wire_send_raw(c, buf, sizeof(buf));
        break;
    case TC_GARBAGE_LZ4:                       /* literal run past the block end */
        put_le(buf, sizeof(bad_block), 4);
        memcpy(buf + 4, bad_block, sizeof(bad_block));
        wire_send_raw(c, buf, 4 + sizeof(bad_block));
        break;
    case TC_GARBAGE_EVENT:                     /* a type no protocol has */
    case TC_GARBAGE_NEXT_TYPE: {               /* the one after the protocol's last */
        uint8_t ev[17] = { ev_wire_type(c, TC_EV_KEEP_ALIVE),
                           kind == TC_GARBAGE_EVENT ? 201 : c->proto.n_types };
        ev_raw(c, ev, sizeof(ev));
        wire_commit(c);
        break;
    }
    default:
        break;                                 /* kinds of the malformed scenario */
    }
}

/* Read and drop whatever the server sends until it closes or ms pass. */
static void drain_until_eof(struct tc_client *c, int ms)
{
    int64_t end = tc_now_ns() + (int64_t)ms * 1000000;
    char buf[4096];
    while (c->wire.fd >= 0 && tc_now_ns() < end) {
        struct pollfd pfd = { .fd = c->wire.fd, .events = POLLIN };
        if (poll(&pfd, 1, 50) <= 0)
            continue;
        ssize_t n = recv(c->wire.fd, buf, sizeof(buf), 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
            return;
    }
}

void session_abort(struct tc_client *c, enum tc_abort how)
{
    if (c->wire.fd < 0)
        return;
    switch (how) {
    case TC_ABORT_RESET: {
        int64_t end = tc_now_ns() + (int64_t)ABORT_WAIT_MS * 1000000;
        while (wire_unsent_bytes(c) > 0 && tc_now_ns() < end) {
            struct timespec ts = { 0, 5000000 };
            nanosleep(&ts, NULL);
        }
        wire_close(c, true);
        return;
    }
    case TC_ABORT_HALF_CLOSE:
        shutdown(c->wire.fd, SHUT_WR);
        drain_until_eof(c, ABORT_WAIT_MS);
        break;
    case TC_ABORT_WAIT_PEER:
        drain_until_eof(c, 2 * ABORT_WAIT_MS);
        break;
    }
    wire_close(c, false);
}

/* ---------------------------------------------------------------- serve */

enum hs_result { HS_OK, HS_BAD };

static enum hs_result read_handshake(int fd, uint32_t *version)
{
    char shib[TC_SHIBBOLETH_SIZE];
    uint8_t v[4];
    if (!read_exact_timeout(fd, shib, sizeof(shib), HANDSHAKE_TIMEOUT_MS) ||
        memcmp(shib, TC_SHIBBOLETH, TC_SHIBBOLETH_SIZE) != 0)
        return HS_BAD;
    if (!read_exact_timeout(fd, v, sizeof(v), HANDSHAKE_TIMEOUT_MS))
        return HS_BAD;
    *version = (uint32_t)v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 |
               (uint32_t)v[3] << 24;
    return HS_OK;
}

/* The session ended: say how, for the manifest and on stderr. */
static void classify_end(struct tc_client *c)
{
    struct tc_wire *w = &c->wire;
    if (w->timed_out) {
        c->man.end_reason = "timeout";
        fprintf(stderr, "tracy-test-client: gave up: --timeout reached\n");
    } else if (c->man.end_reason && strcmp(c->man.end_reason, "no-session") != 0) {
        return; /* set by a failure scenario */
    } else if (w->got_terminate) {
        c->man.end_reason = c->disconnecting ? "disconnect"
                            : c->terminate_sent ? "terminate" : "server-terminated";
    } else {
        c->man.end_reason = "server-closed";
        if (c->terminate_sent)
            tc_log(c, "server closed the connection without ServerQueryTerminate");
        else
            tc_log(c, "server closed the connection before the session ended");
    }
}

static void serve_session(struct tc_client *c, int fd)
{
    uint8_t welcome[TC_WELCOME_SIZE_OLD];
    uint8_t status = TC_HS_WELCOME;
    open_record(c);
    wire_attach(c, fd);                        /* also resets the LZ4 stream */
    wire_send_raw(c, &status, 1);
    build_welcome(c, welcome);
    wire_send_raw(c, welcome, c->proto.welcome_size);
    if (c->welcome.flags & TC_WELCOME_ON_DEMAND) {
        uint8_t payload[TC_ON_DEMAND_SIZE];
        put_le(payload, c->welcome.ondemand_frames, 8);
        put_le(payload + 8, (uint64_t)c->welcome.ondemand_time, 8);
        wire_send_raw(c, payload, sizeof(payload));
    }
    ev_reset(c);
    c->disconnecting = c->terminate_sent = false;
    scenario_run(c);
    classify_end(c);
    wire_close(c, false);
}

/* A server offered another version and got ProtocolMismatch: note it.
 * True when --protocol none has now turned away every known version (the
 * session ends there: nothing is accepted). */
static bool refuse(struct tc_client *c, uint32_t version)
{
    if (c->opt.protocol == TC_PROTOCOL_NONE)
        tc_log(c, "server speaks protocol %u; --protocol none: sent ProtocolMismatch", version);
    else
        tc_log(c, "server speaks protocol %u, not %u: sent ProtocolMismatch", version,
               c->opt.protocol);
    if (c->n_refused < TC_MAX_REFUSED)
        c->refused[c->n_refused++] = version;
    size_t n;
    const uint32_t *known = proto_versions(&n);
    for (size_t i = 0; i < n; i++)
        if (known[i] == version)
            c->refused_known |= 1u << i;
    if (c->opt.protocol != TC_PROTOCOL_NONE || c->refused_known != (1u << n) - 1)
        return false;
    tc_log(c, "every protocol (%s) was offered and refused", proto_version_list());
    c->man.end_reason = "refused";
    return true;
}

int session_serve(struct tc_client *c)
{
    for (;;) {
        int fd = accept_connection(c);
        if (fd < 0) {
            c->man.end_reason = "timeout";
            fprintf(stderr, "tracy-test-client: gave up waiting for a connection\n");
            return 3;
        }
        uint32_t version = 0;
        if (read_handshake(fd, &version) != HS_OK) {
            tc_log(c, "bad or missing handshake; connection dropped");
            close(fd);
            continue;
        }
        if (c->opt.scenario == TC_SCEN_DROP) {
            open_record(c);
            close(fd);
            c->man.end_reason = "drop";
            return 0;
        }
        if (c->opt.scenario == TC_SCEN_NOT_AVAILABLE) {
            uint8_t status = TC_HS_NOT_AVAILABLE;
            open_record(c);
            if (c->wire.record)
                fwrite(&status, 1, 1, c->wire.record);
            send_status_and_close(fd, status);
            c->man.end_reason = "not-available";
            return 0;
        }
        if (c->opt.protocol == TC_PROTOCOL_NONE || version != c->opt.protocol) {
            send_status_and_close(fd, TC_HS_PROTOCOL_MISMATCH);
            if (refuse(c, version))
                return 0;
            continue;
        }
        broadcast_close(c);                    /* one session: never available again */
        serve_session(c, fd);
        return c->wire.timed_out ? 3 : 0;
    }
}
