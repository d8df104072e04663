/* main.c - tracy-capture: connect to a Tracy client, capture its session,
 * save it as a .tracy file.
 *
 * The story: read the command line, make sure the output can be written
 * (output.c),
 * connect and capture (conn.c feeds session.c, which decodes frames and
 * events into the model), say how it ended, save the model (writer.c),
 * print the summary; with --csv, write what tracy-csvexport prints of the
 * saved file (export.c, as tracy-stats does). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "cli.h"
#include "export.h"
#include "output.h"
#include "progress.h"
#include "recover.h"
#include "report.h"
#include "protocols.h"
#include "require.h"
#include "sidefile.h"
#include "spool.h"
#include "summary.h"
#include "writer.h"

/* The one capture context; the save-time signal handler needs to see it. */
static capture_t the_capture;
static char *volatile save_tmp_path;
static char save_abandoned_msg[4608];    /* what that handler says */

/* Start spooling the received bytes beside the output (or where --spool
 * says). An existing spool may be the only copy of a killed capture. */
static int open_spool(capture_t *c, const options_t *o, char **path)
{
    c->spool.fd = -1;
    /* the default goes beside where the trace goes, if that is a file
     * (not /dev/null.spool, /dev/stdout.spool...) */
    if (o->no_spool || o->recover || (!o->spool && !output_takes_default_spool(c->save_path))) return EXIT_OK;
    if (o->spool) *path = xstrdup(o->spool);
    else {
        size_t len = strlen(c->save_path) + sizeof ".spool";
        *path = xmalloc(len);
        snprintf(*path, len, "%s.spool", c->save_path);
    }
    /* before opening it (-f truncates): links may make it the output */
    if (output_same_file(*path, c->save_path)) {
        diag_error("the spool %s is the output file %s", *path, o->output);
        return EXIT_USAGE;
    }
    int err = spool_open(&c->spool, *path, o->force);
    if (err == EEXIST) {
        diag_error("spool %s exists, perhaps from a capture that was killed: rebuild it with "
                   "'tracy-capture --recover %s -o FILE', or use -f to overwrite it", *path, *path);
        return EXIT_OUTPUT_EXISTS;
    }
    if (err == EBUSY) {
        diag_error("spool %s is being written by another capture that is running; use --spool PATH for this "
                   "one", *path);
        return EXIT_OUTPUT_EXISTS;
    }
    if (is_shortage(err)) {
        char why[160];
        diag_error("cannot open the spool %s: %s", *path, strerror_limit(err, why, sizeof why));
        return EXIT_CANNOT_RUN;
    }
    if (err) {
        diag_error("cannot create spool %s: %s (use --spool PATH or --no-spool)", *path, strerror(err));
        return EXIT_OUTPUT_UNWRITABLE;
    }
    spool_direct(&c->spool);
    return EXIT_OK;
}

/* Remove the spool once the trace is safe, or keep it and say how to use it. */
static void close_spool(capture_t *c, bool saved)
{
    spool_t *s = &c->spool;
    if (s->fd < 0) return;
    /* only a regular file can be read back by --recover, and only one that
     * is still there (its directory may have been removed); a trace saved
     * at once (second signal, -m) lacks what was still waiting to be
     * decoded */
    struct stat st;
    const bool there = fstat(s->fd, &st) == 0 && st.st_nlink > 0;
    /* a capture that could not start decoding holds no session worth
     * recovering: its spool would only be in the next one's way */
    const bool began = c->session.welcomed && c->outcome != OUT_CANNOT_RUN;
    const bool whole = !s->err && !s->abandoned && s->regular && there && began;
    const bool dropped = whole && saved && c->input_dropped;
    const bool keep = (began && (!saved || c->opts->keep_spool) && !s->abandoned && s->regular) || dropped;
    if (s->err) {
        const char *fate = s->abandoned && s->regular ? "; it was given up and removed to free its space"
                           : keep                     ? "; it holds only those"
                                                      : "";
        diag_warn("the spool %s could not be written (%s) after %llu bytes%s%s", s->path, spool_strerror(s->err),
                  (unsigned long long)s->bytes, fate, saved && !c->input_dropped ? "; the trace itself is whole" : "");
    }
    if (keep && !saved && !s->err && there)
        diag_note("every byte received is kept in %s: 'tracy-capture --recover %s -o FILE' rebuilds the trace",
                  s->path, s->path);
    if (dropped)
        diag_note("the trace was saved without the input still waiting to be decoded; every byte received is "
                  "kept in %s: 'tracy-capture --recover %s -o FILE' rebuilds the whole trace", s->path, s->path);
    spool_close(s, keep);
}

