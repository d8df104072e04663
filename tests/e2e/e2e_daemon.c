/* e2e_daemon.c - end-to-end tests (Check) of tracy-capture-daemon: many
 * test clients of every protocol at once, announced on a UDP port of the
 * test's own or named with -a, and how the daemon ends (--max-clients,
 * --idle-exit, signals, a target that never appears), checking its exit
 * status, its event lines and summary, each file's name and format, and
 * what each file holds against the client's manifest (through our reader,
 * tracy-csv).
 *
 * Usage: daemon-e2e TRACY_CAPTURE_DAEMON TRACY_TEST_CLIENT TRACY_CSV */
#include <check.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e_util.h"

/* The programs under test (set once by main). */
static struct {
    const char *daemon, *client, *reader;
} prog;

/* Each protocol's file format stamp: what the reader's summary says of a
 * trace saved in the format of the protocol's release. */
static const char *stamp_of(const char *protocol)
{
    static const struct { const char *protocol, *stamp; } stamps[] = {
        { "82", "0.14.0" }, { "76", "0.13.0" }, { "74", "0.12.0" }, { "72", "0.11.2" },
        { "69", "0.11.1" }, { "66", "0.11.0" }, { "64", "0.10.0" },
    };
    for (size_t i = 0; i < sizeof stamps / sizeof stamps[0]; i++)
        if (strcmp(stamps[i].protocol, protocol) == 0) return stamps[i].stamp;
    ck_abort_msg("no stamp for protocol %s", protocol);
    return NULL;
}

/* How many times `needle` occurs in `text`. */
static int occurrences(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* A UDP port nothing is bound to (just now), for the announcements. */
static void free_udp_port(char *out, size_t n)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t len = sizeof a;
    ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(getsockname(s, (struct sockaddr *)&a, &len), 0);
    snprintf(out, n, "%u", ntohs(a.sin_port));
    close(s);
}

/* ---- the daemon -------------------------------------------------------------------------- */

/* Text read from a pipe so far. */
typedef struct {
    int fd;         /* -1 once it reached its end */
    char *s;
    size_t n, cap;
} text_t;

/* The daemon under test: its output as it comes, and how it ended. */
typedef struct {
    pid_t pid;
    text_t out, err;
    double t_start, t_exit;
    int rc;         /* once exited: its status, 128+signal, or -1 when killed at the time limit */
    bool exited;
} daemon_proc_t;

static void text_init(text_t *t, int fd)
{
    *t = (text_t){ .fd = fd, .cap = 4096 };
    t->s = malloc(t->cap);
    t->s[0] = '\0';
}

/* Read what is there now; the end closes the pipe. */
static void text_read(text_t *t)
{
    if (t->fd < 0) return;
    if (t->n + 4096 > t->cap) t->s = realloc(t->s, t->cap *= 2);
    const ssize_t k = read(t->fd, t->s + t->n, t->cap - t->n - 1);
    if (k <= 0) {
        close(t->fd);
        t->fd = -1;
        return;
    }
    t->n += (size_t)k;
    t->s[t->n] = '\0';
}

/* Start the daemon writing into DIR, with more arguments (NULL-terminated).
 * It dies with the test, should the test fail first. */
static daemon_proc_t daemon_start(const char *dir, const char *first, ...)
{
    char *argv[64] = { (char *)prog.daemon, "-o", (char *)dir };
    int n = 3;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && n < 63; a = va_arg(ap, const char *)) argv[n++] = (char *)a;
    va_end(ap);
    argv[n] = NULL;
    daemon_proc_t d = { .t_start = now_s() };
    int out;
    const proc_t p = spawn_split(argv, &out);
    d.pid = p.pid;
    text_init(&d.out, out);
    text_init(&d.err, p.err);
    return d;
}

