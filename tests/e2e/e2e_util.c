/* e2e_util.c - the end-to-end tests' shared helpers (see e2e_util.h):
 * processes, the test client, files and the reader, manifest checks. */
#include "e2e_util.h"

#include <check.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- processes -------------------------------------------------------------------- */

/* Apply them in the child. RLIMIT_FSIZE leaves SIGXFSZ at its default
 * (the tool must ignore it itself); RLIMIT_NOFILE first closes every
 * descriptor above 2, so that the limit is what the child alone needs. */
static void apply_limits(const limits_t *lim)
{
    for (int i = 0; lim && i < lim->n; i++) {
        const struct rlimit l = { lim->v[i].value, lim->v[i].value };
        if (lim->v[i].resource == RLIMIT_FSIZE) signal(SIGXFSZ, SIG_DFL);
        if (lim->v[i].resource == RLIMIT_NOFILE)
            for (int fd = 3; fd < 1024; fd++) close(fd);
        setrlimit(lim->v[i].resource, &l);
    }
}

/* Start argv[0] with stdin and stdout on /dev/null and stderr on a pipe
 * (stdout too if stdout_too), under the limits (NULL: none). */
proc_t spawn_with(char *const argv[], const limits_t *lim, bool stdout_too)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    proc_t r = { .pid = fork(), .err = p[0] };
    ck_assert_int_ge(r.pid, 0);
    if (r.pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, STDIN_FILENO);
        dup2(stdout_too ? p[1] : null, STDOUT_FILENO);
        dup2(p[1], STDERR_FILENO);
        close(p[0]);
        if (p[1] > STDERR_FILENO) close(p[1]);
        if (null > STDERR_FILENO) close(null);
        apply_limits(lim);
        execv(argv[0], argv);
        _exit(127);
    }
    close(p[1]);
    return r;
}

proc_t spawn_split(char *const argv[], int *out)
{
    int e[2], o[2];
    ck_assert_int_eq(pipe(e), 0);
    ck_assert_int_eq(pipe(o), 0);
    proc_t r = { .pid = fork(), .err = e[0] };
    ck_assert_int_ge(r.pid, 0);
    if (r.pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, STDIN_FILENO);
        dup2(o[1], STDOUT_FILENO);
        dup2(e[1], STDERR_FILENO);
        for (int fd = 3; fd < 1024; fd++) close(fd);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        execv(argv[0], argv);
        _exit(127);
    }
    close(e[1]);
    close(o[1]);
    *out = o[0];
    return r;
}

/* fsize_limit > 0: the files it writes cannot grow past that many bytes
 * (a full disk, as far as it can tell: writes fail with EFBIG, once it
 * ignores the SIGXFSZ that would kill it). */
proc_t spawn_opts(char *const argv[], rlim_t fsize_limit, bool stdout_too)
{
    const limits_t lim = { .n = fsize_limit > 0, .v = { { RLIMIT_FSIZE, fsize_limit } } };
    return spawn_with(argv, &lim, stdout_too);
}

proc_t spawn(char *const argv[]) { return spawn_opts(argv, 0, false); }

double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Wait for exit; returns the exit code, 128+signal, or -1 after killing it
 * on timeout. *maxrss_kb (if given) gets the child's peak resident size. */