static uint64_t physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

/* Instrumentation problems upstream would stop the capture for. */
static void report_failures(const model_t *m)
{
    if (m->failures)
        diag_warn("%llu event%s dropped or repaired as malformed instrumentation (first: %s)",
                  (unsigned long long)m->failures, m->failures == 1 ? "" : "s", m->first_failure);
}

/* A signal while saving: remove the temporary file, say so, and leave. */
static void on_signal_while_saving(int sig)
{
    (void)sig;
    char *tmp = save_tmp_path;
    if (tmp) unlink(tmp);
    if (write(STDERR_FILENO, save_abandoned_msg, strlen(save_abandoned_msg)) < 0) {}
    _exit(EXIT_ABORTED);
}

/* Whether the spool is on disk and holds every byte received, for
 * --recover. */
static bool spool_is_whole(const spool_t *s)
{
    struct stat st;
    return s->fd >= 0 && s->regular && !s->err && !s->abandoned && fstat(s->fd, &st) == 0 && st.st_nlink > 0;
}

/* An exit for want of memory (util.c): before the session began, nothing
 * was captured and nothing is left behind (exit 1, as for other shortages
 * at the start); during it, the spool stays, and the message says so. */
int on_fatal_exit(const char *message)
{
    capture_t *c = &the_capture;
    diag_error("%s", message);
    /* (on any thread: before the welcome only the main one runs; after it,
     * the spool is only looked at) */
    char *tmp = save_tmp_path;
    if (tmp) unlink(tmp);
    if (!c->session.welcomed) {
        spool_remove(&c->spool);
        diag_note("nothing was captured");
        return EXIT_CANNOT_RUN;
    }
    /* What is staged in memory is lost with the process: a spool whose
     * disk part ends before the first frame rebuilds nothing (memory ran
     * out in the session's first megabyte), and is not left behind. */
    const bool whole = spool_is_whole(&c->spool);
    if (whole && spool_on_disk(&c->spool) <= session_frames_offset(&c->session)) {
        spool_remove(&c->spool);
        diag_note("no frame had reached the spool's file yet: the capture ends without the spool");
        return EXIT_SAVE_FAILED;
    }
    if (whole)
        diag_note("the trace is not saved; rebuild it from the spool %s where more memory is free: "
                  "'tracy-capture --recover %s -o FILE'", c->spool.path, c->spool.path);
    return EXIT_SAVE_FAILED;
}

/* What the signal handler says: the spool, if any, is left on disk. */
static void prepare_abandon_message(const capture_t *c)
{
    const spool_t *s = &c->spool;
    const bool whole = spool_is_whole(s);
    if (whole)
        snprintf(save_abandoned_msg, sizeof save_abandoned_msg, "\ntracy-capture: interrupted while saving: the "
                 "trace is not saved; every byte received is kept in %s ('tracy-capture --recover %s -o FILE')\n",
                 c->spool.path, c->spool.path);
    else
        snprintf(save_abandoned_msg, sizeof save_abandoned_msg,
                 "\ntracy-capture: interrupted while saving: the trace is not saved\n");
}

/* --csv: what tracy-csvexport of the saved trace prints for --csv-args,
 * read back from the file (tracy-stats' export.c). */
typedef struct csv_job {
    const char *trace;
    stats_args args;
} csv_job;

