/* e2e.c - end-to-end tests (Check): our tracy-capture against our
 * protocol-82 test client, in normal sessions and in every way a session
 * can go wrong, checking exit codes, messages and what the saved file holds
 * (through our reader, tracy-csv).
 *
 * Usage: e2e TRACY_CAPTURE TRACY_TEST_CLIENT TRACY_CSV */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e_util.h"

/* Built with AddressSanitizer, as the programs under test then are: they
 * cannot run under an address-space limit. */
#if defined(__SANITIZE_ADDRESS__)
#define E2E_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define E2E_ASAN 1
#endif
#endif

/* The programs under test (set once by main). */
static struct {
    const char *capture, *client, *reader;
} prog;

/* ---- processes and the test client (e2e_util.c) ---------------------------------------- */

static proc_t spawn_limited(char *const argv[], rlim_t fsize_limit) { return spawn_opts(argv, fsize_limit, false); }

/* Start the test client with extra arguments (NULL-terminated); wait for
 * its "listening on ADDRESS:PORT" line. */
static client_t client_start(const char *first, ...)
{
    char *argv[32] = { (char *)prog.client, "--port", "0", "--timeout", "60" };
    int n = 5;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && n < 31; a = va_arg(ap, const char *)) argv[n++] = (char *)a;
    va_end(ap);
    argv[n] = NULL;
    return client_spawn(argv);
}

/* ---- the capture ------------------------------------------------------------------------ */

typedef struct {
    int rc;
    char *err;      /* its stderr */
    double seconds;
    long maxrss_kb; /* its peak resident size */
} run_t;

/* Run tracy-capture with arguments from a NULL-terminated list; send
 * signal `sig` (if not 0) after `after` seconds, and `then` (if not 0) half
 * a second later. */
static run_t capture_run_va(int sig, double after, int then, const limits_t *lim, const char *first, va_list ap)
{
    char *argv[32] = { (char *)prog.capture };
    int n = 1;
    for (const char *a = first; a && n < 31; a = va_arg(ap, const char *)) argv[n++] = (char *)a;
    argv[n] = NULL;
    const double t0 = now_s();
    proc_t p = spawn_with(argv, lim, false);
    if (sig) {
        usleep((useconds_t)(after * 1e6));
        kill(p.pid, sig);
        if (then) {
            usleep(500000);
            kill(p.pid, then);
        }
    }
    run_t r = { .maxrss_kb = 0 };
    r.rc = wait_exit_rss(p.pid, 60, &r.maxrss_kb);
    r.seconds = now_s() - t0;
    r.err = drain(p.err);
    return r;
}

/* Run tracy-capture with the given arguments (NULL-terminated). If
 * signal_after > 0, send SIGINT after that many seconds; a negative value
 * sends SIGTERM after |signal_after| seconds and SIGINT half a second later. */
static run_t capture_run(double signal_after, const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    run_t r = signal_after > 0   ? capture_run_va(SIGINT, signal_after, 0, NULL, first, ap)
              : signal_after < 0 ? capture_run_va(SIGTERM, -signal_after, SIGINT, NULL, first, ap)
                                 : capture_run_va(0, 0, 0, NULL, first, ap);
    va_end(ap);
    return r;
}

/* Run tracy-capture and send it `sig` after `after` seconds. */
static run_t capture_signalled(int sig, double after, const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    run_t r = capture_run_va(sig, after, 0, NULL, first, ap);
    va_end(ap);
    return r;
}

/* Run tracy-capture under resource limits. */
static run_t capture_limited(const limits_t *lim, const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    run_t r = capture_run_va(0, 0, 0, lim, first, ap);
    va_end(ap);
    return r;
}

/* Run tracy-capture and kill it with SIGKILL after `seconds`. */
static void capture_kill9(double seconds, const char *out, const char *port)
{
    char *argv[] = { (char *)prog.capture, "-q", "-o", (char *)out, "-p", (char *)port, NULL };
    proc_t p = spawn(argv);
    usleep((useconds_t)(seconds * 1e6));
    kill(p.pid, SIGKILL);
    wait_exit(p.pid, 60);
    free(drain(p.err));
}

/* ---- reading results --------------------------------------------------------------------- */

/* Run our reader on a file into out_path; returns its exit code. */
static int reader_run(const char *mode, const char *file, const char *out_path)
{
    return reader_exec(prog.reader, mode, file, out_path);
}

/* The trace at `file` is valid and holds some zones. */
static void check_has_zones(const tmp_t *t, const char *file)
{
    ck_assert_int_eq(reader_run("--summary", file, t->summary), 0);
    char *sum = read_file(t->summary);
    ck_assert_int_gt(summary_value(sum, "zones"), 0);
    free(sum);
}

/* The trace at `file` is valid and holds exactly the zones the manifest
 * says were sent, and those are more than none. */
static void check_zones_as_sent(const tmp_t *t, const char *file)
{
    ck_assert_int_eq(reader_run("--summary", file, t->summary), 0);
    char *sum = read_file(t->summary), *man = read_file(t->manifest);
    ck_assert_int_gt(manifest_value(man, "zones"), 0);
    ck_assert_int_eq(summary_value(sum, "zones"), manifest_value(man, "zones"));
    free(sum);
    free(man);
}

/* A spool begins with the 12 handshake bytes the capture sent (the
 * shibboleth and the protocol offered), then the client's bytes: whether
 * those are a prefix of `record` (whole: all of it). */
#define SPOOL_PREFIX 12
static bool spool_holds(const char *spool, const char *record, bool whole)
{
    FILE *fs = fopen(spool, "rb"), *fr = fopen(record, "rb");
    char hs[SPOOL_PREFIX];
    bool ok = fs && fr && fread(hs, 1, sizeof hs, fs) == sizeof hs && memcmp(hs, "TracyPrf", 8) == 0;
    long n = 0;
    for (int x; ok && (x = fgetc(fs)) != EOF; n++) ok = fgetc(fr) == x;
    if (ok && whole) ok = fgetc(fr) == EOF;
    if (fs) fclose(fs);
    if (fr) fclose(fr);
    return ok && n > 0;
}

/* Capture a scenario and check every family against its manifest. */
/* A scenario in a protocol, captured with no version option (the search
 * finds it): every count of the manifest in the file, which is stamped
 * with the format of the protocol's release (NULL: not checked). */
static void check_scenario_in(const char *scenario, const char *protocol, const char *stamp,
                              const char *extra_expect, int min_counts, const char *refused)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", scenario, "--manifest", t.manifest, "--protocol", protocol, NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", "--end-timeout", "5", NULL);
    ck_assert_int_eq(client_finish(&c), 0);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(r.seconds < 5, "took %.1f s: %s", r.seconds, r.err);
    char *man = read_file(t.manifest);
    ck_assert_int_eq(reader_run("--summary", t.out, t.summary), 0);
    char *sum = read_file(t.summary);
    ck_assert_int_ge(check_counts_match_manifest(man, sum), min_counts);
    if (stamp) {
        char want[64];
        snprintf(want, sizeof want, "version: %s\n", stamp);
        ck_assert_msg(strstr(sum, want), "protocol %s: the file is not stamped %s:\n%s", protocol, stamp, sum);
    }
    if (refused) {   /* the versions offered before, in the search's order */
        char got[256] = "";
        for (const char *p = strstr(man, "\nrefused "); p; p = strstr(p + 1, "\nrefused "))
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%.*s", got[0] ? " " : "",
                     (int)strcspn(p + 9, "\n"), p + 9);
        ck_assert_msg(strcmp(got, refused) == 0, "protocol %s: refused '%s', expected '%s'", protocol, got, refused);
    }
    if (manifest_value(man, "gpu_zones") > 0) {
        ck_assert_int_eq(reader_run("-g", t.out, t.csv), 0);
        char *gpu = read_file(t.csv);
        check_gpu_rows_match_manifest(man, gpu);
        free(gpu);
    }
    if (extra_expect) ck_assert_msg(strstr(sum, extra_expect), "'%s' not in:\n%s", extra_expect, sum);
    free(sum);
    free(man);
    free(r.err);
    tmp_remove(&t);
}

static void check_scenario(const char *scenario, const char *extra_expect)
{
    check_scenario_in(scenario, "82", NULL, extra_expect, 14, NULL);
}

/* ---- tests ------------------------------------------------------------------------------- */

/* Each protocol's release, and the file format it is saved in by default. */
static const struct {
    const char *protocol, *release, *stamp;
} protocols[] = {
    { "82", "0.14.0", "0.14.0" }, { "76", "0.13.x", "0.13.0" }, { "74", "0.12.x", "0.12.0" },
    { "72", "5479a42", "0.11.2" }, { "69", "0.11.1", "0.11.1" }, { "66", "0.11.0", "0.11.0" },
    { "64", "0.10", "0.10.0" },
};
#define NPROTOCOLS (int)(sizeof protocols / sizeof protocols[0])

/* Every family of every protocol, found by the version search. */
START_TEST(version_search_finds_every_protocol)
{
    char refused[64] = "";
    for (int k = 0; k < _i; k++)
        snprintf(refused + strlen(refused), sizeof refused - strlen(refused), "%s%s", k ? " " : "",
                 protocols[k].protocol);
    check_scenario_in("everything", protocols[_i].protocol, protocols[_i].stamp, NULL, 10, refused);
}
END_TEST

/* A client that refuses every protocol: exit 1 at once, naming them. */
START_TEST(client_refusing_every_protocol_exits_1)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--protocol", "none", NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", NULL);
    client_finish(&c);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_msg(r.seconds < 5, "took %.1f s", r.seconds);
    ck_assert_msg(strstr(r.err, "refused every protocol this tool speaks (82, 76, 74, 72, 69, 66, 64)") &&
                  strstr(r.err, "older than Tracy 0.10"), "%s", r.err);
    ck_assert(!file_exists(t.out));
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* --protocol skips the search: the right one is taken at once, another is
 * a mismatch naming it. */
START_TEST(protocol_option_skips_the_search)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--protocol", "74", "--manifest", t.manifest, NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--protocol", "0.12", "--connect-timeout", "10", NULL);
    ck_assert_int_eq(client_finish(&c), 0);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    check_zones_as_sent(&t, t.out);
    char *man = read_file(t.manifest);
    /* the client was offered 74 first: nothing was refused */
    ck_assert_msg(!strstr(man, "\nrefused "), "%s", man);
    free(man);
    free(r.err);

    c = client_start("--protocol", "74", NULL);
    r = capture_run(0, "-o", t.out, "-f", "-p", c.port, "--protocol", "76", "--connect-timeout", "10", NULL);
    kill(c.p.pid, SIGTERM);
    client_finish(&c);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_msg(strstr(r.err, "does not speak protocol 76 (Tracy 0.13.x)"), "%s", r.err);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* An event type the negotiated protocol does not have (the first number
 * past its last, a type of a newer protocol): exit 8, naming the protocol,
 * what came before saved. */
START_TEST(event_type_outside_each_protocol_is_named)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--protocol", protocols[_i].protocol, "--scenario", "garbage", "--garbage-kind",
                              "next-type", NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 8, "protocol %s: rc %d: %s", protocols[_i].protocol, r.rc, r.err);
    char want[64];
    snprintf(want, sizeof want, "is not a protocol-%s type", protocols[_i].protocol);
    ck_assert_msg(strstr(r.err, want), "protocol %s: %s", protocols[_i].protocol, r.err);
    ck_assert(file_exists(t.out));
    free(r.err);
    tmp_remove(&t);
}
END_TEST

START_TEST(every_event_family_is_saved)
{
    check_scenario("everything", "section category 2: 8 items");
}
END_TEST

START_TEST(crashed_client_ends_by_itself_and_is_saved)
{
    check_scenario("crash", "crash: thread 1000 time ");
}
END_TEST

START_TEST(on_demand_client_with_deferred_items)
{
    check_scenario("on-demand", "onDemand: 1");
}
END_TEST


/* A client far faster than the model: reading pauses while the decoder's
 * backlog is high and must always resume, or the capture would hang. */
START_TEST(fast_client_pauses_reading_and_every_zone_arrives)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "zones", "--threads", "4", "--zones", "1500000",
                              "--manifest", t.manifest, NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", "--end-timeout", "10", NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_int_eq(client_finish(&c), 0);
    char *man = read_file(t.manifest);
    ck_assert_int_eq(reader_run("--summary", t.out, t.summary), 0);
    char *sum = read_file(t.summary);
    ck_assert_int_eq(manifest_value(man, "zones"), 6000000);
    ck_assert_int_eq(summary_value(sum, "zones"), manifest_value(man, "zones"));
    free(sum);
    free(man);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* The bytes of a live session, recorded by the client, give the same
 * trace through --recover; cut short, they give the part they hold. */