/* Read its output for up to `ms`, and see whether it exited. */
static void daemon_pump(daemon_proc_t *d, int ms)
{
    struct pollfd pf[2] = { { .fd = d->out.fd, .events = POLLIN }, { .fd = d->err.fd, .events = POLLIN } };
    if (poll(pf, 2, ms) > 0) {
        if (pf[0].revents) text_read(&d->out);
        if (pf[1].revents) text_read(&d->err);
    }
    int st;
    if (!d->exited && waitpid(d->pid, &st, WNOHANG) == d->pid) {
        d->exited = true;
        d->t_exit = now_s();
        d->rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
}

/* Wait until its stdout holds `count` lines with `text` (true), or it
 * exits, or `seconds` pass (false). */
static bool daemon_wait_for(daemon_proc_t *d, const char *text, int count, double seconds)
{
    const double end = now_s() + seconds;
    while (occurrences(d->out.s, text) < count) {
        if (d->exited || now_s() > end) return false;
        daemon_pump(d, 50);
    }
    return true;
}

/* Wait for it to exit by itself (killed after `seconds`: rc -1), then read
 * the rest of its output. */
static int daemon_finish(daemon_proc_t *d, double seconds)
{
    const double end = now_s() + seconds;
    while (!d->exited && now_s() < end) daemon_pump(d, 50);
    if (!d->exited) {
        kill(d->pid, SIGKILL);
        waitpid(d->pid, NULL, 0);
        d->exited = true;
        d->t_exit = now_s();
        d->rc = -1;
    }
    const double stop = now_s() + 5;
    while ((d->out.fd >= 0 || d->err.fd >= 0) && now_s() < stop) daemon_pump(d, 100);
    return d->rc;
}

static void daemon_free(daemon_proc_t *d)
{
    if (d->out.fd >= 0) close(d->out.fd);
    if (d->err.fd >= 0) close(d->err.fd);
    free(d->out.s);
    free(d->err.s);
}

/* Its output (and status), for a failure's message: the ends, as Check
 * takes messages of a few KB only. */
#define SAID_FMT "stdout:\n...%s\nstderr:\n...%s"
#define SAID_ARGS(d) tail_of((d)->out.s, 2500), tail_of((d)->err.s, 1000)
#define DAEMON_SAID(d) SAID_FMT, SAID_ARGS(d)
#define DAEMON_RC(d) "rc %d: " SAID_FMT, (d)->rc, SAID_ARGS(d)

/* The last `n` bytes of a text. */
static const char *tail_of(const char *s, size_t n)
{
    const size_t len = strlen(s);
    return len > n ? s + len - n : s;
}

/* The summary part of its stdout. */
static const char *summary_of(const daemon_proc_t *d)
{
    const char *s = strstr(d->out.s, "=== Capture summary ===\n");
    ck_assert_msg(s, "no summary: " DAEMON_SAID(d));
    return s;
}

/* ---- the test clients -------------------------------------------------------------------- */

/* One test client: how it is started. */
typedef struct {
    const char *name;       /* --name */
    const char *protocol;
    const char *scenario;   /* NULL: normal */
    bool announce;          /* else not announcing: an -a target */
    const char *timeout;    /* its own --timeout (NULL: 60) */
    const char *seconds;    /* --seconds (NULL: the scenario's default) */
} spec_t;

/* Start it on `port` ("0": any), announcing to `udp` if the spec says so,
 * writing its manifest to `manifest` (NULL: none). */
static client_t client_start(const spec_t *s, const char *port, const char *udp, const char *manifest)
{
    char *argv[32] = { (char *)prog.client, "--port", (char *)port,
                       "--timeout", (char *)(s->timeout ? s->timeout : "60"),
                       "--name", (char *)s->name, "--protocol", (char *)s->protocol,
                       "--scenario", (char *)(s->scenario ? s->scenario : "normal") };
    int n = 11;
    if (s->announce) {
        argv[n++] = "--announce";
        argv[n++] = (char *)udp;
        argv[n++] = "--announce-interval";
        argv[n++] = "100";
    }
    if (s->seconds) {
        argv[n++] = "--seconds";
        argv[n++] = (char *)s->seconds;
    }
    if (manifest) {
        argv[n++] = "--manifest";
        argv[n++] = (char *)manifest;
    }
    argv[n] = NULL;
    return client_spawn(argv);
}

/* Where the daemon saves a client of this program name at 127.0.0.1:PORT:
 * DIR/NAME_127.0.0.1_PORT.tracy, with `_N` for the N+1th of that name
 * (N = 0: none), spaces in the name made underscores (as upstream's
 * tracy-capture-daemon names them; the test's names hold nothing else
 * it changes). */
static void trace_path(char *out, size_t len, const char *dir, const char *name, const char *port, int nth)
{
    char clean[64];
    snprintf(clean, sizeof clean, "%s", name);
    for (char *p = clean; *p; p++)
        if (*p == ' ') *p = '_';
    if (nth == 0) snprintf(out, len, "%s/%s_127.0.0.1_%s.tracy", dir, clean, port);
    else snprintf(out, len, "%s/%s_127.0.0.1_%s_%d.tracy", dir, clean, port, nth);
}

/* How many files in `dir` end with `suffix`. */
static int files_ending(const char *dir, const char *suffix)
{
    DIR *dd = opendir(dir);
    if (!dd) return 0;
    int n = 0;
    const size_t sl = strlen(suffix);
    for (struct dirent *e; (e = readdir(dd));) {
        const size_t l = strlen(e->d_name);
        n += l >= sl && strcmp(e->d_name + l - sl, suffix) == 0;
    }
    closedir(dd);
    return n;
}

/* How many files in `dir` begin with `prefix`. */
static int files_beginning(const char *dir, const char *prefix)
{
    DIR *dd = opendir(dir);
    if (!dd) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(dd));) n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(dd);
    return n;
}

/* The trace at `path` is read by our reader, is stamped with the format of
 * `protocol`'s release, and holds what the manifest says was sent in a
 * session that ended as `end` says (the manifest's word): every family's
 * count (`min_counts` of them at least) and every source location's zones,
 * or, of a session that broke off mid-frame, exactly the zones of the
 * frames that arrived whole. */