static int on_csv_fill(FILE *fp, void *ctx, char *err, size_t errsz)
{
    csv_job *job = ctx;
    return stats_export(job->trace, &job->args, fp, err, errsz);
}

/* --csv, before connecting: a file of its own (not the trace, the
 * recording, the spool or the JSON summary) that can be written; if it is
 * this process's stdout, it gets the statistics alone (as -q). */
static int check_csv_output(options_t *o, const char *save_path)
{
    const char *taken[] = { save_path, o->recover, o->spool, o->summary_json };
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++)
        if (taken[i] && output_same_file(o->csv, taken[i])) {
            diag_error("--csv %s is also the trace, the recording, the spool or the --summary-json file", o->csv);
            return EXIT_USAGE;
        }
    const int rc = sidefile_check(o->csv, o->force, "--csv");
    if (rc == EXIT_OK && sidefile_is_stdout(o->csv)) o->quiet = true;
    return rc;
}

/* Write the --csv file of the trace saved at `trace`; the status stays
 * rc, or becomes 10 if the statistics could not be written (the trace
 * stays saved). */
static int save_csv(const options_t *o, const char *trace, int rc)
{
    if (!o->csv) return rc;
    csv_job job = { .trace = trace };
    char err[1536];
    stats_args_init(&job.args);
    int failed = o->csv_args && stats_args_parse_text(&job.args, o->csv_args, err, sizeof err) != 0;
    if (!failed) failed = sidefile_write(o->csv, o->force, &save_tmp_path, on_csv_fill, &job, err, sizeof err) != 0;
    stats_args_free(&job.args);
    if (!failed) return rc;
    diag_error("--csv %s not written: %s; the trace is saved as %s", o->csv, err, trace);
    return rc == EXIT_OK ? EXIT_CSV_FAILED : rc;
}

static int save_trace(capture_t *c, int rc, summary_t *sum)
{
    prepare_abandon_message(c);
    struct sigaction sa = { .sa_handler = on_signal_while_saving };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    summary_start(c, sum);
    if (!c->opts->quiet) summary_capture(c, sum);
    struct stat st;
    if (!c->opts->quiet && c->opts->force && stat(c->save_path, &st) == 0 && S_ISFIFO(st.st_mode))
        diag_note("waiting for a reader of the FIFO %s (a signal abandons the save)", c->save_path);
    if (!c->opts->quiet) summary_saving(c);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* by default the format of the client's own release, which its profiler opens */
    const file_format_t *format = c->opts->format ? c->opts->format : file_format_by_name(c->session.desc->file_format);
    save_opts_t so = { .format = format, .replace = c->opts->force, .tmp_path = &save_tmp_path };
    file_opts_apply(&c->opts->file, format, &so);
    char why[160];
    if (file_opts_check(&c->opts->file, format, why, sizeof why))   /* the client's release: 0.10 */
        diag_warn("%s: saved with one", why);
    model_finish(&c->session.model);
    summary_count(c, sum, so.strip);
    sum->format = format->name;
    const int placed = writer_save(&c->session.model, c->save_path, &so);
    if (placed < 0) {
        if (!c->opts->quiet) summary_save_failed(c);
        diag_error("saving %s: %s", c->opts->output, so.err);
        return EXIT_SAVE_FAILED;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    sum->saved = true;
    snprintf(sum->path, sizeof sum->path, "%s", so.saved_as);
    sum->file_bytes = so.file_bytes;
    sum->payload_bytes = so.payload_bytes;
    sum->save_seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    file_opts_describe(&so, sum->compression, sizeof sum->compression);
    /* the trace is safe: the spool goes (or stays, as close_spool says),
     * and a signal from here on says the trace is saved */
    close_spool(c, true);
    snprintf(save_abandoned_msg, sizeof save_abandoned_msg, "\ntracy-capture: interrupted; the trace is saved as %s\n",
             so.saved_as);
    if (!c->opts->quiet) {
        char saved_as[320];
        snprintf(saved_as, sizeof saved_as, "%s (%s)", format->name, sum->compression);
        summary_saved(c, saved_as, so.file_bytes, so.payload_bytes, sum->save_seconds);
    }
    if (so.one_stream && !format->legacy)   /* the 0.10 container has only one */
        diag_warn("memory ran out for %d compression streams at once; the trace was saved with one", so.streams);
    if (placed == 1) {
        /* exit 4, unless the capture already has a status of its own */
        diag_error("output file %s appeared during the capture and is kept (-f replaces it); "
                   "the trace is saved as %s", c->opts->output, so.saved_as);
        if (rc == EXIT_OK) rc = EXIT_OUTPUT_EXISTS;
    }
    rc = save_csv(c->opts, so.saved_as, rc);
    if (!c->opts->quiet) summary_families(sum);
    return rc;
}

/* After the save: the families --require names that the trace lacks (a
 * status of the capture's own wins over theirs), and the --summary-json
 * file with the final status. */
static int check_and_report(capture_t *c, summary_t *sum, int rc)
{
    if (sum->missing) {
        require_report(sum->missing, sum->stripped, &sum->counts, c->session.model.sampling_period);
        if (rc == EXIT_OK) rc = EXIT_REQUIRE_UNMET;
    }
    if (c->opts->summary_json && summary_json_write(c->opts->summary_json, c, sum, rc) != 0 && rc == EXIT_OK)
        rc = EXIT_SAVE_FAILED;
    return rc;
}

/* A descriptor 0-2 closed by the caller (>&-) would be taken by the spool
 * or the socket, and the summary written into it: hold them on /dev/null. */
static void hold_standard_descriptors(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF && open("/dev/null", O_RDWR) != fd) break;
}