START_TEST(recovered_recording_equals_the_live_capture)
{
    tmp_t t = tmp_make();
    char rec[160], cut[160], out2[160], csv2[160];
    snprintf(rec, sizeof rec, "%s/client.bin", t.dir);
    snprintf(cut, sizeof cut, "%s/cut.bin", t.dir);
    snprintf(out2, sizeof out2, "%s/recovered.tracy", t.dir);
    snprintf(csv2, sizeof csv2, "%s/recovered.csv", t.dir);
    client_t c = client_start("--scenario", "normal", "--record", rec, NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_int_eq(client_finish(&c), 0);
    free(r.err);

    r = capture_run(0, "-o", out2, "--recover", rec, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    /* a bare recording: the one line is the note naming its protocol */
    ck_assert_msg(strstr(r.err, "tracy-capture: note: ") == r.err && strstr(r.err, "read as protocol 82 (Tracy 0.14.0)") &&
                  strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "unexpected diagnostics: %s", r.err);
    free(r.err);
    ck_assert_int_eq(reader_run(NULL, t.out, t.csv), 0);
    ck_assert_int_eq(reader_run(NULL, out2, csv2), 0);
    char *live = read_file(t.csv), *recovered = read_file(csv2);
    ck_assert_str_eq(recovered, live);

    /* The first half of the recording: saved with a warning, fewer zones. */
    struct stat st;
    ck_assert_int_eq(stat(rec, &st), 0);
    ck_assert_int_eq(truncate(rec, st.st_size / 2), 0);
    r = capture_run(0, "-f", "-o", out2, "--recover", rec, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "ends before the client ended its session"));
    free(r.err);
    ck_assert_int_eq(reader_run("--summary", out2, t.summary), 0);
    char *sum = read_file(t.summary);
    long long zones_half = summary_value(sum, "zones");
    ck_assert_int_eq(reader_run("--summary", t.out, t.summary), 0);
    char *sum_live = read_file(t.summary);
    ck_assert_int_gt(zones_half, 0);
    ck_assert_int_lt(zones_half, summary_value(sum_live, "zones"));
    free(sum_live);
    free(sum);
    free(live);
    free(recovered);
    tmp_remove(&t);
}
END_TEST

/* Run argv on a pseudo-terminal (NO_COLOR=1 if no_color) and give all it
 * printed there, read until the terminal closes (EIO) or 60 s pass; *rc is
 * its exit code. NULL where no pseudo-terminal can be had (a bare
 * container without /dev/pts). */
static char *run_on_terminal(char *const argv[], bool no_color, int *rc)
{
    int master;
    const pid_t pid = forkpty(&master, NULL, NULL, NULL);
    if (pid < 0) return NULL;
    if (pid == 0) {
        if (no_color) setenv("NO_COLOR", "1", 1);
        else unsetenv("NO_COLOR");
        execv(argv[0], argv);
        _exit(127);
    }
    size_t n = 0, cap = 4096;
    char *buf = malloc(cap);
    const double end = now_s() + 60;
    while (now_s() < end) {
        struct pollfd pf = { .fd = master, .events = POLLIN };
        if (poll(&pf, 1, 200) == 0) continue;
        if (n + 1024 > cap) buf = realloc(buf, cap *= 2);
        const ssize_t k = read(master, buf + n, cap - n - 1);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        n += (size_t)k;
    }
    buf[n] = '\0';
    *rc = wait_exit(pid, 60);
    close(master);
    return buf;
}

/* The console: a progress line and colours on a terminal only, no colours
 * with NO_COLOR, and nothing but plain lines on a pipe. */
START_TEST(progress_and_colour_only_on_a_terminal)
{
    tmp_t t = tmp_make();
    char rec[160];
    snprintf(rec, sizeof rec, "%s/client.bin", t.dir);
    client_t c = client_start("--scenario", "normal", "--record", rec, NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_int_eq(client_finish(&c), 0);
    free(r.err);

    char *argv[] = { (char *)prog.capture, "-f", "-o", t.out, "--recover", rec, NULL };
    int rc;
    char *tty = run_on_terminal(argv, false, &rc);
    if (!tty) {
        fprintf(stderr, "skipped the terminal part: no pseudo-terminal (%s)\n", strerror(errno));
        goto piped;
    }
    ck_assert_msg(rc == 0, "rc %d: %s", rc, tty);
    ck_assert_msg(strstr(tty, "Decoding the recording"), "%s", tty);
    ck_assert_msg(strstr(tty, "\r\033[2KClient:"), "the progress line is not erased before the summary: %s", tty);
    ck_assert_msg(strstr(tty, "\033[32m"), "no colour: %s", tty);
    ck_assert_msg(strstr(tty, "Saving trace"), "%s", tty);
    free(tty);

    char *plain = run_on_terminal(argv, true, &rc);
    ck_assert_ptr_nonnull(plain);
    ck_assert_msg(rc == 0, "rc %d: %s", rc, plain);
    ck_assert_msg(strstr(plain, "Decoding the recording"), "%s", plain);
    ck_assert_msg(!strstr(plain, "\033[3") && !strstr(plain, "\033[1m"), "colour despite NO_COLOR: %s", plain);
    free(plain);

piped:;
    proc_t p = spawn_opts(argv, 0, true);
    rc = wait_exit(p.pid, 60);
    char *piped = drain(p.err);
    ck_assert_msg(rc == 0, "rc %d: %s", rc, piped);
    ck_assert_msg(strstr(piped, "Saving trace"), "%s", piped);
    ck_assert_msg(!strstr(piped, "Decoding") && !strchr(piped, '\033') && !strchr(piped, '\r'),
                  "terminal output on a pipe: %s", piped);
    free(piped);
    tmp_remove(&t);
}
END_TEST

/* SIGKILL mid-capture: nothing is saved, the spool holds what arrived,
 * and --recover turns it into a trace. */
START_TEST(killed_capture_is_recovered_from_its_spool)
{
    tmp_t t = tmp_make();
    char spool[160], rec[160];
    snprintf(spool, sizeof spool, "%s.spool", t.out);
    snprintf(rec, sizeof rec, "%s/recovered.tracy", t.dir);
    char record[160];
    snprintf(record, sizeof record, "%s/sent.bin", t.dir);
    client_t c = client_start("--scenario", "stream", "--seconds", "30", "--timeout", "5", "--record", record, NULL);
    capture_kill9(1.0, t.out, c.port);
    client_finish(&c);
    struct stat st;
    ck_assert_int_ne(stat(t.out, &st), 0);                  /* never saved */
    ck_assert_int_eq(stat(spool, &st), 0);
    ck_assert_int_gt(st.st_size, 1000);
    /* every byte the capture had read is in the spool, in order */
    ck_assert(spool_holds(spool, record, false));

    /* A new capture to the same output refuses to overwrite that spool. */
    run_t r = capture_run(0, "-o", t.out, "-p", "1", "--connect-timeout", "0.2", NULL);
    ck_assert_int_eq(r.rc, 4);
    ck_assert_ptr_nonnull(strstr(r.err, "--recover"));
    free(r.err);

    r = capture_run(0, "-o", rec, "--recover", spool, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "ends before the client ended its session"));
    free(r.err);
    check_has_zones(&t, rec);
    tmp_remove(&t);
}
END_TEST

START_TEST(normal_session_is_saved_completely)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "normal", "--manifest", t.manifest, NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_int_eq(client_finish(&c), 0);
    ck_assert_msg(strstr(r.err, "warning") == NULL, "unexpected warning: %s", r.err);

    char *man = read_file(t.manifest);
    ck_assert_ptr_nonnull(strstr(man, "\nend terminate"));
    ck_assert_int_eq(reader_run(NULL, t.out, t.csv), 0);
    char *csv = read_file(t.csv);
    check_zones_match_manifest(man, csv);

    ck_assert_int_eq(reader_run("--summary", t.out, t.summary), 0);
    char *sum = read_file(t.summary);
    ck_assert_int_eq(summary_value(sum, "zones"), manifest_value(man, "zones"));
    ck_assert_int_eq(summary_value(sum, "messages"), manifest_value(man, "messages"));
    ck_assert_int_eq(summary_value(sum, "threads"), manifest_value(man, "threads"));
    ck_assert_int_eq(summary_value(sum, "plots"), manifest_value(man, "plots"));
    ck_assert_int_eq(summary_value(sum, "appInfo"), 2);
    ck_assert_int_eq(summary_value(sum, "lastTime"), manifest_value(man, "last_event_ns"));
    /* frames: the client's marks plus the two the server adds at the start */
    ck_assert_ptr_nonnull(strstr(sum, "frameset 'Frame': "));
    ck_assert_int_eq(atoll(strstr(sum, "frameset 'Frame': ") + 18), manifest_value(man, "frames") + 2);
    free(sum);
    free(csv);
    free(man);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* The connection dies mid-frame (or is reset): what arrived is saved. */
static void check_cut_session(const char *scenario)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", scenario, "--manifest", t.manifest, NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", "--end-timeout", "2", NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "closed the connection before the session ended"), "%s", r.err);
    /* the frame cut short is lost, and said so */
    ck_assert_msg(strstr(r.err, "the input ended inside a frame: its last"), "%s", r.err);
    /* every complete frame's zones; the manifest leaves out the filler
     * that went into the frame cut short */
    check_zones_as_sent(&t, t.out);
    free(r.err);
    tmp_remove(&t);
}

START_TEST(client_disconnecting_mid_frame_keeps_what_arrived) { check_cut_session("disconnect-mid-frame"); }
END_TEST

START_TEST(connection_reset_keeps_what_arrived) { check_cut_session("reset"); }
END_TEST


START_TEST(no_client_gives_up_at_the_connect_timeout)
{
    tmp_t t = tmp_make();
    /* a port nobody listens on: bind one, then close it */
    client_t c = client_start("--scenario", "drop", "--timeout", "1", NULL);
    kill(c.p.pid, SIGKILL);
    client_finish(&c);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "0.5", NULL);
    ck_assert_int_eq(r.rc, 6);
    ck_assert_msg(r.seconds < 5, "took %.1f s", r.seconds);
    ck_assert_msg(strstr(r.err, "no Tracy client answered"), "%s", r.err);
    ck_assert(!file_exists(t.out));
    free(r.err);
    tmp_remove(&t);
}
END_TEST

START_TEST(not_available_and_dropped_handshakes)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "not-available", NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", NULL);
    client_finish(&c);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_msg(strstr(r.err, "another capture"), "%s", r.err);
    free(r.err);
    /* a connection closed without a byte: exit 3 at once, as upstream... */
    c = client_start("--scenario", "drop", NULL);
    r = capture_run(0, "-o", t.out, "-p", c.port, NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 3, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "during the handshake"), "%s", r.err);
    ck_assert(!file_exists(t.out));
    free(r.err);
    /* ...but with --connect-timeout, an adb forward with no program behind
     * it yet: tried again until the time is up */
    c = client_start("--scenario", "drop", NULL);
    r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "1.5", NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 6, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "accepted and closed without an answer"), "%s", r.err);
    ck_assert_msg(r.seconds > 1.4 && r.seconds < 5, "took %.1f s", r.seconds);
    ck_assert(!file_exists(t.out));
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* Corrupt data: exit 8, an error naming the place, the data before it saved. */
static void check_garbage(const char *kind, const char *expect)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "garbage", "--garbage-kind", kind, "--manifest", t.manifest, NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 8, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, expect), "expected '%s' in: %s", expect, r.err);
    ck_assert_msg(strstr(r.err, "stream offset"), "%s", r.err);
    check_zones_as_sent(&t, t.out);        /* every zone sent before the garbage */
    free(r.err);
    tmp_remove(&t);
}

START_TEST(oversized_frame_is_reported_and_data_saved) { check_garbage("length", "size field says 263189 bytes"); }
END_TEST

START_TEST(undecodable_frame_is_reported_and_data_saved) { check_garbage("lz4", "does not decompress"); }
END_TEST

START_TEST(unknown_event_is_reported_and_data_saved) { check_garbage("event", "event type 201 is not a protocol-82 type"); }
END_TEST

/* One kind of bad input in the middle of a session (the client's
 * `malformed` scenario). Bad instrumentation: exit 0 with a warning naming
 * the event and its place, the session goes on, and the saved file holds
 * every zone sent before and after it except exactly those the manifest
 * says are dropped. A broken stream: exit 8 naming the event and its place,
 * everything before it saved. The client's recording, through --recover,
 * gives the same. Memory stays small whatever a length field claims. */