static void check_trace(const tmp_t *t, const char *path, const char *manifest, const char *protocol,
                        const char *end, int min_counts)
{
    ck_assert_msg(file_exists(path), "no %s", path);
    ck_assert_msg(reader_exec(prog.reader, "--summary", path, t->summary) == 0, "the reader rejects %s", path);
    char *sum = read_file(t->summary), *man = read_file(manifest);
    ck_assert_ptr_nonnull(man);
    char want[64];
    snprintf(want, sizeof want, "version: %s\n", stamp_of(protocol));
    ck_assert_msg(strstr(sum, want), "%s (protocol %s) is not stamped %s:\n%s", path, protocol, stamp_of(protocol),
                  sum);
    ck_assert_int_gt(manifest_value(man, "zones"), 0);
    char end_line[64];
    snprintf(end_line, sizeof end_line, "\nend %s\n", end);
    ck_assert_msg(strstr(man, end_line), "%s: not 'end %s': %.3000s", path, end, man);
    if (strcmp(end, "disconnect-mid-frame") == 0) {
        ck_assert_int_eq(summary_value(sum, "zones"), manifest_value(man, "zones"));
    } else {
        ck_assert_int_ge(check_counts_match_manifest(man, sum), min_counts);
        ck_assert_int_eq(reader_exec(prog.reader, NULL, path, t->csv), 0);
        char *csv = read_file(t->csv);
        check_zones_match_manifest(man, csv);
        free(csv);
        if (manifest_value(man, "gpu_zones") > 0) {
            ck_assert_int_eq(reader_exec(prog.reader, "-g", path, t->csv), 0);
            char *gpu = read_file(t->csv);
            check_gpu_rows_match_manifest(man, gpu);
            free(gpu);
        }
    }
    free(sum);
    free(man);
}

/* The trace at `path` is read by our reader and holds some zones. */
static void check_has_zones(const tmp_t *t, const char *path)
{
    ck_assert_msg(file_exists(path), "no %s", path);
    ck_assert_msg(reader_exec(prog.reader, "--summary", path, t->summary) == 0, "the reader rejects %s", path);
    char *sum = read_file(t->summary);
    ck_assert_msg(summary_value(sum, "zones") > 0, "%s: %s", path, sum);
    free(sum);
}

/* Wait until the file at `path` holds `bytes` at least (true), or
 * `seconds` pass (false). */
static bool wait_for_size(const char *path, long bytes, double seconds)
{
    const double end = now_s() + seconds;
    struct stat st;
    while (stat(path, &st) != 0 || st.st_size < bytes) {
        if (now_s() > end) return false;
        usleep(20000);
    }
    return true;
}

/* One announcement as a real client sends it (broadcast version 3: u16
 * version, u16 data port, u32 protocol, u64 pid, i32 activeTime, the
 * name and its NUL), to 127.255.255.255:UDP only. */
static void announce_once(const char *udp, const char *port, uint64_t pid, const char *name)
{
    uint8_t msg[84] = { 3, 0 };
    const unsigned data_port = (unsigned)atoi(port), protocol = 82;
    msg[2] = (uint8_t)data_port;
    msg[3] = (uint8_t)(data_port >> 8);
    for (int i = 0; i < 4; i++) msg[4 + i] = (uint8_t)(protocol >> (8 * i));
    for (int i = 0; i < 8; i++) msg[8 + i] = (uint8_t)(pid >> (8 * i));
    /* activeTime 1 (bytes 16..19) */
    msg[16] = 1;
    const size_t n = strlen(name) < 63 ? strlen(name) : 63;
    memcpy(msg + 20, name, n);
    const int s = socket(AF_INET, SOCK_DGRAM, 0);
    const int one = 1;
    setsockopt(s, SOL_SOCKET, SO_BROADCAST, &one, sizeof one);
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(udp)),
                              .sin_addr.s_addr = htonl(0x7fffffff) };   /* 127.255.255.255 */
    ck_assert_int_eq(sendto(s, msg, 20 + n + 1, 0, (struct sockaddr *)&to, sizeof to), (ssize_t)(20 + n + 1));
    close(s);
}

/* ---- tests --------------------------------------------------------------------------------- */

/* Sixteen clients at once, of all seven protocols: announced ones, -a
 * targets found by the version search, one restarted on the same port (a
 * new pid: a second file, `_1`), one cut off mid-frame (saved, as
 * tracy-capture saves it: status 0), and one passed over by --filter-name
 * (no file; it stays unserved until its own time-out). --max-clients ends
 * the daemon by itself once the sixteen taken are saved. */