int wait_exit_rss(pid_t pid, double timeout, long *maxrss_kb)
{
    const double end = now_s() + timeout;
    for (;;) {
        int st;
        struct rusage ru;
        pid_t r = wait4(pid, &st, WNOHANG, &ru);
        if (r == pid && maxrss_kb) *maxrss_kb = ru.ru_maxrss;
        if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (now_s() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        usleep(10000);
    }
}

int wait_exit(pid_t pid, double timeout)
{
    return wait_exit_rss(pid, timeout, NULL);
}

/* Everything left on a pipe (non-blocking after the writer exited). */
char *drain(int fd)
{
    size_t n = 0, cap = 4096;
    char *buf = malloc(cap);
    for (;;) {
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        if (poll(&pf, 1, 2000) <= 0) break;
        if (n + 1024 > cap) buf = realloc(buf, cap *= 2);
        ssize_t k = read(fd, buf + n, cap - n - 1);
        if (k <= 0) break;
        n += (size_t)k;
    }
    buf[n] = '\0';
    close(fd);
    return buf;
}

/* ---- the test client ----------------------------------------------------------------- */

client_t client_spawn(char *const argv[])
{
    client_t c = { .p = spawn(argv) };
    char line[256];
    size_t len = 0;
    const double end = now_s() + 10;
    while (now_s() < end && len < sizeof line - 1) {
        struct pollfd pf = { .fd = c.p.err, .events = POLLIN };
        if (poll(&pf, 1, 100) <= 0) continue;
        if (read(c.p.err, line + len, 1) != 1) break;
        if (line[len] == '\n') {
            line[len] = '\0';
            const char *colon = strrchr(line, ':');
            if (strstr(line, "listening on") && colon) {
                snprintf(c.port, sizeof c.port, "%s", colon + 1);
                return c;
            }
            len = 0;
            continue;
        }
        len++;
    }
    ck_abort_msg("the test client did not start listening");
    return c;
}

int client_finish(client_t *c)
{
    int rc = wait_exit(c->p.pid, 30);
    free(drain(c->p.err));
    return rc;
}

char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    s[fread(s, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return s;
}

int reader_exec(const char *reader, const char *mode, const char *file, const char *out_path)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, STDOUT_FILENO);
        if (mode) execl(reader, reader, mode, file, (char *)NULL);
        else execl(reader, reader, file, (char *)NULL);
        _exit(127);
    }
    return wait_exit(pid, 60);
}

/* "key: value" from the reader's --summary, as a number (-1 if absent). */
long long summary_value(const char *summary, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\n%s: ", key);
    const char *p = strstr(summary, pat);
    return p ? atoll(p + strlen(pat)) : -1;
}

/* First number after "key " on a manifest line (-1 if absent). */
long long manifest_value(const char *manifest, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\n%s ", key);
    const char *p = strstr(manifest, pat);
    return p ? atoll(p + strlen(pat)) : -1;
}

tmp_t tmp_make(void)
{
    tmp_t t;
    snprintf(t.dir, sizeof t.dir, "/tmp/tc-e2e-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(t.dir));
    snprintf(t.out, sizeof t.out, "%s/out.tracy", t.dir);
    snprintf(t.manifest, sizeof t.manifest, "%s/manifest.txt", t.dir);
    snprintf(t.csv, sizeof t.csv, "%s/out.csv", t.dir);
    snprintf(t.summary, sizeof t.summary, "%s/summary.txt", t.dir);
    return t;
}

void tmp_remove(const tmp_t *t)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", t->dir);
    if (system(cmd) != 0) {}
}

bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Every "zone COUNT TOTAL FILE LINE NAME" line of the manifest must appear
 * in the reader's default CSV as NAME,FILE,LINE,TOTAL,...,COUNT,... */
void check_zones_match_manifest(const char *manifest, const char *csv)
{
    int checked = 0;
    for (const char *p = strstr(manifest, "\nzone "); p; p = strstr(p + 1, "\nzone ")) {
        long long count, total;
        int line, off = 0;
        char file[256];
        if (sscanf(p + 6, "%lld %lld %255s %d %n", &count, &total, file, &line, &off) != 4) continue;
        const char *name = p + 6 + off;
        size_t nlen = strcspn(name, "\n");
        char row[512];
        snprintf(row, sizeof row, "\n%.*s,%s,%d,%lld,", (int)nlen, name, file, line, total);
        const char *r = strstr(csv, row);
        ck_assert_msg(r, "zone row not found: %s", row + 1);
        /* counts is the 6th column */
        const char *c = r + 1;
        for (int k = 0; k < 5; k++) c = strchr(c, ',') + 1;
        ck_assert_int_eq(atoll(c), count);
        checked++;
    }
    ck_assert_int_gt(checked, 5);
}