int main(int argc, char **argv)
{
    hold_standard_descriptors();
    options_t opts;
    int rc = cli_parse(&opts, argc, argv);
    if (rc >= 0) return rc;
    /* A write to a client that vanished, or to a FIFO spool whose reader
     * left, is an error to handle (EPIPE), not a reason to die unsaved. */
    signal(SIGPIPE, SIG_IGN);
    /* Likewise a file size limit (ulimit -f) met by the spool or the
     * trace: EFBIG, reported, instead of a silent death. */
    signal(SIGXFSZ, SIG_IGN);
    console_init("tracy-capture");
    console_quiet(opts.quiet);
    require_warn_preload("tracy-capture");
    capture_t *c = &the_capture;
    rc = output_prepare(&opts, &c->save_path);
    if (rc == EXIT_OK) rc = summary_json_prepare(&opts, c->save_path);
    if (rc != EXIT_OK) return rc;
    if (opts.csv && (rc = check_csv_output(&opts, c->save_path)) != EXIT_OK) return rc;
    c->opts = &opts;
    c->tty = isatty(STDOUT_FILENO);
    if (opts.memlimit_percent) c->mem_limit_bytes = (int64_t)(physical_memory() / 100 * (uint64_t)opts.memlimit_percent);

    char *spool_path = NULL;
    rc = open_spool(c, &opts, &spool_path);
    if (rc != EXIT_OK) return rc;
    if (opts.recover) {
        if (recover_run(c, opts.recover) < 0) return EXIT_USAGE;
        if (!opts.quiet && c->session.welcomed) progress_client(c);
    } else {
        if (!opts.quiet) progress_connecting(c);
        conn_run(c);
    }
    rc = report_outcome(c);
    bool saved = false;
    if (c->session.welcomed && c->outcome != OUT_CANNOT_RUN) {
        report_failures(&c->session.model);
        summary_t sum;
        rc = save_trace(c, rc, &sum);
        saved = rc != EXIT_SAVE_FAILED;
        rc = check_and_report(c, &sum, rc);
    }
    close_spool(c, saved);
    free(spool_path);
    free(c->save_path);
    session_free(&c->session);
    return rc;
}