START_TEST(sixteen_clients_of_mixed_protocols)
{
    static const spec_t announced[] = {
        { .name = "e2e app 82", .protocol = "82", .announce = true },
        { .name = "e2e app 82b", .protocol = "82", .announce = true },
        { .name = "e2e app 76", .protocol = "76", .announce = true },
        { .name = "e2e app 76b", .protocol = "76", .announce = true },
        { .name = "e2e app 74", .protocol = "74", .announce = true },
        { .name = "e2e app 72", .protocol = "72", .announce = true },
        { .name = "e2e app 72b", .protocol = "72", .announce = true },
        { .name = "e2e app 69", .protocol = "69", .announce = true },
        { .name = "e2e app 66", .protocol = "66", .announce = true },
        { .name = "e2e app 64", .protocol = "64", .announce = true },
        { .name = "e2e cut", .protocol = "76", .scenario = "disconnect-mid-frame", .announce = true },
    };
    static const spec_t targets[] = {
        { .name = "e2e target 74", .protocol = "74" },
        { .name = "e2e target 69", .protocol = "69" },
        { .name = "e2e target 64", .protocol = "64" },
    };
    static const spec_t restarted = { .name = "e2e restart", .protocol = "66", .announce = true };
    static const spec_t bystander = { .name = "bystander", .protocol = "82", .announce = true, .timeout = "4" };
    enum { NA = sizeof announced / sizeof announced[0], NT = sizeof targets / sizeof targets[0] };
    /* the taken: announced, targets, and the restarted one's two runs */
    enum { TAKEN = NA + NT + 2 };

    tmp_t t = tmp_make();
    char out[128], udp[16], man[TAKEN][160], addr[NT][32], max[16];
    snprintf(out, sizeof out, "%s/out", t.dir);
    free_udp_port(udp, sizeof udp);
    for (int i = 0; i < TAKEN; i++) snprintf(man[i], sizeof man[i], "%s/manifest-%d.txt", t.dir, i);
    char bystander_man[160];
    snprintf(bystander_man, sizeof bystander_man, "%s/manifest-bystander.txt", t.dir);

    /* the targets first: their ports go on the command line */
    client_t tc[NT], ac[NA], rc1, rc2;
    for (int i = 0; i < NT; i++) {
        tc[i] = client_start(&targets[i], "0", udp, man[NA + i]);
        snprintf(addr[i], sizeof addr[i], "127.0.0.1:%s", tc[i].port);
    }
    snprintf(max, sizeof max, "%d", TAKEN);
    daemon_proc_t d = daemon_start(out, "-p", udp, "--filter-name", "e2e", "--max-clients", max, "--end-timeout", "5",
                                   "-a", addr[0], "-a", addr[1], "-a", addr[2], NULL);
    ck_assert_msg(daemon_wait_for(&d, "Listening for clients on UDP port", 1, 20), DAEMON_SAID(&d));

    /* the one filtered out, heard and passed over before the others come */
    client_t by = client_start(&bystander, "0", udp, bystander_man);
    ck_assert_msg(daemon_wait_for(&d, "passed over bystander at 127.0.0.1:", 1, 20), DAEMON_SAID(&d));

    for (int i = 0; i < NA; i++) ac[i] = client_start(&announced[i], "0", udp, man[i]);
    rc1 = client_start(&restarted, "0", udp, man[NA + NT]);
    /* served and gone, it starts again on the same port: a new pid */
    ck_assert_int_eq(client_finish(&rc1), 0);
    rc2 = client_start(&restarted, rc1.port, udp, man[NA + NT + 1]);
    ck_assert_str_eq(rc2.port, rc1.port);

    const int rc = daemon_finish(&d, 90);
    ck_assert_msg(rc == 0, DAEMON_RC(&d));
    for (int i = 0; i < NA; i++) ck_assert_msg(client_finish(&ac[i]) == 0, "%s", announced[i].name);
    for (int i = 0; i < NT; i++) ck_assert_msg(client_finish(&tc[i]) == 0, "%s", targets[i].name);
    ck_assert_int_eq(client_finish(&rc2), 0);
    /* nobody served the bystander: it gave up waiting, as it would alone */
    ck_assert_int_eq(client_finish(&by), 3);
    char *bm = read_file(bystander_man);
    ck_assert_msg(bm && strstr(bm, "\nend timeout") && !strstr(bm, "\nrefused "), "%s", bm ? bm : "no manifest");
    free(bm);
    ck_assert_int_eq(files_beginning(out, "bystander"), 0);
    ck_assert_msg(!strstr(d.out.s, "found bystander"), DAEMON_SAID(&d));

    /* every file by its name, in its release's format, holding what was sent */
    char path[256];
    for (int i = 0; i < NA; i++) {
        trace_path(path, sizeof path, out, announced[i].name, ac[i].port, 0);
        const char *end = announced[i].scenario ? announced[i].scenario : "terminate";
        check_trace(&t, path, man[i], announced[i].protocol, end, 8);
    }
    for (int i = 0; i < NT; i++) {
        trace_path(path, sizeof path, out, targets[i].name, tc[i].port, 0);
        check_trace(&t, path, man[NA + i], targets[i].protocol, "terminate", 8);
    }
    trace_path(path, sizeof path, out, restarted.name, rc1.port, 0);
    check_trace(&t, path, man[NA + NT], restarted.protocol, "terminate", 8);
    trace_path(path, sizeof path, out, restarted.name, rc1.port, 1);
    check_trace(&t, path, man[NA + NT + 1], restarted.protocol, "terminate", 8);
    ck_assert_msg(files_ending(out, ".tracy") == TAKEN, DAEMON_SAID(&d));
    ck_assert_msg(files_ending(out, ".spool") == 0, DAEMON_SAID(&d));

    /* the cut one is said so; the summary has all sixteen */
    ck_assert_msg(strstr(d.err.s, "the client closed the connection before the session ended"), DAEMON_SAID(&d));
    const char *s = summary_of(&d);
    ck_assert_int_eq(occurrences(s, " -> "), TAKEN);
    char total[64];
    snprintf(total, sizeof total, "Total: %d files, ", TAKEN);
    ck_assert_msg(strstr(s, total) && strstr(s, "; 0 clients not saved\n"), DAEMON_SAID(&d));
    ck_assert_int_eq(occurrences(d.out.s, "] saved "), TAKEN);
    daemon_free(&d);
    tmp_remove(&t);
}
END_TEST

