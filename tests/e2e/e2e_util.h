/* e2e_util.h - what the end-to-end test programs (e2e.c, e2e_daemon.c)
 * share: starting and waiting for processes, the test client, reading
 * files and our reader's output, and checking a saved trace against the
 * manifest of what the client sent. The checks use Check's assertions, so
 * they are called from inside a test. */
#ifndef TC_E2E_UTIL_H
#define TC_E2E_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

/* ---- processes ----------------------------------------------------------------------- */

typedef struct {
    pid_t pid;
    int err;        /* read end of the child's stderr */
} proc_t;

/* Resource limits for a child: up to LIMITS_MAX setrlimit() calls. */
#define LIMITS_MAX 3
typedef struct {
    int n;
    struct { int resource; rlim_t value; } v[LIMITS_MAX];
} limits_t;

/* Start argv[0] with stdin and stdout on /dev/null and stderr on a pipe
 * (stdout too if stdout_too), under the limits (NULL: none). */
proc_t spawn_with(char *const argv[], const limits_t *lim, bool stdout_too);

/* fsize_limit > 0: the files it writes cannot grow past that many bytes. */
proc_t spawn_opts(char *const argv[], rlim_t fsize_limit, bool stdout_too);
proc_t spawn(char *const argv[]);

/* Start argv[0] with stdin on /dev/null, stdout on one pipe (*out gets its
 * read end) and stderr on another (the proc_t's), no other descriptor of
 * ours; it is killed should the test die first. */
proc_t spawn_split(char *const argv[], int *out);

double now_s(void);

/* Wait for exit; returns the exit code, 128+signal, or -1 after killing it
 * on timeout. *maxrss_kb (if given) gets the child's peak resident size. */
int wait_exit_rss(pid_t pid, double timeout, long *maxrss_kb);
int wait_exit(pid_t pid, double timeout);

/* Everything left on a pipe (non-blocking after the writer exited); closes
 * it. */
char *drain(int fd);

/* ---- the test client ----------------------------------------------------------------- */

typedef struct {
    proc_t p;
    char port[16];
} client_t;

/* Start the test client (argv[0]) and wait for its "listening on
 * ADDRESS:PORT" line. */
client_t client_spawn(char *const argv[]);

/* Wait for it to exit (30 s); its exit code. */
int client_finish(client_t *c);

/* ---- reading results ----------------------------------------------------------------- */

/* The whole file, NUL-terminated (NULL if it cannot be opened). */
char *read_file(const char *path);

/* Run the reader (tracy-csv) on a file, with a mode option or none, into
 * out_path; returns its exit code. */
int reader_exec(const char *reader, const char *mode, const char *file, const char *out_path);

/* "key: value" from the reader's --summary, as a number (-1 if absent). */
long long summary_value(const char *summary, const char *key);

/* First number after "key " on a manifest line (-1 if absent). */
long long manifest_value(const char *manifest, const char *key);

bool file_exists(const char *path);

/* A scratch directory and the usual files in it. */
typedef struct {
    char dir[64];
    char out[128], manifest[128], csv[128], summary[128];
} tmp_t;

tmp_t tmp_make(void);
void tmp_remove(const tmp_t *t);

/* A TCP port on 127.0.0.1 that nothing listens on (just now). */
void free_port(char *out, size_t n);

/* ---- checks against the client's manifest -------------------------------------------- */

/* Every "zone COUNT TOTAL FILE LINE NAME" line of the manifest must appear
 * in the reader's default CSV as NAME,FILE,LINE,TOTAL,...,COUNT,... */
void check_zones_match_manifest(const char *manifest, const char *csv);

/* The manifest's counts of every feature against the reader's summary of
 * the saved file. Returns how many pairs were compared. */
int check_counts_match_manifest(const char *man, const char *sum);

/* Every "gpu_zone START DURATION NAME" line must be a row of the reader's
 * -g output: NAME,FILE,START,DURATION. */
void check_gpu_rows_match_manifest(const char *man, const char *gpu_csv);

#endif