static void check_malformed(const char *kind, int want_rc, const char *expect)
{
    tmp_t t = tmp_make();
    char rec[160], out2[160];
    snprintf(rec, sizeof rec, "%s/client.bin", t.dir);
    snprintf(out2, sizeof out2, "%s/recovered.tracy", t.dir);
    client_t c = client_start("--scenario", "malformed", "--garbage-kind", kind, "--manifest", t.manifest,
                              "--record", rec, NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", "--end-timeout", "5", NULL);
    ck_assert_int_eq(client_finish(&c), 0);
    ck_assert_msg(r.rc == want_rc, "%s: rc %d: %s", kind, r.rc, r.err);
    ck_assert_msg(strstr(r.err, expect), "%s: expected '%s' in: %s", kind, expect, r.err);
    ck_assert_msg(strstr(r.err, "frame ") && strstr(r.err, "at stream offset"), "%s: no place in: %s", kind, r.err);
    /* Bounded: far below the 4 GB an absurd length claims, with room for a
     * sanitizer build's shadow memory (TSan roughly doubles it). */
    ck_assert_msg(r.maxrss_kb < 256 * 1024, "%s: peak RSS %ld KB", kind, r.maxrss_kb);
    ck_assert_msg(r.seconds < 10, "%s: took %.1f s", kind, r.seconds);

    char *man = read_file(t.manifest);
    ck_assert_ptr_nonnull(strstr(man, "\nbad_input "));
    if (want_rc == 0) {
        char n[96];
        long long bad = manifest_value(man, "bad_events");
        snprintf(n, sizeof n, "warning: %lld event%s dropped or repaired", bad, bad == 1 ? "" : "s");
        ck_assert_msg(strstr(r.err, n), "%s: expected '%s' in: %s", kind, n, r.err);
        ck_assert_ptr_nonnull(strstr(man, "\nend terminate"));
    }
    /* the reader validates the file strictly */
    ck_assert_int_eq(reader_run("--summary", t.out, t.summary), 0);
    char *sum = read_file(t.summary);
    const long long want = manifest_value(man, "zones_expected");
    ck_assert_int_gt(want, manifest_value(man, "bad_zones_before"));
    ck_assert_msg(summary_value(sum, "zones") == want, "%s: %lld zones saved, %lld expected", kind,
                  summary_value(sum, "zones"), want);
    static const char *const same[] = { "threads", "messages", "plots", "locks" };
    for (size_t i = 0; want_rc == 0 && i < sizeof same / sizeof same[0]; i++)
        ck_assert_msg(summary_value(sum, same[i]) == manifest_value(man, same[i]), "%s: %s: sent %lld, saved %lld",
                      kind, same[i], manifest_value(man, same[i]), summary_value(sum, same[i]));
    free(sum);
    free(r.err);

    r = capture_run(0, "-o", out2, "--recover", rec, NULL);
    ck_assert_msg(r.rc == want_rc, "%s: --recover rc %d: %s", kind, r.rc, r.err);
    ck_assert_msg(strstr(r.err, expect), "%s: --recover: expected '%s' in: %s", kind, expect, r.err);
    ck_assert_int_eq(reader_run("--summary", out2, t.summary), 0);
    sum = read_file(t.summary);
    ck_assert_int_eq(summary_value(sum, "zones"), want);
    free(sum);
    free(man);
    free(r.err);
    tmp_remove(&t);
}

START_TEST(unannounced_lock_is_dropped_and_the_rest_kept)
{
    check_malformed("lock-unannounced", 0, "LockWait event at byte 0 of the decompressed frame: lock event for lock 99, "
                                           "which was never announced");
}
END_TEST

START_TEST(unknown_gpu_context_is_dropped_and_the_rest_kept)
{
    check_malformed("gpu-unknown-context", 0,
                    "GpuZoneBegin event at byte 5 of the decompressed frame: GPU zone begin for GPU context 7, "
                    "which was never created");
}
END_TEST

START_TEST(fiber_leave_without_fiber_is_dropped_and_the_rest_kept)
{
    check_malformed("fiber-unknown", 0, "FiberLeave event at byte 5 of the decompressed frame: FiberLeave on thread 1000, "
                                        "which runs no fiber");
}
END_TEST

START_TEST(time_going_backwards_is_repaired_and_the_rest_kept)
{
    check_malformed("time-backwards", 0, "ZoneEnd event at byte 18 of the decompressed frame: zone on thread 1000 "
                                         "ends 3000 ticks before it starts");
}
END_TEST

START_TEST(answers_never_asked_for_are_walked_over)
{
    check_malformed("unasked-answers", 0, "SourceLocation event at byte 66 of the decompressed frame: a source "
                                          "location answer arrived for no question");
}
END_TEST

START_TEST(zones_beyond_the_source_location_limit_are_dropped)
{
    check_malformed("srcloc-overflow", 0, "is one more than the 32766 static ones a trace holds");
}
END_TEST

START_TEST(absurd_payload_length_breaks_the_stream_and_data_is_saved)
{
    check_malformed("absurd-length", 8, "SourceCode event (type 130) is cut short: it claims 4294967293 bytes");
}
END_TEST

START_TEST(absurd_string_length_breaks_the_stream_and_data_is_saved)
{
    check_malformed("absurd-string", 8, "StringData event (type 119) is cut short: it claims 65546 bytes");
}
END_TEST

START_TEST(open_zones_at_the_end_do_not_hang)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "open-zones", "--manifest", t.manifest, NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", "--end-timeout", "1", NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "open zones"), "%s", r.err);
    ck_assert_int_eq(reader_run("--summary", t.out, t.summary), 0);
    char *sum = read_file(t.summary);
    char *man = read_file(t.manifest);
    /* the manifest counts finished zones and open ones apart */
    ck_assert_int_gt(manifest_value(man, "zones_open"), 0);
    ck_assert_int_eq(summary_value(sum, "zones"), manifest_value(man, "zones") + manifest_value(man, "zones_open"));
    free(sum);
    free(man);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

START_TEST(missing_answers_end_the_wait_and_are_named)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "no-answer", NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", "--end-timeout", "1", NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "strings"), "%s", r.err);
    ck_assert_msg(r.seconds < 10, "took %.1f s", r.seconds);
    ck_assert_int_eq(reader_run(NULL, t.out, t.csv), 0);
    char *csv = read_file(t.csv);
    ck_assert_ptr_nonnull(strstr(csv, "???"));
    free(csv);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

START_TEST(sigint_stops_in_order_and_saves)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "stream", "--seconds", "30", NULL);
    run_t r = capture_run(1.0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", NULL);
    ck_assert_int_eq(client_finish(&c), 0);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(r.seconds < 8, "took %.1f s", r.seconds);
    ck_assert_msg(strstr(r.err, "interrupted"), "%s", r.err);
    /* saved, so the spool of the received bytes is gone */
    char spool[160];
    struct stat st;
    snprintf(spool, sizeof spool, "%s.spool", t.out);
    ck_assert_int_ne(stat(spool, &st), 0);
    check_has_zones(&t, t.out);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

START_TEST(second_signal_stops_waiting_and_saves)
{
    tmp_t t = tmp_make();
    /* the client never answers String queries, so the end wait would last */
    client_t c = client_start("--scenario", "no-answer", NULL);
    run_t r = capture_run(-1.0, "-o", t.out, "-p", c.port, "--end-timeout", "30", NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 130, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(r.seconds < 10, "took %.1f s", r.seconds);
    ck_assert_msg(strstr(r.err, "terminated"), "%s", r.err);
    ck_assert_msg(strstr(r.err, "second signal"), "%s", r.err);
    check_has_zones(&t, t.out);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* -s counts from the handshake, as upstream's does: a program that
 * appears after the limit has passed is still captured for that long (it
 * used to end the capture before it began, exit 130). */
START_TEST(seconds_count_from_the_handshake)
{
    tmp_t t = tmp_make();
    char port[16];
    free_port(port, sizeof port);
    char *argv[] = { (char *)prog.capture, "-o", t.out, "-p", port, "-s", "1", NULL };
    proc_t p = spawn(argv);
    usleep(1500000);
    client_t c = client_start("--scenario", "stream", "--seconds", "10", "--port", port, NULL);
    const int rc = wait_exit(p.pid, 30);
    char *err = drain(p.err);
    client_finish(&c);
    ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
    ck_assert_msg(strstr(err, "time limit reached"), "%s", err);
    check_has_zones(&t, t.out);
    free(err);
    tmp_remove(&t);
}
END_TEST

/* Huge time limits mean no limit (they used to overflow the timers and
 * fire at once). */
START_TEST(huge_time_limits_mean_none)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "normal", NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "-s", "1e300", "--end-timeout", "1e300",
                          "--connect-timeout", "1e300", NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(!strstr(r.err, "time limit"), "%s", r.err);
    ck_assert_msg(!strstr(r.err, "gave up"), "%s", r.err);
    ck_assert_int_eq(reader_run("--summary", t.out, t.summary), 0);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* A stop (-s) while the client still owes answers, then the client resets
 * the connection: the Terminate can no longer be written, and the capture
 * must not wait for it (it used to hang for good, signals included). */
START_TEST(reset_after_a_stop_does_not_hang)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "stall-reset", "--seconds", "1", NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "-s", "0.3", NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(r.seconds < 6, "took %.1f s", r.seconds);
    ck_assert_msg(strstr(r.err, "time limit reached"), "%s", r.err);
    check_has_zones(&t, t.out);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

START_TEST(seconds_limit_stops_and_saves)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "stream", "--seconds", "30", NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "-s", "1", NULL);
    ck_assert_int_eq(client_finish(&c), 0);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(r.seconds < 8, "took %.1f s", r.seconds);
    ck_assert_int_eq(reader_run("--summary", t.out, t.summary), 0);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

START_TEST(output_checks_happen_before_connecting)
{
    tmp_t t = tmp_make();
    FILE *f = fopen(t.out, "w");
    fputs("keep me", f);
    fclose(f);
    run_t r = capture_run(0, "-o", t.out, "-p", "1", NULL);
    ck_assert_int_eq(r.rc, 4);
    ck_assert_msg(strstr(r.err, "-f"), "%s", r.err);
    char *kept = read_file(t.out);
    ck_assert_str_eq(kept, "keep me");
    free(kept);
    free(r.err);
    /* a symbolic link to nowhere is a name taken too */
    char link_path[160];
    snprintf(link_path, sizeof link_path, "%s/dangling.tracy", t.dir);
    ck_assert_int_eq(symlink("/nonexistent-dir/x.tracy", link_path), 0);
    r = capture_run(0, "-o", link_path, "-p", "1", NULL);
    ck_assert_msg(r.rc == 4, "rc %d: %s", r.rc, r.err);
    free(r.err);
    r = capture_run(0, "-o", "/nonexistent-dir/x.tracy", NULL);
    ck_assert_int_eq(r.rc, 5);
    free(r.err);
    r = capture_run(0, "-o", t.out, "-m", "0", NULL);
    ck_assert_int_eq(r.rc, 1);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* A file that takes the output's name during the capture is not ours to
 * replace without -f: it is kept, the trace goes beside it (NAME-1.tracy,
 * then NAME-2.tracy), and the exit code is 4. With -f it is replaced. */
static void capture_while_output_appears(const tmp_t *t, const char *force, int want_rc, const char *saved_as)
{
    client_t c = client_start("--scenario", "stall", "--seconds", "20", "--manifest", t->manifest, NULL);
    char *argv[] = { (char *)prog.capture, "-o", (char *)t->out, "-p", c.port, "-s", "1", "--end-timeout", "1",
                     (char *)force, NULL };
    proc_t p = spawn(argv);
    /* the spool appears once the output was checked (and found free) */
    char spool[160];
    snprintf(spool, sizeof spool, "%s.spool", t->out);
    for (int i = 0; i < 1000 && !file_exists(spool); i++) usleep(10000);
    ck_assert_msg(file_exists(spool), "no spool %s", spool);
    FILE *f = fopen(t->out, "w");
    fputs("keep me", f);
    fclose(f);
    const int rc = wait_exit(p.pid, 30);
    char *err = drain(p.err);
    client_finish(&c);
    ck_assert_msg(rc == want_rc, "rc %d: %s", rc, err);
    if (want_rc == 4) {
        ck_assert_msg(strstr(err, "appeared during the capture"), "%s", err);
        ck_assert_msg(strstr(err, saved_as), "the message does not name %s: %s", saved_as, err);
    }
    free(err);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls %s/*.tmp.* >/dev/null 2>&1", t->dir);
    ck_assert_msg(system(cmd) != 0, "a temporary file is left in %s", t->dir);
}

START_TEST(output_taken_during_the_capture_is_kept)
{
    tmp_t t = tmp_make();
    char beside[192], second[192];
    snprintf(beside, sizeof beside, "%.*s-1.tracy", (int)(strlen(t.out) - 6), t.out);
    snprintf(second, sizeof second, "%.*s-2.tracy", (int)(strlen(t.out) - 6), t.out);
    ck_assert_msg(strstr(t.out, ".tracy"), "%s", t.out);

    capture_while_output_appears(&t, NULL, 4, beside);
    char *kept = read_file(t.out);
    ck_assert_str_eq(kept, "keep me");
    free(kept);
    check_zones_as_sent(&t, beside);

    unlink(t.out);
    capture_while_output_appears(&t, NULL, 4, second);
    kept = read_file(t.out);
    ck_assert_str_eq(kept, "keep me");
    free(kept);
    check_zones_as_sent(&t, second);
    unlink(beside);
    unlink(second);

    unlink(t.out);
    capture_while_output_appears(&t, "-f", 0, t.out);
    check_zones_as_sent(&t, t.out);
    ck_assert(!file_exists(beside));
    tmp_remove(&t);
}
END_TEST

/* A character device for a test to hand the capture, where a bug could do
 * it no harm: a node of our own in the test's directory (root), or the
 * system's (an ordinary user cannot remove or replace it). False (with a
 * note) for root that may not make device nodes. */
static bool harmless_device(const tmp_t *t, const char *name, unsigned major_no, unsigned minor_no, char *path,
                            size_t len)
{
    snprintf(path, len, "%s/%s", t->dir, name);
    if (mknod(path, S_IFCHR | 0666, makedev(major_no, minor_no)) == 0) {
        const int fd = open(path, O_WRONLY);     /* a nodev mount refuses it */
        if (fd >= 0) {
            close(fd);
            return true;
        }
        unlink(path);
    }
    if (geteuid() != 0) {
        snprintf(path, len, "/dev/%s", name);
        return access(path, W_OK) == 0;
    }
    fprintf(stderr, "skipped: cannot make a device node %s: %s\n", path, strerror(errno));
    return false;
}

/* Options that contradict each other, empty values, a file named twice:
 * exit 1 before connecting, a message naming the options, nothing written. */
START_TEST(contradictory_and_empty_options_are_refused)
{
    tmp_t t = tmp_make();
    char rec[160];
    snprintf(rec, sizeof rec, "%s/rec.bin", t.dir);
    static const struct {
        const char *args[6], *says;
    } cases[] = {
        { { "-o", "", NULL }, "-o needs a file name" },
        { { "-o", "OUT", "-a", "", NULL }, "-a needs an address" },
        { { "-o", "OUT", "--spool", "", NULL }, "--spool needs a path" },
        { { "-o", "OUT", "--spool", "OUT", NULL }, "is the output file" },
        { { "-o", "OUT", "--recover", "OUT", NULL }, "is the recording --recover reads" },
        { { "-o", "OUT", "--spool", "S", "--no-spool", NULL }, "--spool and --no-spool contradict" },
        { { "-o", "OUT", "--keep-spool", "--no-spool", NULL }, "--keep-spool and --no-spool contradict" },
        { { "-o", "OUT", "--recover", "REC", "--keep-spool", NULL }, "--recover reads a recording" },
        { { "-o", "OUT", "--connect-timeout", "0", NULL }, "above 0" },
        { { "-o", "OUT", "-fY", NULL }, "unknown option '-Y'" },
        { { "-o", "OUT", "-fp", NULL }, "option '-p' needs an argument" },
        { { "-o", "OUT", "-p", "+80", NULL }, "invalid port '+80'" },
        { { "-o", "OUT", "--quiet=1", NULL }, "option '--quiet' takes no argument" },
        { { "-o", "OUT", "--quiet", "-Yf", NULL }, "unknown option '-Y'" },
        { { "-o", "OUT", "-fz", NULL }, "option '-z' needs an argument" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[10] = { (char *)prog.capture };
        int n = 1;
        for (int k = 0; cases[i].args[k]; k++) {
            const char *a = cases[i].args[k];
            argv[n++] = (char *)(strcmp(a, "OUT") == 0 ? t.out : strcmp(a, "REC") == 0 ? rec : a);
        }
        argv[n] = NULL;
        proc_t p = spawn(argv);
        const int rc = wait_exit(p.pid, 10);
        char *err = drain(p.err);
        ck_assert_msg(rc == 1, "case %zu: rc %d: %s", i, rc, err);
        ck_assert_msg(strstr(err, cases[i].says), "case %zu: expected '%s' in: %s", i, cases[i].says, err);
        free(err);
        ck_assert_msg(!file_exists(t.out), "case %zu wrote the output", i);
    }
    tmp_remove(&t);
}
END_TEST

/* A peer on a port of ours, for the handshake's failures: it accepts one
 * connection, then answers `reply` (NULL: nothing) and holds it `hold`
 * seconds. */
typedef struct {
    int fd;
    char port[16];
    const char *reply;
    double hold;
    pthread_t thread;
} fake_peer_t;

static void *fake_peer_run(void *arg)
{
    fake_peer_t *f = arg;
    const int c = accept(f->fd, NULL, NULL);
    if (c >= 0) {
        char buf[64];
        if (read(c, buf, sizeof buf) < 0) {}
        if (f->reply && write(c, f->reply, strlen(f->reply)) < 0) {}
        usleep((useconds_t)(f->hold * 1e6));
        close(c);
    }
    return NULL;
}

static void fake_peer_start(fake_peer_t *f, const char *reply, double hold)
{
    f->reply = reply;
    f->hold = hold;
    f->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    ck_assert_int_eq(bind(f->fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(f->fd, 1), 0);
    ck_assert_int_eq(getsockname(f->fd, (struct sockaddr *)&a, &len), 0);
    snprintf(f->port, sizeof f->port, "%u", ntohs(a.sin_port));
    pthread_create(&f->thread, NULL, fake_peer_run, f);
}

static void fake_peer_stop(fake_peer_t *f)
{
    pthread_join(f->thread, NULL);
    close(f->fd);
}

/* Something that is not a Tracy client answers: exit 1, saying so (not
 * "closed the connection"); one that accepts and never answers: the
 * connect timeout says the connection was made and the handshake not
 * answered. */
START_TEST(peers_that_are_not_tracy_clients_are_named)
{
    tmp_t t = tmp_make();
    fake_peer_t f;
    fake_peer_start(&f, "HTTP/1.0 400 Bad Request\r\n\r\n", 2);
    run_t r = capture_run(0, "-o", t.out, "-p", f.port, "--connect-timeout", "5", NULL);
    fake_peer_stop(&f);
    ck_assert_msg(r.rc == 1, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "answered 0x48") && strstr(r.err, "no Tracy client"), "%s", r.err);
    ck_assert(!file_exists(t.out));
    free(r.err);

    /* 4 is upstream's own "dropped" state, which no client sends */
    fake_peer_start(&f, "\x04", 2);
    r = capture_run(0, "-o", t.out, "-p", f.port, "--connect-timeout", "5", NULL);
    fake_peer_stop(&f);
    ck_assert_msg(r.rc == 1, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "answered 0x04") && strstr(r.err, "no Tracy client"), "%s", r.err);
    ck_assert(!file_exists(t.out));
    free(r.err);

    fake_peer_start(&f, NULL, 3);
    r = capture_run(0, "-o", t.out, "-p", f.port, "--connect-timeout", "1", "-q", NULL);
    fake_peer_stop(&f);
    ck_assert_msg(r.rc == 6, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "no answer to the handshake"), "%s", r.err);
    free(r.err);

    FILE *txt = fopen(t.manifest, "w");
    fputs("hello, not a recording\n", txt);
    fclose(txt);
    r = capture_run(0, "-o", t.out, "--recover", t.manifest, NULL);
    ck_assert_msg(r.rc == 1, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "is not a recorded Tracy client stream"), "%s", r.err);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* The reader of a FIFO spool: starts late, then copies everything. */
typedef struct {
    const char *fifo, *copy;
    double delay;
} slow_reader_t;

static void *read_fifo_late(void *arg)
{
    const slow_reader_t *s = arg;
    usleep((useconds_t)(s->delay * 1e6));
    int in = open(s->fifo, O_RDONLY), out = open(s->copy, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char buf[65536];
    for (ssize_t n; in >= 0 && (n = read(in, buf, sizeof buf)) > 0;)
        if (write(out, buf, (size_t)n) != n) break;
    if (in >= 0) close(in);
    close(out);
    return NULL;
}

/* -f on a device or FIFO writes into it (upstream's way: -o /dev/null
 * discards), never renames over it, and spools nothing beside it; on a
 * symbolic link to a file, the file is replaced and the link stays. */
START_TEST(devices_fifos_and_links_as_output)
{
    tmp_t t = tmp_make();
    char rec[160], fifo[160], copy[160], target[160], link_path[160];
    snprintf(rec, sizeof rec, "%s/client.bin", t.dir);
    snprintf(fifo, sizeof fifo, "%s/out.fifo", t.dir);
    snprintf(copy, sizeof copy, "%s/from-fifo.tracy", t.dir);
    snprintf(target, sizeof target, "%s/target.tracy", t.dir);
    snprintf(link_path, sizeof link_path, "%s/link.tracy", t.dir);
    client_t c = client_start("--scenario", "normal", "--record", rec, NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    client_finish(&c);
    free(r.err);

    char null_dev[192], spool[200];
    struct stat st;
    if (harmless_device(&t, "null", 1, 3, null_dev, sizeof null_dev)) {
        /* live, so that a default spool would be made */
        c = client_start("--scenario", "normal", NULL);
        r = capture_run(0, "-f", "-o", null_dev, "-p", c.port, "--connect-timeout", "10", NULL);
        client_finish(&c);
        ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
        free(r.err);
        ck_assert_int_eq(stat(null_dev, &st), 0);
        ck_assert(S_ISCHR(st.st_mode));
        snprintf(spool, sizeof spool, "%s.spool", null_dev);
        ck_assert_msg(lstat(spool, &st) != 0, "a spool beside a device");
    }

    /* live, so that the default spool would apply */
    c = client_start("--scenario", "normal", NULL);
    ck_assert_int_eq(mkfifo(fifo, 0644), 0);
    slow_reader_t reader = { .fifo = fifo, .copy = copy, .delay = 0 };
    pthread_t th;
    pthread_create(&th, NULL, read_fifo_late, &reader);
    r = capture_run(0, "-f", "-o", fifo, "-p", c.port, "--connect-timeout", "10", NULL);
    pthread_join(th, NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    free(r.err);
    ck_assert_int_eq(lstat(fifo, &st), 0);
    ck_assert(S_ISFIFO(st.st_mode));
    snprintf(spool, sizeof spool, "%s.spool", fifo);
    ck_assert(!file_exists(spool));         /* spooled beside it, removed once saved */
    check_has_zones(&t, copy);

    /* a socket cannot take a trace: refused before connecting */
    char sock_path[192];
    snprintf(sock_path, sizeof sock_path, "%s/sock.tracy", t.dir);
    const int sfd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    ck_assert(strlen(sock_path) < sizeof sun.sun_path);
    memcpy(sun.sun_path, sock_path, strlen(sock_path) + 1);
    ck_assert_int_eq(bind(sfd, (struct sockaddr *)&sun, sizeof sun), 0);
    r = capture_run(0, "-f", "-o", sock_path, "-p", "1", NULL);
    close(sfd);
    ck_assert_msg(r.rc == 5, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "is a socket"), "%s", r.err);
    free(r.err);

    /* links that make the spool the output: refused before the spool is
     * opened (-f would truncate it), nothing touched */
    char sp[192], to_spool[192], kept[192], kept_spool[200];
    snprintf(sp, sizeof sp, "%s/sp.bin", t.dir);
    snprintf(to_spool, sizeof to_spool, "%s/to-spool.tracy", t.dir);
    ck_assert_int_eq(symlink("sp.bin", to_spool), 0);
    r = capture_run(0, "-f", "-o", to_spool, "--spool", sp, "-p", "1", NULL);
    ck_assert_msg(r.rc == 1, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "is the output file"), "%s", r.err);
    ck_assert(!file_exists(sp));
    ck_assert_int_eq(lstat(to_spool, &st), 0);
    free(r.err);
    snprintf(kept, sizeof kept, "%s/kept.tracy", t.dir);
    snprintf(kept_spool, sizeof kept_spool, "%s.spool", kept);
    FILE *pf = fopen(kept, "w");
    fputs("precious", pf);
    fclose(pf);
    ck_assert_int_eq(symlink("kept.tracy", kept_spool), 0);
    r = capture_run(0, "-f", "-o", kept, "-p", "1", NULL);
    ck_assert_msg(r.rc == 1, "rc %d: %s", r.rc, r.err);
    free(r.err);
    char *still = read_file(kept);
    ck_assert_str_eq(still, "precious");
    free(still);

    /* a link to nowhere leads -f to the name it holds; a loop is refused */
    char dangling[192], nowhere[192], loop1[192], loop2[192];
    snprintf(dangling, sizeof dangling, "%s/dangling.tracy", t.dir);
    snprintf(nowhere, sizeof nowhere, "%s/nowhere.tracy", t.dir);
    snprintf(loop1, sizeof loop1, "%s/loop1", t.dir);
    snprintf(loop2, sizeof loop2, "%s/loop2", t.dir);
    ck_assert_int_eq(symlink("nowhere.tracy", dangling), 0);
    r = capture_run(0, "-f", "-o", dangling, "--recover", rec, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    free(r.err);
    ck_assert_int_eq(lstat(dangling, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    check_has_zones(&t, nowhere);
    ck_assert_int_eq(symlink("loop2", loop1), 0);
    ck_assert_int_eq(symlink("loop1", loop2), 0);
    r = capture_run(0, "-f", "-o", loop1, "--recover", rec, NULL);
    ck_assert_msg(r.rc == 5, "rc %d: %s", r.rc, r.err);
    free(r.err);

    FILE *old = fopen(target, "w");
    fputs("old", old);
    fclose(old);
    ck_assert_int_eq(symlink("target.tracy", link_path), 0);
    r = capture_run(0, "-f", "-o", link_path, "--recover", rec, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    free(r.err);
    ck_assert_int_eq(lstat(link_path, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    check_has_zones(&t, target);
    tmp_remove(&t);
}
END_TEST

/* A spool slower than the client (a FIFO nobody reads for 2 s): reading
 * pauses while too much waits for it, resumes once it drains, and nothing
 * is lost: every zone is saved, and the spool got every byte in order. */
START_TEST(slow_spool_pauses_the_client_and_loses_nothing)
{
    tmp_t t = tmp_make();
    char fifo[160], copy[160], rec[160];
    snprintf(fifo, sizeof fifo, "%s/slow.spool", t.dir);
    snprintf(copy, sizeof copy, "%s/spool.copy", t.dir);
    snprintf(rec, sizeof rec, "%s/client.rec", t.dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    slow_reader_t sr = { fifo, copy, 2.0 };
    pthread_t reader;
    ck_assert_int_eq(pthread_create(&reader, NULL, read_fifo_late, &sr), 0);
    client_t c = client_start("--scenario", "zones", "--threads", "2", "--zones", "3000000", "--record", rec,
                              "--manifest", t.manifest, NULL);
    run_t r = capture_run(0, "-o", t.out, "-f", "-p", c.port, "--spool", fifo, NULL);
    client_finish(&c);
    pthread_join(reader, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(r.seconds < 30, "took %.1f s", r.seconds);
    check_zones_as_sent(&t, t.out);
    char *a = read_file(copy), *b = read_file(rec);
    struct stat sa, sb;
    ck_assert_int_eq(stat(copy, &sa), 0);
    ck_assert_int_eq(stat(rec, &sb), 0);
    ck_assert_int_gt(sb.st_size, 8 << 20);      /* more than reading may hold back */
    ck_assert_int_eq(sa.st_size, sb.st_size + SPOOL_PREFIX);   /* the handshake we sent leads it */
    ck_assert(memcmp(a, "TracyPrf", 8) == 0);
    ck_assert(memcmp(a + SPOOL_PREFIX, b, (size_t)sb.st_size) == 0);
    /* a spool that is not a regular file is left where it was */
    struct stat sf;
    ck_assert_int_eq(lstat(fifo, &sf), 0);
    ck_assert(S_ISFIFO(sf.st_mode));
    free(a);
    free(b);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* The reader of a FIFO spool that leaves early: reads 100 kB, then closes. */
static void *read_fifo_briefly(void *arg)
{
    int in = open((const char *)arg, O_RDONLY);
    char buf[4096];
    for (size_t got = 0; in >= 0 && got < 100000;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n <= 0) break;
        got += (size_t)n;
    }
    if (in >= 0) close(in);
    return NULL;
}

/* A FIFO spool whose reader left: the capture waits for it 10 s, then
 * gives the spool up, says why, and goes on; nothing is lost, and the
 * capture ends by itself (it used to hang for good, a second signal
 * included). */
START_TEST(fifo_spool_whose_reader_left_is_given_up)
{
    tmp_t t = tmp_make();
    char fifo[160];
    snprintf(fifo, sizeof fifo, "%s/gone.spool", t.dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    pthread_t reader;
    ck_assert_int_eq(pthread_create(&reader, NULL, read_fifo_briefly, fifo), 0);
    client_t c = client_start("--scenario", "zones", "--threads", "2", "--zones", "3000000", "--manifest",
                              t.manifest, NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--spool", fifo, NULL);
    client_finish(&c);
    pthread_join(reader, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(r.seconds < 40, "took %.1f s", r.seconds);
    ck_assert_msg(strstr(r.err, "its reader took nothing for 10 s"), "%s", r.err);
    check_zones_as_sent(&t, t.out);
    struct stat sf;
    ck_assert_int_eq(lstat(fifo, &sf), 0);
    ck_assert(S_ISFIFO(sf.st_mode));
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* A spool that cannot be written (here a full device: every write fails with
 * ENOSPC) is said at once, while capturing, and again at the end; the
 * capture itself loses nothing, and the device is not removed. */
START_TEST(failing_spool_is_reported_at_once_and_the_capture_goes_on)
{
    struct stat sd;
    tmp_t t = tmp_make();
    char full[192];
    if (!harmless_device(&t, "full", 1, 7, full, sizeof full)) {
        tmp_remove(&t);
        return;
    }
    client_t c = client_start("--scenario", "zones", "--threads", "2", "--zones", "3000000", "--manifest",
                              t.manifest, NULL);
    /* an existing device needs no -f: it holds no earlier capture */
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--spool", full, NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "capturing goes on without it"), "%s", r.err);
    ck_assert_msg(strstr(r.err, "No space left on device) after 0 bytes; the trace itself is whole"), "%s", r.err);
    check_zones_as_sent(&t, t.out);
    ck_assert_int_eq(stat(full, &sd), 0);
    ck_assert(S_ISCHR(sd.st_mode));
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* Stopping early while input still waits to be decoded (-s and a short
 * --end-timeout against a client that sends fast): the wait gives up, but
 * everything received is decoded and saved, exactly what --recover gets
 * from the spool of the same capture. */
START_TEST(input_received_before_giving_up_is_all_saved)
{
    tmp_t t = tmp_make();
    char spool[160], rec[160], sum2[160];
    snprintf(spool, sizeof spool, "%s.spool", t.out);
    snprintf(rec, sizeof rec, "%s/recovered.tracy", t.dir);
    snprintf(sum2, sizeof sum2, "%s/summary2.txt", t.dir);
    client_t c = client_start("--scenario", "zones", "--threads", "4", "--zones", "5000000", NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "-s", "0.05", "--end-timeout", "0.05", "--keep-spool", NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    run_t r2 = capture_run(0, "-o", rec, "--recover", spool, NULL);
    ck_assert_msg(r2.rc == 0, "recover rc %d: %s", r2.rc, r2.err);
    ck_assert_int_eq(reader_run("--summary", t.out, t.summary), 0);
    ck_assert_int_eq(reader_run("--summary", rec, sum2), 0);
    char *live = read_file(t.summary), *again = read_file(sum2);
    ck_assert_int_gt(summary_value(live, "zones"), 0);
    ck_assert_int_eq(summary_value(live, "zones"), summary_value(again, "zones"));
    free(live);
    free(again);
    free(r.err);
    free(r2.err);
    tmp_remove(&t);
}
END_TEST

/* A client that goes silent with its connection open (no events, no
 * keep-alives, no reading): -s ends the capture, the wait for the client
 * to end the session is bounded by --end-timeout, every zone is saved. */
START_TEST(stalled_client_is_left_at_the_time_limit)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "stall", "--seconds", "20", "--manifest", t.manifest, NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "-s", "1", "--end-timeout", "1", NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(r.seconds < 6, "took %.1f s", r.seconds);
    ck_assert_msg(strstr(r.err, "did not end the session within 1 s"), "%s", r.err);
    check_zones_as_sent(&t, t.out);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* SIGTERM and SIGHUP end a capture the way Ctrl-C does, also when the
 * client does not answer: everything received is saved, the spool goes. */
static void check_signal_on_stalled_client(int sig, const char *says)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "stall", "--seconds", "20", "--manifest", t.manifest, NULL);
    run_t r = capture_signalled(sig, 1.0, "-o", t.out, "-p", c.port, "--end-timeout", "1", NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(r.seconds < 6, "took %.1f s", r.seconds);
    ck_assert_msg(strstr(r.err, says), "expected '%s' in: %s", says, r.err);
    char spool[160];
    struct stat st;
    snprintf(spool, sizeof spool, "%s.spool", t.out);
    ck_assert_int_ne(stat(spool, &st), 0);
    check_zones_as_sent(&t, t.out);
    free(r.err);
    tmp_remove(&t);
}

START_TEST(sigterm_saves_a_stalled_capture) { check_signal_on_stalled_client(SIGTERM, "terminated"); }
END_TEST

START_TEST(sighup_saves_a_stalled_capture) { check_signal_on_stalled_client(SIGHUP, "hung up"); }
END_TEST

/* The output directory disappears during the capture: saving fails with
 * exit 7 and a clear error, the spool (elsewhere) holds every byte the
 * client sent, and --recover rebuilds the whole trace from it. */
START_TEST(vanished_output_directory_keeps_the_spool)
{
    tmp_t t = tmp_make();
    char outdir[160], out[192], spool[160], record[160], rec[160];
    snprintf(outdir, sizeof outdir, "%s/outdir", t.dir);
    snprintf(out, sizeof out, "%s/o.tracy", outdir);
    snprintf(spool, sizeof spool, "%s/kept.spool", t.dir);
    snprintf(record, sizeof record, "%s/sent.bin", t.dir);
    snprintf(rec, sizeof rec, "%s/recovered.tracy", t.dir);
    ck_assert_int_eq(mkdir(outdir, 0755), 0);
    client_t c = client_start("--scenario", "stream", "--seconds", "30", "--record", record, "--manifest", t.manifest,
                              NULL);
    char *argv[] = { (char *)prog.capture, "-o", out, "--spool", spool, "-p", c.port, NULL };
    proc_t p = spawn(argv);
    usleep(1000000);
    ck_assert_int_eq(rmdir(outdir), 0);
    kill(p.pid, SIGINT);
    const int rc = wait_exit(p.pid, 60);
    char *err = drain(p.err);
    client_finish(&c);
    ck_assert_msg(rc == 7, "rc %d: %s", rc, err);
    ck_assert_msg(strstr(err, "cannot create a temporary file"), "%s", err);
    ck_assert_msg(strstr(err, "--recover"), "%s", err);
    free(err);
    ck_assert(spool_holds(spool, record, true));           /* the whole session */
    run_t r = capture_run(0, "-o", rec, "--recover", spool, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    free(r.err);
    check_zones_as_sent(&t, rec);
    tmp_remove(&t);
}
END_TEST

/* The disk fills (simulated by a file size limit): the spool stops with a
 * warning, and is given up and removed to give the disk its space back;
 * saving fails with exit 7 naming the file and the cause, and nothing is
 * left under the final name or as a temporary file. */
START_TEST(full_disk_fails_cleanly_and_gives_the_spool_space_back)
{
    tmp_t t = tmp_make();
    char spool[160];
    snprintf(spool, sizeof spool, "%s.spool", t.out);
    client_t c = client_start("--scenario", "normal", NULL);
    char *argv[] = { (char *)prog.capture, "-o", t.out, "-p", c.port, NULL };
    proc_t p = spawn_limited(argv, 8192);
    const int rc = wait_exit(p.pid, 60);
    char *err = drain(p.err);
    client_finish(&c);
    ck_assert_msg(rc == 7, "rc %d: %s", rc, err);
    ck_assert_msg(strstr(err, "File too large"), "%s", err);
    ck_assert_msg(strstr(err, "after 8192 bytes; it was given up and removed to free its space"), "%s", err);
    ck_assert_msg(!strstr(err, "--recover"), "%s", err);
    free(err);
    ck_assert(!file_exists(t.out));
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls %s | grep -q '\\.tmp\\.'", t.dir);
    ck_assert_msg(system(cmd) != 0, "a temporary file was left in %s", t.dir);
    ck_assert(!file_exists(spool));
    tmp_remove(&t);
}
END_TEST

/* A disk that the spool fills, with room for the trace (a 12 MB tmpfs; the
 * session is 13 MB on the wire, its trace 8.6 MB): the spool is given up
 * and its space freed, and the trace is saved whole. Needs the right to
 * mount (root); skipped otherwise. */
START_TEST(spool_filling_the_disk_leaves_room_for_the_trace)
{
    tmp_t t = tmp_make();
    char disk[96], out[128], spool[140];
    snprintf(disk, sizeof disk, "%s/disk", t.dir);
    ck_assert_int_eq(mkdir(disk, 0700), 0);
    if (mount("tmpfs", disk, "tmpfs", 0, "size=12m") != 0) {
        fprintf(stderr, "skipped: cannot mount a tmpfs (%s)\n", strerror(errno));
        tmp_remove(&t);
        return;
    }
    snprintf(out, sizeof out, "%s/out.tracy", disk);
    snprintf(spool, sizeof spool, "%s.spool", out);
    client_t c = client_start("--scenario", "zones", "--threads", "2", "--zones", "3000000", "--manifest",
                              t.manifest, NULL);
    run_t r = capture_run(0, "-o", out, "-p", c.port, NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "No space left on device"), "%s", r.err);
    ck_assert_msg(strstr(r.err, "given up and removed to free its space; the trace itself is whole"), "%s", r.err);
    ck_assert(!file_exists(spool));
    check_zones_as_sent(&t, out);
    free(r.err);
    umount2(disk, MNT_DETACH);
    tmp_remove(&t);
}
END_TEST

/* Wait (at most `seconds`) until the process writes `what` on its pipe. */
static bool wait_for_output(int fd, const char *what, double seconds)
{
    char buf[8192];
    size_t n = 0;
    const double end = now_s() + seconds;
    while (now_s() < end) {
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        if (poll(&pf, 1, 5) <= 0) continue;
        if (n > sizeof buf / 2) {       /* keep the tail, where `what` may start */
            memmove(buf, buf + n - 256, 256);
            n = 256;
        }
        ssize_t k = read(fd, buf + n, sizeof buf - n - 1);
        if (k <= 0) return false;
        n += (size_t)k;
        buf[n] = '\0';
        if (strstr(buf, what)) return true;
    }
    return false;
}

/* SIGKILL while saving: no file is left under a temporary name (it has
 * none until it is complete), and the output is either absent or whole. */
START_TEST(killed_while_saving_leaves_no_temporary_file)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "zones", "--zones", "3000000", "--threads", "2", "-q", NULL);
    char *argv[] = { (char *)prog.capture, "-o", t.out, "-p", c.port, NULL };
    proc_t p = spawn_opts(argv, 0, true);
    ck_assert(wait_for_output(p.err, "Saving trace", 30));
    usleep(20000);
    kill(p.pid, SIGKILL);
    wait_exit(p.pid, 30);
    close(p.err);
    client_finish(&c);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls %s | grep -q '\\.tmp\\.'", t.dir);
    ck_assert_msg(system(cmd) != 0, "a temporary file was left in %s", t.dir);
    if (file_exists(t.out)) ck_assert_int_eq(reader_run("--summary", t.out, t.summary), 0);
    tmp_remove(&t);
}
END_TEST

/* ---- hostile clients and environments (issue 12) ------------------------------------ */

/* A client that ended its session and sends KeepAlives instead of the
 * answers it owes: data keeps coming (and used to hold the wait), yet it
 * ends --end-timeout after the last answer, naming what is missing, and
 * everything is saved. */
START_TEST(trickling_client_cannot_hold_the_end_wait)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "trickle", "--manifest", t.manifest, NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", "--end-timeout", "1", NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "stopped waiting after 1 s without an answer from the client") &&
                  strstr(r.err, "strings"), "%s", r.err);
    ck_assert_msg(r.seconds < 6, "took %.1f s", r.seconds);
    check_zones_as_sent(&t, t.out);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* A path in the test's directory, and whether anything is there. */
static bool path_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* With too few descriptors the capture says at once what it could not
 * open and the limit (exit 1; it used to crash on an unchecked libuv loop,
 * or retry EMFILE from socket() as a client not there yet, forever), and
 * leaves nothing behind; with the fewest that suffice, the trace is whole. */
START_TEST(descriptor_limits_are_named_or_suffice)
{
    tmp_t t = tmp_make();
    char spool[160];
    snprintf(spool, sizeof spool, "%s.spool", t.out);
    client_t c = client_start("--scenario", "normal", "--manifest", t.manifest, NULL);
    int enough = 0;
    char *last_err = NULL;
    for (int n = 4; n <= 24 && !enough; n++) {
        const limits_t lim = { .n = 1, .v = { { RLIMIT_NOFILE, (rlim_t)n } } };
        run_t r = capture_limited(&lim, "-o", t.out, "-p", c.port, "--connect-timeout", "10", NULL);
        if (r.rc == 0) {
            enough = n;
            free(r.err);
            break;
        }
        char limit[80];
        snprintf(limit, sizeof limit, "Too many open files (the descriptor limit, ulimit -n, is %d)", n);
        ck_assert_msg(r.rc == 1, "ulimit -n %d: rc %d: %s", n, r.rc, r.err);
        ck_assert_msg(strstr(r.err, limit) && strstr(r.err, "nothing was captured"), "ulimit -n %d: %s", n, r.err);
        ck_assert_msg(r.seconds < 3, "ulimit -n %d: took %.1f s: %s", n, r.seconds, r.err);
        ck_assert_msg(!path_exists(spool) && !path_exists(t.out), "ulimit -n %d left a file behind", n);
        free(last_err);
        last_err = r.err;
    }
    ck_assert_msg(enough > 4 && enough <= 16, "the capture needed %d descriptors", enough);
    /* just below: the connection's socket is the one that could not be had */
    ck_assert_msg(strstr(last_err, "cannot create the connection's socket"), "%s", last_err);
    ck_assert_int_eq(client_finish(&c), 0);
    check_zones_as_sent(&t, t.out);
    ck_assert(!path_exists(spool));
    free(last_err);
    tmp_remove(&t);
}
END_TEST

/* A capture that could not start (too few descriptors), or was killed
 * before any client came, is in nobody's way: its empty spool used to make
 * the next capture fail with exit 4. */
START_TEST(a_capture_that_never_began_leaves_nothing_in_the_way)
{
    tmp_t t = tmp_make();
    char spool[160], port[16];
    snprintf(spool, sizeof spool, "%s.spool", t.out);
    const limits_t lim = { .n = 1, .v = { { RLIMIT_NOFILE, 6 } } };
    run_t r = capture_limited(&lim, "-o", t.out, "-p", "1", NULL);
    ck_assert_msg(r.rc == 1 && strstr(r.err, "ulimit -n, is 6"), "rc %d: %s", r.rc, r.err);
    ck_assert(!path_exists(spool));
    free(r.err);
    /* killed while waiting for a client: an empty spool is left, and taken over */
    free_port(port, sizeof port);
    capture_kill9(0.5, t.out, port);
    ck_assert_msg(path_exists(spool), "the killed capture left no spool to test with");
    client_t c = client_start("--scenario", "normal", "--manifest", t.manifest, NULL);
    r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", NULL);
    ck_assert_int_eq(client_finish(&c), 0);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    check_zones_as_sent(&t, t.out);
    ck_assert(!path_exists(spool));
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* An empty spool that a running capture holds (waiting for its client) is
 * not taken over: the second capture is refused, and says why. */
START_TEST(a_spool_in_use_is_refused)
{
    tmp_t t = tmp_make();
    char spool[160], port[16];
    snprintf(spool, sizeof spool, "%s.spool", t.out);
    free_port(port, sizeof port);
    char *argv[] = { (char *)prog.capture, "-q", "-o", t.out, "-p", port, NULL };
    proc_t first = spawn(argv);
    for (int i = 0; i < 200 && !path_exists(spool); i++) usleep(10000);
    run_t r = capture_run(0, "-o", t.out, "-p", port, "--connect-timeout", "1", NULL);
    kill(first.pid, SIGKILL);
    wait_exit(first.pid, 10);
    free(drain(first.err));
    ck_assert_msg(r.rc == 4, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "is being written by another capture"), "%s", r.err);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* Under an address-space limit (ulimit -v; with ulimit -s large, so that
 * each thread's stack takes much of it) the decoder thread starts but the
 * spool's cannot: the capture warns, goes on without the spool, and saves
 * the whole trace (it used to exit 7 with nothing saved). A sanitizer
 * build, which cannot start under such a limit at all, skips this. */
START_TEST(a_spool_thread_that_cannot_start_is_given_up)
{
    tmp_t t = tmp_make();
    char spool[160];
    snprintf(spool, sizeof spool, "%s.spool", t.out);
    client_t c = client_start("--scenario", "normal", "--manifest", t.manifest, NULL);
    const limits_t lim = { .n = 2, .v = { { RLIMIT_STACK, 128u << 20 }, { RLIMIT_AS, 224u << 20 } } };
    run_t r = capture_limited(&lim, "-o", t.out, "-p", c.port, "--connect-timeout", "10", NULL);
    if (strstr(r.err, "Sanitizer")) {
        fprintf(stderr, "skipped: a sanitizer build cannot run under ulimit -v\n");
        kill(c.p.pid, SIGKILL);
        client_finish(&c);
        free(r.err);
        tmp_remove(&t);
        return;
    }
    ck_assert_int_eq(client_finish(&c), 0);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "cannot start the thread that writes the spool") &&
                  strstr(r.err, "ulimit -v, is 229376 kB") && strstr(r.err, "capturing goes on without the spool"),
                  "%s", r.err);
    check_zones_as_sent(&t, t.out);
    ck_assert(!path_exists(spool));
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* One capture of the memory scenario under ulimit -v `mb` MB; checks that
 * it ended in one of the ways the man page gives and returns its status. */
static int capture_under_memory_limit(const tmp_t *t, int mb, bool *one_stream)
{
    char spool[160], rebuilt[160];
    snprintf(spool, sizeof spool, "%s.spool", t->out);
    snprintf(rebuilt, sizeof rebuilt, "%s/rebuilt.tracy", t->dir);
    unlink(t->out);
    unlink(spool);
    unlink(t->manifest);
    client_t c = client_start("--scenario", "memory", "--threads", "2", "--zones", "3000", "--manifest", t->manifest,
                              NULL);
    const limits_t lim = { .n = 1, .v = { { RLIMIT_AS, (rlim_t)mb << 20 } } };
    /* a name, not a number, where one resolves: the lookup's thread must
     * start too */
    struct addrinfo *ai = NULL;
    const bool named = getaddrinfo("localhost", c.port, NULL, &ai) == 0;
    if (ai) freeaddrinfo(ai);
    run_t r = capture_limited(&lim, "-o", t->out, "-a", named ? "localhost" : "127.0.0.1", "-p", c.port,
                              "--connect-timeout", "10", NULL);
    client_finish(&c);      /* it ends when the capture does, and writes its manifest */
    const int rc = r.rc;
    if (rc == 0) {
        *one_stream |= strstr(r.err, "the trace was saved with one") != NULL;
        check_zones_as_sent(t, t->out);
    } else if (rc == 7) {
        ck_assert_msg(strstr(r.err, "error: out of memory") || strstr(r.err, "memory ran out"), "%d MB: %s", mb,
                      r.err);
        if (path_exists(spool)) {
            /* what it kept rebuilds the trace of what arrived */
            ck_assert_msg(strstr(r.err, "'tracy-capture --recover"), "%d MB: %s", mb, r.err);
            run_t rec = capture_run(0, "-o", rebuilt, "-f", "--recover", spool, NULL);
            ck_assert_msg(rec.rc == 0, "%d MB: --recover rc %d: %s", mb, rec.rc, rec.err);
            ck_assert_msg(reader_run("--summary", rebuilt, t->summary) == 0, "%d MB: the reader refuses %s", mb,
                          rebuilt);
            free(rec.err);
        } else {
            ck_assert_msg(strstr(r.err, "without the spool"), "%d MB: the spool is gone: %s", mb, r.err);
        }
    } else if (rc == 1) {
        ck_assert_msg(strstr(r.err, "nothing was captured"), "%d MB: %s", mb, r.err);
        ck_assert_msg(!path_exists(spool) && !path_exists(t->out), "%d MB left a file behind", mb);
    } else {
        ck_abort_msg("%d MB: rc %d: %s", mb, rc, r.err);
    }
    free(r.err);
    return rc;
}

/* From too little memory to enough (ulimit -v 16 to 96 MB), connecting
 * to a host name: never a crash or a hang (libuv's lookup threads ended
 * the process when one could not start), and every run saves the whole trace (perhaps with one
 * compression stream), or runs out with the spool kept and the command
 * that rebuilds it named (7), or captures nothing and leaves nothing (1).
 * Both saving and running out are seen. A sanitizer build skips this. */
START_TEST(memory_limits_save_or_keep_what_arrived)
{
#ifdef E2E_ASAN
    fprintf(stderr, "skipped: a sanitizer build (this one) cannot run under ulimit -v\n");
    return;
#endif
    tmp_t t = tmp_make();
    bool saved = false, ran_out = false, one_stream = false;
    for (int mb = 16; mb <= 96; mb += 8) {
        const int rc = capture_under_memory_limit(&t, mb, &one_stream);
        saved |= rc == 0;
        ran_out |= rc == 7;
        if (saved && mb >= 64) break;
    }
    ck_assert_msg(saved && ran_out, "saved %d, ran out %d", saved, ran_out);
    if (!one_stream) fprintf(stderr, "note: no limit of the sweep made the save fall back to one stream\n");
    tmp_remove(&t);
}
END_TEST

/* Hostile input of the `malformed` scenario that would make the file one
 * upstream's tools cannot read, or the capture reach undefined behaviour
 * (absurd welcome times, call stacks of no frame, zones nested too deep):
 * exit 0 with a warning naming it, the session goes on to Terminate, and
 * the saved file holds every zone the manifest expects and passes our
 * reader's checks for what upstream's tools need (times within 48 bits,
 * no call stack without a frame, no nesting deeper than they read back).
 * The client's recording, through --recover, gives the same. Run under a
 * sanitizer build with halt_on_error, a report fails the capture. */
static void check_hostile_input(const char *kind, const char *expect)
{
    tmp_t t = tmp_make();
    char rec[160], out2[160];
    snprintf(rec, sizeof rec, "%s/client.bin", t.dir);
    snprintf(out2, sizeof out2, "%s/recovered.tracy", t.dir);
    client_t c = client_start("--scenario", "malformed", "--garbage-kind", kind, "--manifest", t.manifest,
                              "--record", rec, NULL);
    run_t r = capture_run(0, "-o", t.out, "-p", c.port, "--connect-timeout", "10", "--end-timeout", "5", NULL);
    ck_assert_int_eq(client_finish(&c), 0);
    ck_assert_msg(r.rc == 0, "%s: rc %d: %s", kind, r.rc, r.err);
    ck_assert_msg(strstr(r.err, expect), "%s: expected '%s' in: %s", kind, expect, r.err);
    char *man = read_file(t.manifest);
    ck_assert_ptr_nonnull(strstr(man, "\nend terminate"));
    const long long bad = manifest_value(man, "bad_events");
    char n[96];
    if (bad > 0) snprintf(n, sizeof n, "warning: %lld event%s dropped or repaired", bad, bad == 1 ? "" : "s");
    else snprintf(n, sizeof n, "events dropped or repaired");
    ck_assert_msg(strstr(r.err, n), "%s: expected '%s' in: %s", kind, n, r.err);
    free(r.err);

    const long long want = manifest_value(man, "zones_expected");
    ck_assert_int_gt(want, manifest_value(man, "bad_zones_before"));
    const char *files[] = { t.out, out2 };
    for (int i = 0; i < 2; i++) {
        if (i == 1) {
            r = capture_run(0, "-o", out2, "--recover", rec, NULL);
            ck_assert_msg(r.rc == 0, "%s: --recover rc %d: %s", kind, r.rc, r.err);
            ck_assert_msg(strstr(r.err, expect), "%s: --recover: expected '%s' in: %s", kind, expect, r.err);
            free(r.err);
        }
        ck_assert_msg(reader_run("--summary", files[i], t.summary) == 0, "%s: the reader refuses %s", kind, files[i]);
        char *sum = read_file(t.summary);
        ck_assert_msg(summary_value(sum, "zones") == want, "%s: %lld zones saved in %s, %lld expected", kind,
                      summary_value(sum, "zones"), files[i], want);
        static const char *const same[] = { "threads", "messages", "plots", "locks" };
        for (size_t k = 0; k < sizeof same / sizeof same[0]; k++)
            ck_assert_msg(summary_value(sum, same[k]) == manifest_value(man, same[k]), "%s: %s: sent %lld, saved %lld",
                          kind, same[k], manifest_value(man, same[k]), summary_value(sum, same[k]));
        ck_assert_msg(summary_value(sum, "gpuZones") == manifest_value(man, "gpu_zones"), "%s: GPU zones: %lld kept, "
                      "%lld saved", kind, manifest_value(man, "gpu_zones"), summary_value(sum, "gpuZones"));
        free(sum);
    }
    free(man);
    tmp_remove(&t);
}

START_TEST(welcome_with_a_nan_timer_multiplier_takes_ticks_as_ns)
{
    check_hostile_input("timer-nan", "the welcome's timer multiplier nan is not a finite positive number "
                                     "(ticks taken as nanoseconds)");
}
END_TEST

START_TEST(welcome_with_an_infinite_timer_multiplier_takes_ticks_as_ns)
{
    check_hostile_input("timer-infinite", "the welcome's timer multiplier inf is not a finite positive number");
}
END_TEST

START_TEST(welcome_with_a_huge_timer_multiplier_takes_ticks_as_ns)
{
    check_hostile_input("timer-huge", "the welcome's timer multiplier 1e+30 ns per tick is beyond any clock's "
                                      "(at most 1e+06; ticks taken as nanoseconds)");
}
END_TEST

START_TEST(welcome_with_the_largest_resolution_keeps_it_in_48_bits)
{
    check_hostile_input("resolution-max", "the welcome's timer resolution of 18446744073709551615 ticks converts "
                                          "to 1.84467e+19 ns, outside the +-2^47 ns");
}
END_TEST

START_TEST(welcome_with_a_far_init_begin_keeps_times_in_48_bits)
{
    check_hostile_input("init-begin-far", "a time of 1250000 ticks converts to 4.61169e+18 ns, outside the +-2^47 ns "
                                          "(about 39 hours) a trace holds (kept as 140737488355327 ns; the "
                                          "welcome's initBegin is -4611686018427387904");
}
END_TEST

START_TEST(call_stack_payload_without_a_frame_is_dropped)
{
    check_hostile_input("callstack-empty", "CallstackPayload event at byte 0 of the decompressed frame: call stack "
                                           "payload of 4 bytes holds no frame (dropped)");
}
END_TEST

START_TEST(allocated_call_stack_without_a_whole_frame_is_dropped)
{
    check_hostile_input("callstack-alloc-empty", "CallstackAllocPayload event at byte 0 of the decompressed frame: "
                                                 "allocated call stack payload of 7 bytes holds no whole frame");
}
END_TEST

START_TEST(gpu_zones_nested_too_deep_are_dropped_and_those_above_kept)
{
    check_hostile_input("gpu-zone-depth", "GPU zone of context 3 nested deeper than the 4000 levels upstream's tools "
                                          "read back (dropped, with its children)");
}
END_TEST

START_TEST(zones_nested_too_deep_are_dropped_and_those_above_kept)
{
    check_hostile_input("zone-depth", "zone on thread 1000 nested deeper than the 4000 levels upstream's tools "
                                      "read back (dropped, with its children)");
}
END_TEST

/* The malformed scenario with a flood of valid events (`kind`), captured
 * live; a capture still running after 30 s is killed (rc -1), so a
 * quadratic one fails here rather than at the test's timeout. It must
 * end well, without a warning, within 10 s and 200 MB. */
static run_t capture_flood(const tmp_t *t, const char *kind)
{
    const double limit = 30;
    client_t c = client_start("--scenario", "malformed", "--garbage-kind", kind, "--manifest", t->manifest, NULL);
    char *argv[] = { (char *)prog.capture, "-o", (char *)t->out, "-p", c.port, "--connect-timeout", "10",
                     "--end-timeout", "5", NULL };
    const double t0 = now_s();
    proc_t p = spawn(argv);
    run_t r = { .maxrss_kb = 0 };
    r.rc = wait_exit_rss(p.pid, limit, &r.maxrss_kb);
    r.seconds = now_s() - t0;
    r.err = drain(p.err);
    client_finish(&c);
    ck_assert_msg(r.rc == 0, "%s: rc %d after %.1f s: %s", kind, r.rc, r.seconds, r.err);
    ck_assert_msg(!strstr(r.err, "warning"), "%s: %s", kind, r.err);
    ck_assert_msg(r.seconds < 10, "%s: took %.1f s", kind, r.seconds);
    ck_assert_msg(r.maxrss_kb < 200 * 1024, "%s: peak RSS %ld KB", kind, r.maxrss_kb);
    return r;
}

/* The default memory pool's summary line holds the events and live
 * allocations the manifest says were sent; returns the allocations. */
static unsigned long long check_mempool_as_sent(const char *sum, const char *man)
{
    const char *line = strstr(man, "\nmempool ");
    ck_assert_ptr_nonnull(line);
    unsigned long long allocs = 0, frees = 0;
    ck_assert_int_eq(sscanf(line, "\nmempool %llu %llu (default)", &allocs, &frees), 2);
    char want[96];
    snprintf(want, sizeof want, "\nmempool '(default)': events=%llu active=%llu\n", allocs, allocs - frees);
    ck_assert_msg(strstr(sum, want), "expected '%s' in:\n%s", want + 1, sum);
    return allocs;
}

/* The value column of the -u row of source location `name` (its text,
 * newlines and all, up to the end of the file's row), or NULL. */
static const char *unwrap_value(const char *csv, const char *name)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\n%s,", name);
    const char *p = strstr(csv, pat);
    for (int commas = 0; p && commas < 6; p++) commas += *p == ',';
    return p;
}

/* 16000 ZoneValue on one zone (144 KB) made upstream's way of joining
 * texts intern 16000 ever longer strings: 1.7 GB. The text is built in
 * place: memory and time stay small, the saved text is upstream's join,
 * and no intermediate join is saved. */
START_TEST(zone_text_flood_takes_memory_linear_in_the_text)
{
    tmp_t t = tmp_make();
    run_t r = capture_flood(&t, "text-flood");
    ck_assert_int_eq(reader_run("-u", t.out, t.csv), 0);
    char *csv = read_file(t.csv);
    static char want[16000 * 24 + 16];
    size_t n = (size_t)snprintf(want, sizeof want, "flood");
    for (unsigned v = 0; v < 16000; v++) n += (size_t)snprintf(want + n, sizeof want - n, "\n%u [0x%x]", v, v);
    const char *got = unwrap_value(csv, "text_flood");
    ck_assert_ptr_nonnull(got);
    ck_assert_msg(strncmp(got, want, n) == 0 && got[n] == '\n', "text_flood's text: %.60s...", got);
    free(csv);

    ck_assert_int_eq(reader_run("--summary", t.out, t.summary), 0);
    char *sum = read_file(t.summary), *man = read_file(t.manifest);
    ck_assert_int_eq(summary_value(sum, "zones"), manifest_value(man, "zones_expected"));
    /* the session's own strings and the final join; upstream: 16446 */
    ck_assert_int_lt(summary_value(sum, "strings"), 1000);
    free(sum);
    free(man);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* 160000 allocations, then their frees, at addresses whose unkeyed hash
 * shares its low 20 bits (3.5 MB): with that hash placing them, every
 * insertion and deletion walked one cluster of all the live ones (25-55 s).
 * Keyed, it is linear: every event saved, quickly. */
START_TEST(hash_flood_of_crafted_addresses_stays_linear)
{
    tmp_t t = tmp_make();
    run_t r = capture_flood(&t, "hash-flood");
    ck_assert_int_eq(reader_run("--summary", t.out, t.summary), 0);
    char *sum = read_file(t.summary), *man = read_file(t.manifest);
    ck_assert_uint_ge(check_mempool_as_sent(sum, man), 160000);
    ck_assert_int_eq(summary_value(sum, "zones"), manifest_value(man, "zones_expected"));
    free(sum);
    free(man);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* 131072 distinct call stacks whose bytes an unkeyed multiply-fold hash
 * maps to one value (2.7 MB): each new stack was compared with all the
 * earlier ones (over 100 s). Keyed, every stack is saved quickly. */
START_TEST(call_stack_flood_of_colliding_contents_stays_linear)
{
    tmp_t t = tmp_make();
    run_t r = capture_flood(&t, "callstack-flood");
    ck_assert_int_eq(reader_run("--summary", t.out, t.summary), 0);
    char *sum = read_file(t.summary), *man = read_file(t.manifest);
    ck_assert_int_gt(manifest_value(man, "callstacks"), 131072);
    ck_assert_int_eq(summary_value(sum, "callstacks"), manifest_value(man, "callstacks"));
    check_mempool_as_sent(sum, man);
    free(sum);
    free(man);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* 150000 messages of distinct texts an unkeyed multiply-fold hash maps to
 * one value (1.3 MB): the string table walked one cluster of all of them
 * for each (20-50 s). Keyed, every message and its text is saved quickly. */
START_TEST(string_flood_of_colliding_contents_stays_linear)
{
    tmp_t t = tmp_make();
    run_t r = capture_flood(&t, "string-flood");
    ck_assert_int_eq(reader_run("--summary", t.out, t.summary), 0);
    char *sum = read_file(t.summary), *man = read_file(t.manifest);
    ck_assert_int_gt(manifest_value(man, "messages"), 150000);
    ck_assert_int_eq(summary_value(sum, "messages"), manifest_value(man, "messages"));
    ck_assert_int_gt(summary_value(sum, "strings"), 150000);
    free(sum);
    free(man);
    ck_assert_int_eq(reader_run("-m", t.out, t.csv), 0);
    char *csv = read_file(t.csv);
    ck_assert_ptr_nonnull(strstr(csv, "\nflood 0000149999\xDB\x28\xB4\xA0\xD1\x7E\x03\xE7-message,"));
    free(csv);
    free(r.err);
    tmp_remove(&t);
}
END_TEST

/* ---- for CI jobs: --require, the summary, --summary-json, LD_PRELOAD (issue 15) ------ */

typedef struct {
    int rc;
    char *out, *err;    /* its stdout and stderr */
} split_run_t;

/* Run tracy-capture with arguments from a NULL-terminated list, its stdout
 * and stderr kept apart. */
static split_run_t capture_split(const char *first, ...)
{
    char *argv[40] = { (char *)prog.capture };
    int n = 1;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && n < 39; a = va_arg(ap, const char *)) argv[n++] = (char *)a;
    va_end(ap);
    argv[n] = NULL;
    int out;
    proc_t p = spawn_split(argv, &out);
    split_run_t r = { .rc = wait_exit(p.pid, 60) };
    r.out = drain(out);
    r.err = drain(p.err);
    return r;
}

static void split_free(split_run_t *r)
{
    free(r->out);
    free(r->err);
}

#define ALL_FAMILIES "zones,frames,messages,plots,locks,memory,callstacks,sampling,context-switches,gpu,source-files"

/* Run python3 on a JSON file: `code` asserts on d, the parsed object (and
 * argv[3], `arg`). False (said) where python3 cannot be run. */
static bool json_holds(const char *path, const char *code, const char *arg)
{
    static const char runner[] = "import json, sys\nd = json.load(open(sys.argv[1]))\narg = sys.argv[3]\n"
                                 "exec(sys.argv[2])\n";
    char *argv[] = { "/usr/bin/env", "python3", "-c", (char *)runner, (char *)path, (char *)code,
                     (char *)(arg ? arg : ""), NULL };
    int out;
    proc_t p = spawn_split(argv, &out);
    const int rc = wait_exit(p.pid, 30);
    char *o = drain(out), *e = drain(p.err);
    if (rc == 127) {
        fprintf(stderr, "skipped: python3 is needed to read the JSON file\n");
        free(o);
        free(e);
        return false;
    }
    ck_assert_msg(rc == 0, "the JSON %s does not hold: %s\n%s%s", path, code, o, e);
    free(o);
    free(e);
    return true;
}

/* The sum of the first numbers of the manifest's lines that begin with
 * `key ` ("mempool ALLOCS FREES NAME"). */
static long long manifest_sum(const char *man, const char *key)
{
    long long sum = 0;
    const size_t len = strlen(key);
    for (const char *p = man; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, key, len) == 0 && p[len] == ' ') sum += atoll(p + len + 1);
    return sum;
}

/* The `normal` scenario lacks GPU zones, samples, context switches and
 * source files: --require of every family saves the trace, exits 9, and
 * names each of those four with its usual causes, and no other; -q says
 * nothing else. The JSON says the same. */
START_TEST(require_names_what_the_capture_lacks_and_why)
{
    tmp_t t = tmp_make();
    char json[160];
    snprintf(json, sizeof json, "%s/summary.json", t.dir);
    client_t c = client_start("--scenario", "normal", "--manifest", t.manifest, NULL);
    split_run_t r = capture_split("-q", "-o", t.out, "-p", c.port, "--connect-timeout", "10", "--require",
                                  ALL_FAMILIES, "--summary-json", json, NULL);
    ck_assert_int_eq(client_finish(&c), 0);
    ck_assert_msg(r.rc == 9, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(!r.out[0], "stdout despite -q: %s", r.out);
    check_zones_as_sent(&t, t.out);
    static const char *const lacking[] = {
        "error: --require sampling: the capture holds no samples: sampling needs the client to run as root or with "
        "/proc/sys/kernel/perf_event_paranoid at most 1, and a client built without TRACY_NO_SAMPLING and "
        "TRACY_NO_SYSTEM_TRACING",
        "sampling does not work in most virtual machines (the client says its sampling period is 0",
        "error: --require context-switches: the capture holds no context switches: they need the client to run as "
        "root or with /proc/sys/kernel/perf_event_paranoid at most 1",
        "error: --require gpu: the capture holds no GPU zones: the program has no GPU instrumentation",
        "error: --require source-files: the capture holds no source files: the client was built without debug "
        "information (-g), or it did not find the source files",
    };
    for (size_t i = 0; i < sizeof lacking / sizeof lacking[0]; i++)
        ck_assert_msg(strstr(r.err, lacking[i]), "'%s' not said: %s", lacking[i], r.err);
    static const char *const held[] = { "zones", "frames", "messages", "plots", "locks", "memory", "callstacks" };
    for (size_t i = 0; i < sizeof held / sizeof held[0]; i++) {
        char said[64];
        snprintf(said, sizeof said, "--require %s:", held[i]);
        ck_assert_msg(!strstr(r.err, said), "%s said missing: %s", held[i], r.err);
    }
    /* four errors and nothing else */
    int lines = 0;
    for (const char *p = r.err; (p = strchr(p, '\n')); p++) lines++;
    ck_assert_msg(lines == 4, "%d lines: %s", lines, r.err);

    char *man = read_file(t.manifest), code[1024];
    snprintf(code, sizeof code,
             "assert d['status'] == 9 and d['saved'] is True and d['path'] == arg, d\n"
             "assert d['missing'] == ['sampling', 'context-switches', 'gpu', 'source-files'], d['missing']\n"
             "assert d['required'] == %s, d['required']\n"
             "assert d['empty'] == d['missing'], d['empty']\n"
             "assert d['zones'] == %lld == d['families']['zones']['zones'], d['zones']\n"
             "assert d['families']['memory']['memory_events'] == %lld, d['families']['memory']\n"
             "assert d['families']['locks']['locks'] == %lld, d['families']['locks']\n"
             "assert d['families']['sampling'] == {'samples': 0, 'context_switch_samples': 0, "
             "'hardware_samples': 0}, d['families']['sampling']\n",
             "['zones', 'frames', 'messages', 'plots', 'locks', 'memory', 'callstacks', 'sampling', "
             "'context-switches', 'gpu', 'source-files']",
             manifest_value(man, "zones"), manifest_sum(man, "mempool"), manifest_value(man, "locks"));
    json_holds(json, code, t.out);
    free(man);
    split_free(&r);
    tmp_remove(&t);
}
END_TEST

/* The `everything` scenario holds every family: --require of them all
 * exits 0, and the summary has a line for each and no "Not captured". */
START_TEST(require_is_met_by_a_capture_of_every_family)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "everything", NULL);
    split_run_t r = capture_split("-o", t.out, "-p", c.port, "--connect-timeout", "10", "--require", ALL_FAMILIES,
                                  NULL);
    ck_assert_int_eq(client_finish(&c), 0);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(!strstr(r.err, "error"), "%s", r.err);
    static const char *const lines[] = {
        "\n  zones             ", "\n  frames            ", "\n  messages          ", "\n  plots             ",
        "\n  locks             ", "\n  memory            ", "\n  callstacks        ", "\n  sampling          ",
        "\n  context-switches  ", "\n  gpu               ", "\n  source-files      ", "\n  sections          ",
    };
    const char *at = strstr(r.out, "\nCaptured:\n");
    ck_assert_msg(at, "%s", r.out);
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        const char *next = strstr(at, lines[i]);
        ck_assert_msg(next, "no line '%s' in order: %s", lines[i] + 1, r.out);
        at = next + 1;
    }
    ck_assert_msg(strstr(r.out, " samples (") && strstr(r.out, " CPU context switches"), "%s", r.out);
    ck_assert_msg(!strstr(r.out, "Not captured"), "%s", r.out);
    split_free(&r);
    tmp_remove(&t);
}
END_TEST

/* Memory and call stacks missing (the `zones` scenario) are said with
 * their causes; a failure of the capture's own keeps its status (8, the
 * stream broken) over the requirement's, which is still said; an unknown
 * family is a usage error naming the known ones, before connecting. */
START_TEST(require_hints_and_which_status_wins)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "zones", "--zones", "2000", NULL);
    split_run_t r = capture_split("-o", t.out, "-p", c.port, "--connect-timeout", "10", "--require", "memory",
                                  "--require", "callstacks,zones", NULL);
    ck_assert_int_eq(client_finish(&c), 0);
    ck_assert_msg(r.rc == 9, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "error: --require memory: the capture holds no memory events: the program reports "
                                "none (TracyAlloc, TracyFree...); if an allocation interposer is to report them "
                                "through LD_PRELOAD, it did not load into the program") &&
                  strstr(r.err, "error: --require callstacks: the capture holds no call stacks: the call-stack "
                                "depth is 0") && !strstr(r.err, "--require zones"), "%s", r.err);
    /* said after the save, whose summary is complete */
    ck_assert_msg(strstr(r.out, "Trace size") && strstr(r.out, "\nNot captured: messages, plots, locks, memory, callstacks, sampling"),
                  "%s", r.out);
    check_has_zones(&t, t.out);
    split_free(&r);

    c = client_start("--scenario", "garbage", "--garbage-kind", "lz4", NULL);
    r = capture_split("-f", "-o", t.out, "-p", c.port, "--connect-timeout", "10", "--require", "gpu", NULL);
    client_finish(&c);
    ck_assert_msg(r.rc == 8, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "does not decompress") && strstr(r.err, "--require gpu: the capture holds no GPU"),
                  "%s", r.err);
    split_free(&r);

    char port[16];
    free_port(port, sizeof port);
    r = capture_split("-o", t.out, "-f", "-p", port, "--require", "memory,sampels", NULL);
    ck_assert_msg(r.rc == 1, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "--require: unknown family 'sampels'; the families are: zones, frames, messages, "
                                "plots, locks, memory, callstacks, sampling, context-switches, gpu, source-files"),
                  "%s", r.err);
    split_free(&r);
    r = capture_split("-o", t.out, "-f", "-p", port, "--require", ",", NULL);
    ck_assert_msg(r.rc == 1 && strstr(r.err, "--require needs a comma-separated list of families"), "rc %d: %s",
                  r.rc, r.err);
    split_free(&r);
    tmp_remove(&t);
}
END_TEST

/* The summary: upstream's lines first, as they were (scripts read them),
 * then a line per family with something in it and one naming those with
 * nothing; with -q nothing at all, not even the warning a bad event gets. */
START_TEST(summary_lists_the_families_after_upstreams_lines)
{
    tmp_t t = tmp_make();
    client_t c = client_start("--scenario", "normal", "--manifest", t.manifest, NULL);
    split_run_t r = capture_split("-o", t.out, "-p", c.port, "--connect-timeout", "10", NULL);
    ck_assert_int_eq(client_finish(&c), 0);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    static const char *const order[] = {
        "\nFrames: ", "\nTime span: ", "\nZones: 3,966\n", "\nElapsed time: ", "\nSaving trace... done!\n",
        "\nTrace size ", "\nCaptured:\n", "\n  zones             3,966 zones (", "\n  frames            ",
        "\n  messages          ", "\n  plots             3 plots, 519 points\n",
        "\n  locks             2 locks, 1,353 lock events\n", "\n  memory            191 memory events in 2 pools\n",
        "\n  callstacks        3 call stacks of 5 frames, 5 symbols\n",
        "\nNot captured: sampling, context-switches, gpu, source-files\n",
    };
    const char *at = r.out;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *next = strstr(at, order[i]);
        ck_assert_msg(next, "'%s' not found in order: %s", order[i] + 1, r.out);
        at = next + 1;
    }
    ck_assert_msg(strchr(at, '\n')[1] == '\0', "after the last line: %s", at);
    ck_assert_msg(!strstr(r.out, " 0 "), "a count of 0 is shown: %s", r.out);
    split_free(&r);

    /* -q: errors only; a dropped event's warning is not one */
    c = client_start("--scenario", "malformed", "--garbage-kind", "lock-unannounced", NULL);
    r = capture_split("-q", "-f", "-o", t.out, "-p", c.port, "--connect-timeout", "10", NULL);
    ck_assert_int_eq(client_finish(&c), 0);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(!r.out[0] && !r.err[0], "-q said: %s%s", r.out, r.err);
    check_has_zones(&t, t.out);
    split_free(&r);
    tmp_remove(&t);
}
END_TEST

/* --summary-json: replaces what was there with the whole object, leaves
 * no temporary file, says the same of a --recover of the capture's
 * spool, the client's program name escaped as JSON; it may not be the
 * output, and an unwritable place is refused before connecting (exit 5). */
START_TEST(summary_json_is_whole_and_also_written_by_recover)
{
    tmp_t t = tmp_make();
    char json[160], json2[160], spool[160], out2[160];
    snprintf(json, sizeof json, "%s/summary.json", t.dir);
    snprintf(json2, sizeof json2, "%s/recovered.json", t.dir);
    snprintf(spool, sizeof spool, "%s.spool", t.out);
    snprintf(out2, sizeof out2, "%s/recovered.tracy", t.dir);
    FILE *old = fopen(json, "w");
    fputs("{\"stale\": true, and not even JSON", old);
    fclose(old);
    /* a program name JSON must escape, not all of it UTF-8 */
    client_t c = client_start("--scenario", "normal", "--manifest", t.manifest, "--name", "caf\xc3\xa9 \"q\"\\ \xff",
                              NULL);
    split_run_t r = capture_split("-o", t.out, "-p", c.port, "--connect-timeout", "10", "--keep-spool",
                                  "--summary-json", json, NULL);
    ck_assert_int_eq(client_finish(&c), 0);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls %s | grep -q '\\.tmp\\.'", t.dir);
    ck_assert_msg(system(cmd) != 0, "a temporary file was left in %s", t.dir);
    /* the numbers of upstream's lines, as the console said them */
    const char *frames = strstr(r.out, "\nFrames: ");
    ck_assert_ptr_nonnull(frames);
    struct stat st;
    ck_assert_int_eq(stat(t.out, &st), 0);
    char code[1200];
    snprintf(code, sizeof code,
             "assert 'stale' not in d and d['status'] == 0 and d['saved'] is True, d\n"
             "assert d['path'] == arg and d['format'] == '0.14.0' and d['compression'] == 'zstd 2, 4 streams', d\n"
             "assert d['client'] == {'program': 'caf\\xe9 \"q\"\\\\ \\ufffd', 'release': '0.14.0', "
             "'protocol': 82}, d['client']\n"
             "assert '{:,}'.format(d['frames']) == '%.*s', d['frames']\n"
             "assert d['zones'] == 3966 and d['time_span_ns'] > 0 and d['elapsed_ns'] > 0, d\n"
             "assert d['trace_bytes'] == %lld and d['payload_bytes'] > d['trace_bytes'] > 0, d\n"
             "assert d['empty'] == ['sampling', 'context-switches', 'gpu', 'source-files'], d['empty']\n"
             "assert d['required'] == [] and d['missing'] == [], d\n"
             "assert set(d['families']) == {'zones', 'frames', 'messages', 'plots', 'locks', 'memory', "
             "'callstacks', 'sampling', 'context-switches', 'gpu', 'source-files', 'sections', 'parameters', "
             "'crash'}, d['families']\n"
             "assert d['families']['frames']['marked_frames'] > 0, d['families']['frames']\n",
             (int)strcspn(frames + 9, "\n"), frames + 9, (long long)st.st_size);
    const bool python = json_holds(json, code, t.out);
    split_free(&r);

    r = capture_split("-o", out2, "--recover", spool, "--summary-json", json2, "--require", "gpu", NULL);
    ck_assert_msg(r.rc == 9, "rc %d: %s", r.rc, r.err);
    if (python)
        json_holds(json2, "first = json.load(open(arg))\n"
                          "assert d['families'] == first['families'] and d['zones'] == first['zones'], d\n"
                          "assert d['status'] == 9 and d['missing'] == ['gpu'], d\n", json);
    split_free(&r);

    /* through a link to nowhere: the file it names is made, the link stays */
    char link[200], target[200];
    snprintf(link, sizeof link, "%s/link.json", t.dir);
    snprintf(target, sizeof target, "%s/target.json", t.dir);
    ck_assert_int_eq(symlink(target, link), 0);
    r = capture_split("-f", "-o", out2, "--recover", spool, "--summary-json", link, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    struct stat lst;
    ck_assert(lstat(link, &lst) == 0 && S_ISLNK(lst.st_mode));
    ck_assert(stat(target, &lst) == 0 && S_ISREG(lst.st_mode) && lst.st_size > 100);
    split_free(&r);

    /* what --strip leaves out is not in the file: missing, and said so */
    r = capture_split("-f", "-o", out2, "--recover", spool, "--strip", "M", "--require", "memory,locks",
                      "--summary-json", json2, NULL);
    ck_assert_msg(r.rc == 9, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(!strcmp(r.err, "tracy-capture: error: --require memory: the trace holds nothing of it: --strip "
                                 "left it out of the file (the capture received some)\n"), "%s", r.err);
    ck_assert_msg(strstr(r.out, "\nNot captured: sampling, context-switches, gpu, source-files\n"
                                "Left out by --strip: memory\n"), "%s", r.out);
    if (python)
        json_holds(json2, "assert d['stripped'] == ['memory'] and d['missing'] == ['memory'], d\n"
                          "assert 'memory' not in d['empty'] and d['families']['memory']['memory_events'] == 0, d\n",
                   NULL);
    split_free(&r);

    /* the output itself, or a place that cannot be written: before connecting */
    char port[16];
    free_port(port, sizeof port);
    r = capture_split("-f", "-o", t.out, "-p", port, "--summary-json", t.out, NULL);
    ck_assert_msg(r.rc == 1 && strstr(r.err, "--summary-json") && strstr(r.err, "is the output file"), "rc %d: %s",
                  r.rc, r.err);
    split_free(&r);
    char nowhere[200];
    snprintf(nowhere, sizeof nowhere, "%s/no/such/dir/summary.json", t.dir);
    const double t0 = now_s();
    r = capture_split("-f", "-o", t.out, "-p", port, "--connect-timeout", "5", "--summary-json", nowhere, NULL);
    ck_assert_msg(r.rc == 5 && strstr(r.err, "cannot write --summary-json"), "rc %d: %s", r.rc, r.err);
    ck_assert_msg(now_s() - t0 < 3, "it tried to connect first");
    split_free(&r);
    tmp_remove(&t);
}
END_TEST

/* The path of the C library this process runs with (a harmless library
 * to preload), from /proc/self/maps; "" if not found. */
static void libc_path(char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        const char *path = strchr(line, '/');
        if (!path || !(strstr(path, "/libc.so") || strstr(path, "/libc-"))) continue;
        snprintf(buf, len, "%.*s", (int)strcspn(path, "\n"), path);
        break;
    }
    if (f) fclose(f);
}

/* tracy-capture run with LD_PRELOAD set warns before it connects, and
 * says how to run it without; empty, it says nothing; -q: errors only. */
START_TEST(ld_preload_on_the_capture_is_warned_at_once)
{
    char lib[512], port[16];
    libc_path(lib, sizeof lib);
    ck_assert_msg(lib[0], "no C library in /proc/self/maps");
    free_port(port, sizeof port);
    tmp_t t = tmp_make();
    /* (a sanitizer runtime must come first: let it come second) */
    const char *asan = getenv("ASAN_OPTIONS");
    char asan_options[512];
    snprintf(asan_options, sizeof asan_options, "%s%sverify_asan_link_order=0", asan ? asan : "", asan ? ":" : "");
    setenv("ASAN_OPTIONS", asan_options, 1);
    setenv("LD_PRELOAD", lib, 1);
    split_run_t r = capture_split("-o", t.out, "-p", port, "--connect-timeout", "0.3", NULL);
    ck_assert_msg(r.rc == 6, "rc %d: %s", r.rc, r.err);
    char want[700];
    snprintf(want, sizeof want, "tracy-capture: warning: LD_PRELOAD is set (%s): an interposer meant for the "
             "profiled program also hooks tracy-capture itself, which can corrupt the capture; unset it for the "
             "capture: env -u LD_PRELOAD tracy-capture ...\n", lib);
    ck_assert_msg(strstr(r.err, want) == r.err, "not said first: %s", r.err);
    ck_assert_msg(strstr(r.out, "Connecting to") && strstr(r.err, "error:"), "%s%s", r.out, r.err);
    split_free(&r);

    r = capture_split("-q", "-o", t.out, "-p", port, "--connect-timeout", "0.3", NULL);
    ck_assert_msg(r.rc == 6 && !strstr(r.err, "LD_PRELOAD") && strstr(r.err, "error:"), "rc %d: %s", r.rc, r.err);
    split_free(&r);

    setenv("LD_PRELOAD", "", 1);
    r = capture_split("-o", t.out, "-p", port, "--connect-timeout", "0.3", NULL);
    ck_assert_msg(r.rc == 6 && !strstr(r.err, "LD_PRELOAD"), "rc %d: %s", r.rc, r.err);
    split_free(&r);
    unsetenv("LD_PRELOAD");
    tmp_remove(&t);
}
END_TEST

static Suite *e2e_suite(void)
{
    Suite *s = suite_create("end to end");
    TCase *tc = tcase_create("sessions");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, normal_session_is_saved_completely);
    tcase_add_test(tc, killed_capture_is_recovered_from_its_spool);
    tcase_add_test(tc, recovered_recording_equals_the_live_capture);
    tcase_add_test(tc, fast_client_pauses_reading_and_every_zone_arrives);
    tcase_add_test(tc, every_event_family_is_saved);
    tcase_add_test(tc, crashed_client_ends_by_itself_and_is_saved);
    tcase_add_test(tc, on_demand_client_with_deferred_items);
    tcase_add_test(tc, client_disconnecting_mid_frame_keeps_what_arrived);
    tcase_add_test(tc, connection_reset_keeps_what_arrived);
    tcase_add_loop_test(tc, version_search_finds_every_protocol, 0, NPROTOCOLS);
    tcase_add_test(tc, client_refusing_every_protocol_exits_1);
    tcase_add_test(tc, protocol_option_skips_the_search);
    tcase_add_loop_test(tc, event_type_outside_each_protocol_is_named, 0, NPROTOCOLS);
    tcase_add_test(tc, no_client_gives_up_at_the_connect_timeout);
    tcase_add_test(tc, not_available_and_dropped_handshakes);
    tcase_add_test(tc, oversized_frame_is_reported_and_data_saved);
    tcase_add_test(tc, undecodable_frame_is_reported_and_data_saved);
    tcase_add_test(tc, unknown_event_is_reported_and_data_saved);
    tcase_add_test(tc, unannounced_lock_is_dropped_and_the_rest_kept);
    tcase_add_test(tc, unknown_gpu_context_is_dropped_and_the_rest_kept);
    tcase_add_test(tc, fiber_leave_without_fiber_is_dropped_and_the_rest_kept);
    tcase_add_test(tc, time_going_backwards_is_repaired_and_the_rest_kept);
    tcase_add_test(tc, answers_never_asked_for_are_walked_over);
    tcase_add_test(tc, zones_beyond_the_source_location_limit_are_dropped);
    tcase_add_test(tc, absurd_payload_length_breaks_the_stream_and_data_is_saved);
    tcase_add_test(tc, absurd_string_length_breaks_the_stream_and_data_is_saved);
    tcase_add_test(tc, open_zones_at_the_end_do_not_hang);
    tcase_add_test(tc, missing_answers_end_the_wait_and_are_named);
    tcase_add_test(tc, sigint_stops_in_order_and_saves);
    tcase_add_test(tc, second_signal_stops_waiting_and_saves);
    tcase_add_test(tc, seconds_limit_stops_and_saves);
    tcase_add_test(tc, reset_after_a_stop_does_not_hang);
    tcase_add_test(tc, huge_time_limits_mean_none);
    tcase_add_test(tc, seconds_count_from_the_handshake);
    tcase_add_test(tc, output_checks_happen_before_connecting);
    tcase_add_test(tc, output_taken_during_the_capture_is_kept);
    tcase_add_test(tc, progress_and_colour_only_on_a_terminal);
    tcase_add_test(tc, contradictory_and_empty_options_are_refused);
    tcase_add_test(tc, peers_that_are_not_tracy_clients_are_named);
    tcase_add_test(tc, devices_fifos_and_links_as_output);
    tcase_add_test(tc, stalled_client_is_left_at_the_time_limit);
    tcase_add_test(tc, slow_spool_pauses_the_client_and_loses_nothing);
    tcase_add_test(tc, failing_spool_is_reported_at_once_and_the_capture_goes_on);
    tcase_add_test(tc, fifo_spool_whose_reader_left_is_given_up);
    tcase_add_test(tc, input_received_before_giving_up_is_all_saved);
    tcase_add_test(tc, sigterm_saves_a_stalled_capture);
    tcase_add_test(tc, sighup_saves_a_stalled_capture);
    tcase_add_test(tc, vanished_output_directory_keeps_the_spool);
    tcase_add_test(tc, full_disk_fails_cleanly_and_gives_the_spool_space_back);
    tcase_add_test(tc, spool_filling_the_disk_leaves_room_for_the_trace);
    tcase_add_test(tc, killed_while_saving_leaves_no_temporary_file);
    suite_add_tcase(s, tc);

    /* Hostile clients and environments: descriptor and memory limits,
     * absurd times, floods, files upstream's tools must open
     * (CK_RUN_CASE=hostile runs these alone). */
    TCase *hostile = tcase_create("hostile");
    tcase_set_timeout(hostile, 60);
    tcase_add_test(hostile, trickling_client_cannot_hold_the_end_wait);
    tcase_add_test(hostile, descriptor_limits_are_named_or_suffice);
    tcase_add_test(hostile, a_capture_that_never_began_leaves_nothing_in_the_way);
    tcase_add_test(hostile, a_spool_in_use_is_refused);
    tcase_add_test(hostile, a_spool_thread_that_cannot_start_is_given_up);
    tcase_add_test(hostile, memory_limits_save_or_keep_what_arrived);
    tcase_add_test(hostile, welcome_with_a_nan_timer_multiplier_takes_ticks_as_ns);
    tcase_add_test(hostile, welcome_with_an_infinite_timer_multiplier_takes_ticks_as_ns);
    tcase_add_test(hostile, welcome_with_a_huge_timer_multiplier_takes_ticks_as_ns);
    tcase_add_test(hostile, welcome_with_the_largest_resolution_keeps_it_in_48_bits);
    tcase_add_test(hostile, welcome_with_a_far_init_begin_keeps_times_in_48_bits);
    tcase_add_test(hostile, call_stack_payload_without_a_frame_is_dropped);
    tcase_add_test(hostile, allocated_call_stack_without_a_whole_frame_is_dropped);
    tcase_add_test(hostile, zones_nested_too_deep_are_dropped_and_those_above_kept);
    tcase_add_test(hostile, gpu_zones_nested_too_deep_are_dropped_and_those_above_kept);
    tcase_add_test(hostile, zone_text_flood_takes_memory_linear_in_the_text);
    tcase_add_test(hostile, hash_flood_of_crafted_addresses_stays_linear);
    tcase_add_test(hostile, call_stack_flood_of_colliding_contents_stays_linear);
    tcase_add_test(hostile, string_flood_of_colliding_contents_stays_linear);
    suite_add_tcase(s, hostile);

    /* For CI jobs: --require, the summary, --summary-json, LD_PRELOAD
     * (CK_RUN_CASE=ci runs these alone). */
    TCase *ci = tcase_create("ci");
    tcase_set_timeout(ci, 60);
    tcase_add_test(ci, require_names_what_the_capture_lacks_and_why);
    tcase_add_test(ci, require_is_met_by_a_capture_of_every_family);
    tcase_add_test(ci, require_hints_and_which_status_wins);
    tcase_add_test(ci, summary_lists_the_families_after_upstreams_lines);
    tcase_add_test(ci, summary_json_is_whole_and_also_written_by_recover);
    tcase_add_test(ci, ld_preload_on_the_capture_is_warned_at_once);
    suite_add_tcase(s, ci);
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s TRACY_CAPTURE TRACY_TEST_CLIENT TRACY_CSV\n", argv[0]);
        return 2;
    }
    prog.capture = argv[1];
    prog.client = argv[2];
    prog.reader = argv[3];
    signal(SIGPIPE, SIG_IGN);
    SRunner *sr = srunner_create(e2e_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