/* A few streams, and one capture whose orderly end cannot be over by the
 * second signal (its client never answers the String queries, so that end
 * would last --end-timeout, 60 s; a stream's alone often is over within
 * milliseconds, and then there is nothing left to save at once): the first
 * SIGINT begins the orderly end, the second saves every capture still
 * going at once, the daemon exits at once with tracy-capture's status for
 * that (130), and every file is a readable trace. */
START_TEST(second_signal_saves_at_once)
{
    static const spec_t streams[] = {
        { .name = "stream a", .protocol = "82", .scenario = "stream", .seconds = "30", .announce = true },
        { .name = "stream b", .protocol = "74", .scenario = "stream", .seconds = "30", .announce = true },
        { .name = "stream c", .protocol = "64", .scenario = "stream", .seconds = "30", .announce = true },
        { .name = "waits", .protocol = "82", .scenario = "no-answer", .announce = true },
    };
    enum { N = sizeof streams / sizeof streams[0] };
    tmp_t t = tmp_make();
    char out[128], udp[16];
    snprintf(out, sizeof out, "%s/out", t.dir);
    free_udp_port(udp, sizeof udp);
    daemon_proc_t d = daemon_start(out, "-p", udp, "--end-timeout", "60", NULL);
    ck_assert_msg(daemon_wait_for(&d, "Listening for clients", 1, 20), DAEMON_SAID(&d));
    client_t c[N];
    for (int i = 0; i < N; i++) c[i] = client_start(&streams[i], "0", udp, NULL);
    ck_assert_msg(daemon_wait_for(&d, "] connected to ", N, 30), DAEMON_SAID(&d));
    /* every session under way: some of its input received (and so, most
     * likely, decoded: what a second signal saves) */
    char path[256], spool[272];
    for (int i = 0; i < N; i++) {
        trace_path(path, sizeof path, out, streams[i].name, c[i].port, 0);
        snprintf(spool, sizeof spool, "%s.spool", path);
        ck_assert_msg(wait_for_size(spool, 8192, 30), "%s stays small", spool);
    }

    kill(d.pid, SIGINT);
    ck_assert_msg(daemon_wait_for(&d, "interrupted: ending ", 1, 20), DAEMON_SAID(&d));
    const double t_second = now_s();
    kill(d.pid, SIGINT);
    const int rc = daemon_finish(&d, 60);
    ck_assert_msg(rc == 130, DAEMON_RC(&d));
    ck_assert_msg(d.t_exit - t_second < 10, "took %.1f s after the second signal", d.t_exit - t_second);
    ck_assert_msg(strstr(d.out.s, "second signal: saving at once"), DAEMON_SAID(&d));
    for (int i = 0; i < N; i++) ck_assert_int_eq(client_finish(&c[i]), 0);

    /* input not decoded by then is left out (as tracy-capture leaves it),
     * so a file may hold little, but every one is a trace, and not all
     * are empty */
    long long zones = 0;
    for (int i = 0; i < N; i++) {
        trace_path(path, sizeof path, out, streams[i].name, c[i].port, 0);
        ck_assert_msg(file_exists(path), "no %s", path);
        ck_assert_msg(reader_exec(prog.reader, "--summary", path, t.summary) == 0, "the reader rejects %s", path);
        char *sum = read_file(t.summary);
        ck_assert_msg(summary_value(sum, "zones") >= 0, "%s: %s", path, sum);
        zones += summary_value(sum, "zones");
        free(sum);
    }
    ck_assert_int_gt(zones, 0);
    ck_assert_int_eq(files_ending(out, ".tracy"), N);
    const char *s = summary_of(&d);
    ck_assert_msg(strstr(s, "saved at once (second signal)"), DAEMON_SAID(&d));
    ck_assert_int_eq(occurrences(s, " -> "), N);
    ck_assert_msg(strstr(s, "Total: 4 files, ") && strstr(s, "; 0 clients not saved\n"), DAEMON_SAID(&d));
    daemon_free(&d);
    tmp_remove(&t);
}
END_TEST

/* SIGTERM ends every stream in the orderly way: each client is asked to
 * end its session and does, every trace is saved with all that was sent,
 * and the status is 0. */