/* The manifest's counts of every feature against the reader's summary of
 * the saved file. Returns how many pairs were compared. */
int check_counts_match_manifest(const char *man, const char *sum)
{
    static const struct { const char *manifest, *summary; } pairs[] = {
        { "threads", "threads" },           { "messages", "messages" },
        { "plots", "plots" },               { "locks", "locks" },
        { "callstacks", "callstacks" },     { "gpu_contexts", "gpuContexts" },
        { "gpu_zones", "gpuZones" },        { "samples", "samples" },
        { "context_switches", "contextSwitches" }, { "cpu_slices", "ctxSwitchPerCpu" },
        { "hw_samples", "hwSamples" },      { "frame_images", "frameImages" },
        { "symbols_answered", "symbols" },  { "symbol_code_answered", "symbolCode" },
        { "source_files_answered", "sourceFiles" }, { "last_event_ns", "lastTime" },
    };
    int n = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        long long want = manifest_value(man, pairs[i].manifest);
        if (want < 0) continue;
        ck_assert_msg(summary_value(sum, pairs[i].summary) == want, "%s: the client sent %lld, the file has %lld",
                      pairs[i].manifest, want, summary_value(sum, pairs[i].summary));
        n++;
    }
    /* zones, including those never ended */
    long long zones = manifest_value(man, "zones") + (manifest_value(man, "zones_open") > 0 ? manifest_value(man, "zones_open") : 0);
    ck_assert_int_eq(summary_value(sum, "zones"), zones);
    /* byte counts ride on the same manifest lines */
    const char *p = strstr(man, "\nsymbol_code_answered ");
    if (p) {
        long long count, bytes;
        if (sscanf(p + 22, "%lld %lld", &count, &bytes) == 2)
            ck_assert_int_eq(summary_value(sum, "symbolCodeBytes"), bytes);
    }
    p = strstr(man, "\nsource_files_answered ");
    if (p) {
        long long count, bytes;
        if (sscanf(p + 23, "%lld %lld", &count, &bytes) == 2)
            ck_assert_int_eq(summary_value(sum, "sourceFileBytes"), bytes);
    }
    return n;
}

/* Every "gpu_zone START DURATION NAME" line must be a row of the reader's
 * -g output: NAME,FILE,START,DURATION. */
void check_gpu_rows_match_manifest(const char *man, const char *gpu_csv)
{
    int n = 0;
    for (const char *p = strstr(man, "\ngpu_zone "); p; p = strstr(p + 1, "\ngpu_zone ")) {
        long long start, dur;
        int off = 0;
        if (sscanf(p + 10, "%lld %lld %n", &start, &dur, &off) != 2) continue;
        const char *name = p + 10 + off;
        size_t nlen = strcspn(name, "\n");
        char head[256], tail[64];
        snprintf(head, sizeof head, "\n%.*s,", (int)nlen, name);
        snprintf(tail, sizeof tail, ",%lld,%lld\n", start, dur);
        bool found = false;
        for (const char *r = strstr(gpu_csv, head); r && !found; r = strstr(r + 1, head)) {
            const char *eol = strchr(r + 1, '\n');
            const char *t = strstr(r, tail);
            found = t && eol && t + 1 < eol + 1 && t < eol;
        }
        ck_assert_msg(found, "GPU zone %.*s at %lld (%lld ns) not in the file", (int)nlen, name, start, dur);
        n++;
    }
    ck_assert_int_eq(n, manifest_value(man, "gpu_zones"));
}

/* A TCP port on 127.0.0.1 that nothing listens on (just now). */
void free_port(char *out, size_t n)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(getsockname(s, (struct sockaddr *)&a, &len), 0);
    snprintf(out, n, "%u", ntohs(a.sin_port));
    close(s);
}