START_TEST(sigterm_saves_every_capture)
{
    static const spec_t streams[] = {
        { .name = "stream a", .protocol = "82", .scenario = "stream", .seconds = "30", .announce = true },
        { .name = "stream b", .protocol = "76", .scenario = "stream", .seconds = "30", .announce = true },
        { .name = "stream c", .protocol = "66", .scenario = "stream", .seconds = "30", .announce = true },
    };
    enum { N = sizeof streams / sizeof streams[0] };
    tmp_t t = tmp_make();
    char out[128], udp[16], man[N][160];
    snprintf(out, sizeof out, "%s/out", t.dir);
    free_udp_port(udp, sizeof udp);
    daemon_proc_t d = daemon_start(out, "-p", udp, NULL);
    ck_assert_msg(daemon_wait_for(&d, "Listening for clients", 1, 20), DAEMON_SAID(&d));
    client_t c[N];
    for (int i = 0; i < N; i++) {
        snprintf(man[i], sizeof man[i], "%s/manifest-%d.txt", t.dir, i);
        c[i] = client_start(&streams[i], "0", udp, man[i]);
    }
    ck_assert_msg(daemon_wait_for(&d, "] connected to ", N, 30), DAEMON_SAID(&d));
    const double t_signal = now_s();
    kill(d.pid, SIGTERM);
    const int rc = daemon_finish(&d, 60);
    ck_assert_msg(rc == 0, DAEMON_RC(&d));
    ck_assert_msg(d.t_exit - t_signal < 15, "took %.1f s", d.t_exit - t_signal);
    /* each client was asked to end, and ended its session */
    for (int i = 0; i < N; i++) ck_assert_int_eq(client_finish(&c[i]), 0);
    char path[256];
    for (int i = 0; i < N; i++) {
        trace_path(path, sizeof path, out, streams[i].name, c[i].port, 0);
        check_trace(&t, path, man[i], streams[i].protocol, "disconnect", 8);
    }
    ck_assert_int_eq(files_ending(out, ".tracy"), N);
    ck_assert_int_eq(files_ending(out, ".spool"), 0);
    const char *s = summary_of(&d);
    ck_assert_int_eq(occurrences(s, "): terminated\n"), N);
    ck_assert_msg(strstr(s, "Total: 3 files, ") && strstr(s, "; 0 clients not saved\n"), DAEMON_SAID(&d));
    daemon_free(&d);
    tmp_remove(&t);
}
END_TEST

/* --idle-exit 1: with two short sessions, the daemon ends by itself about
 * a second after the last is saved; with no client at all, a second after
 * it began, with an empty summary. Status 0 both times. */
START_TEST(idle_exit_ends_after_the_last_capture)
{
    static const spec_t shorts[] = {
        { .name = "short a", .protocol = "82", .announce = true },
        { .name = "short b", .protocol = "69", .announce = true },
    };
    tmp_t t = tmp_make();
    char out[128], udp[16], man[2][160];
    snprintf(out, sizeof out, "%s/out", t.dir);
    free_udp_port(udp, sizeof udp);
    /* the clients announce themselves before the daemon listens: it hears
     * them at once, well within its idle second */
    client_t c[2];
    for (int i = 0; i < 2; i++) {
        snprintf(man[i], sizeof man[i], "%s/manifest-%d.txt", t.dir, i);
        c[i] = client_start(&shorts[i], "0", udp, man[i]);
    }
    daemon_proc_t d = daemon_start(out, "-p", udp, "--idle-exit", "1", NULL);
    ck_assert_msg(daemon_wait_for(&d, "] saved ", 2, 30), DAEMON_SAID(&d));
    const double t_saved = now_s();
    int rc = daemon_finish(&d, 30);
    ck_assert_msg(rc == 0, DAEMON_RC(&d));
    ck_assert_msg(d.t_exit - t_saved > 0.5 && d.t_exit - t_saved < 10, "exited %.2f s after the last save",
                  d.t_exit - t_saved);
    ck_assert_msg(strstr(d.out.s, "idle: no capture is running; exiting"), DAEMON_SAID(&d));
    char path[256];
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(client_finish(&c[i]), 0);
        trace_path(path, sizeof path, out, shorts[i].name, c[i].port, 0);
        check_trace(&t, path, man[i], shorts[i].protocol, "terminate", 8);
    }
    ck_assert_msg(strstr(summary_of(&d), "Total: 2 files, "), DAEMON_SAID(&d));
    daemon_free(&d);

    /* nobody at all */
    char out2[160];
    snprintf(out2, sizeof out2, "%s/empty", t.dir);
    free_udp_port(udp, sizeof udp);
    d = daemon_start(out2, "-p", udp, "--idle-exit", "1", NULL);
    rc = daemon_finish(&d, 30);
    ck_assert_msg(rc == 0, DAEMON_RC(&d));
    const double took = d.t_exit - d.t_start;
    ck_assert_msg(took > 0.9 && took < 10, "exited after %.2f s", took);
    ck_assert_msg(strstr(summary_of(&d), "=== Capture summary ===\nTotal: 0 files, 0 bytes; 0 clients not saved\n"),
                  DAEMON_SAID(&d));
    ck_assert_int_eq(files_ending(out2, ".tracy"), 0);
    daemon_free(&d);
    tmp_remove(&t);
}
END_TEST

/* A target nobody listens at, with nothing else to wait for: tried until
 * --idle-exit ends the daemon, which then says it was not saved and exits
 * with tracy-capture's status for a client that never answered (6). */
START_TEST(target_that_never_appears)
{
    tmp_t t = tmp_make();
    char out[128], port[16], target[32];
    snprintf(out, sizeof out, "%s/out", t.dir);
    free_port(port, sizeof port);
    snprintf(target, sizeof target, "127.0.0.1:%s", port);
    daemon_proc_t d = daemon_start(out, "--no-listen", "-a", target, "--idle-exit", "1", NULL);
    const int rc = daemon_finish(&d, 30);
    ck_assert_msg(rc == 6, DAEMON_RC(&d));
    const double took = d.t_exit - d.t_start;
    ck_assert_msg(took > 0.9 && took < 10, "exited after %.2f s", took);
    ck_assert_msg(strstr(d.out.s, "[1] waiting for the client at 127.0.0.1:"), DAEMON_SAID(&d));
    char line[96];
    snprintf(line, sizeof line, "  [1] client @ 127.0.0.1:%s: not saved: ", port);
    const char *s = summary_of(&d);
    ck_assert_msg(strstr(s, line) && strstr(s, "(exit status 6)\n"), DAEMON_SAID(&d));
    ck_assert_msg(strstr(s, "Total: 0 files, 0 bytes; 1 client not saved\n"), DAEMON_SAID(&d));
    ck_assert_int_eq(files_ending(out, ".tracy"), 0);
    ck_assert_int_eq(files_ending(out, ".spool"), 0);
    daemon_free(&d);
    tmp_remove(&t);
}
END_TEST

/* An -a target of protocol 69 that does not announce itself and appears
 * only after the daemon began trying it: taken when it appears, found by
 * the version search (82, 76, 74 and 72 offered and refused first), saved
 * in its release's format, named by the program name of its welcome.
 * Every event family of the protocol, checked against the manifest. */
START_TEST(explicit_target_found_by_version_search)
{
    static const spec_t target = { .name = "my prog", .protocol = "69", .scenario = "everything" };
    tmp_t t = tmp_make();
    char out[128], port[16], addr[32];
    snprintf(out, sizeof out, "%s/out", t.dir);
    free_port(port, sizeof port);
    snprintf(addr, sizeof addr, "127.0.0.1:%s", port);
    daemon_proc_t d = daemon_start(out, "--no-listen", "-a", addr, NULL);
    ck_assert_msg(daemon_wait_for(&d, "[1] waiting for the client at ", 1, 20), DAEMON_SAID(&d));
    usleep(300000);     /* a few attempts find nobody there */
    client_t c = client_start(&target, port, NULL, t.manifest);
    const int rc = daemon_finish(&d, 60);
    ck_assert_msg(rc == 0, DAEMON_RC(&d));
    ck_assert_int_eq(client_finish(&c), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/my_prog_127.0.0.1_%s.tracy", out, c.port);
    check_trace(&t, path, t.manifest, "69", "terminate", 10);
    char *man = read_file(t.manifest);
    ck_assert_msg(strstr(man, "\nrefused 82\nrefused 76\nrefused 74\nrefused 72\n") &&
                  occurrences(man, "\nrefused ") == 4, "%s",
                  man);
    free(man);
    char want[384];
    snprintf(want, sizeof want, "] connected to my prog at 127.0.0.1:%s (Tracy 0.11.1, protocol 69)", c.port);
    ck_assert_msg(strstr(d.out.s, want), DAEMON_SAID(&d));
    snprintf(want, sizeof want, "  [1] my prog @ 127.0.0.1:%s -> %s (", c.port, path);
    ck_assert_msg(strstr(summary_of(&d), want), DAEMON_SAID(&d));
    ck_assert_int_eq(files_ending(out, ".tracy"), 1);
    daemon_free(&d);
    tmp_remove(&t);
}
END_TEST

/* --max-clients 2 with three clients announcing: two are taken and saved,
 * then the daemon stops listening and exits by itself; the third is left
 * unserved until its own time-out. */
START_TEST(max_clients_stops_listening)
{
    static const spec_t three[] = {
        { .name = "one", .protocol = "82", .announce = true, .timeout = "6" },
        { .name = "two", .protocol = "76", .announce = true, .timeout = "6" },
        { .name = "three", .protocol = "64", .announce = true, .timeout = "6" },
    };
    tmp_t t = tmp_make();
    char out[128], udp[16];
    snprintf(out, sizeof out, "%s/out", t.dir);
    free_udp_port(udp, sizeof udp);
    daemon_proc_t d = daemon_start(out, "-p", udp, "--max-clients", "2", NULL);
    ck_assert_msg(daemon_wait_for(&d, "Listening for clients", 1, 20), DAEMON_SAID(&d));
    client_t c[3];
    for (int i = 0; i < 3; i++) c[i] = client_start(&three[i], "0", udp, NULL);
    const int rc = daemon_finish(&d, 60);
    ck_assert_msg(rc == 0, DAEMON_RC(&d));
    ck_assert_int_eq(occurrences(d.out.s, "] found "), 2);
    ck_assert_int_eq(files_ending(out, ".tracy"), 2);
    int served = 0, unserved = 0;
    char path[256];
    for (int i = 0; i < 3; i++) {
        const int crc = client_finish(&c[i]);
        trace_path(path, sizeof path, out, three[i].name, c[i].port, 0);
        if (crc == 0) {
            served++;
            check_has_zones(&t, path);
        } else {
            ck_assert_msg(crc == 3, "%s: rc %d", three[i].name, crc);
            ck_assert(!file_exists(path));
            unserved++;
        }
    }
    ck_assert_int_eq(served, 2);
    ck_assert_int_eq(unserved, 1);
    ck_assert_msg(strstr(summary_of(&d), "Total: 2 files, "), DAEMON_SAID(&d));
    daemon_free(&d);
    tmp_remove(&t);
}
END_TEST

/* A client busy with another server (here another daemon's capture) is
 * announced (as a real client announced itself before that server
 * connected): the daemon connects, its handshake is not answered, and
 * --idle-exit ends the wait. That client was no capture of this daemon:
 * passed over, no file, status 0 (it was a failure, status 6, "never
 * connected", when the stop came before the 10 s handshake time-out). */
START_TEST(announced_client_busy_elsewhere_is_no_failure)
{
    static const spec_t busy = { .name = "busy", .protocol = "82", .scenario = "stream", .seconds = "30" };
    tmp_t t = tmp_make();
    char out_a[128], out_b[128], addr[32], udp[16], man[160];
    snprintf(out_a, sizeof out_a, "%s/a", t.dir);
    snprintf(out_b, sizeof out_b, "%s/b", t.dir);
    snprintf(man, sizeof man, "%s/manifest.txt", t.dir);
    client_t c = client_start(&busy, "0", NULL, man);
    snprintf(addr, sizeof addr, "127.0.0.1:%s", c.port);
    daemon_proc_t a = daemon_start(out_a, "--no-listen", "-a", addr, NULL);
    ck_assert_msg(daemon_wait_for(&a, "[1] connected to busy", 1, 20), DAEMON_SAID(&a));

    free_udp_port(udp, sizeof udp);
    daemon_proc_t b = daemon_start(out_b, "-p", udp, "--idle-exit", "1", NULL);
    ck_assert_msg(daemon_wait_for(&b, "Listening for clients", 1, 20), DAEMON_SAID(&b));
    const double end = now_s() + 20;
    while (!strstr(b.out.s, "[1] found busy at ") && !b.exited && now_s() < end) {
        announce_once(udp, c.port, (uint64_t)c.p.pid, "busy");
        daemon_pump(&b, 100);
    }
    const int rc = daemon_finish(&b, 30);
    ck_assert_msg(rc == 0, DAEMON_RC(&b));
    ck_assert_msg(strstr(b.out.s, "[1] found busy at ") && strstr(b.out.s, "[1] busy at ") &&
                  strstr(b.out.s, " did not answer: busy with another server or gone"), DAEMON_SAID(&b));
    ck_assert_msg(strstr(summary_of(&b), "=== Capture summary ===\nTotal: 0 files, 0 bytes; 0 clients not saved\n"),
                  DAEMON_SAID(&b));
    ck_assert_int_eq(files_ending(out_b, ".tracy"), 0);
    ck_assert_int_eq(files_ending(out_b, ".spool"), 0);

    /* the other capture went on undisturbed */
    kill(a.pid, SIGTERM);
    ck_assert_msg(daemon_finish(&a, 60) == 0, DAEMON_RC(&a));
    ck_assert_int_eq(client_finish(&c), 0);
    char path[256];
    trace_path(path, sizeof path, out_a, busy.name, c.port, 0);
    check_trace(&t, path, man, "82", "disconnect", 8);
    daemon_free(&a);
    daemon_free(&b);
    tmp_remove(&t);
}
END_TEST

static Suite *daemon_suite(void)
{
    Suite *s = suite_create("tracy-capture-daemon end to end");
    TCase *tc = tcase_create("daemon");
    tcase_set_timeout(tc, 150);
    tcase_add_test(tc, sixteen_clients_of_mixed_protocols);
    tcase_add_test(tc, second_signal_saves_at_once);
    tcase_add_test(tc, sigterm_saves_every_capture);
    tcase_add_test(tc, idle_exit_ends_after_the_last_capture);
    tcase_add_test(tc, target_that_never_appears);
    tcase_add_test(tc, explicit_target_found_by_version_search);
    tcase_add_test(tc, max_clients_stops_listening);
    tcase_add_test(tc, announced_client_busy_elsewhere_is_no_failure);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s TRACY_CAPTURE_DAEMON TRACY_TEST_CLIENT TRACY_CSV\n", argv[0]);
        return 2;
    }
    prog.daemon = argv[1];
    prog.client = argv[2];
    prog.reader = argv[3];
    signal(SIGPIPE, SIG_IGN);
    SRunner *sr = srunner_create(daemon_suite());
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
