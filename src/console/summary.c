/* summary.c - the end-of-capture summary and its JSON file (see summary.h). */
#include "summary.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "progress.h"
#include "require.h"
#include "strip.h"
#include "writer.h"

/* ---- the console ---------------------------------------------------------------- */

void summary_start(capture_t *c, summary_t *s)
{
    const model_t *m = &c->session.model;
    const uint64_t t_end = c->t_end ? c->t_end : uv_hrtime();
    const uint64_t t0 = c->t_connected ? c->t_connected : c->t_start;
    *s = (summary_t){ .required = c->opts->require };
    s->frames = m->nframesets ? m->framesets[0]->frames.n : 0;
    s->span_ns = m->last_time - (m->on_demand && m->nframesets && m->framesets[0]->frames.n > 2
                                     ? m->framesets[0]->frames.v[2].start : 0);
    s->zones = m->zone_count;
    s->elapsed_ns = (int64_t)(t_end - t0);
}

void summary_capture(capture_t *c, const summary_t *s)
{
    progress_clear(c);
    char frames[32], span[32], zones[32], elapsed[32];
    printf("Frames: %s\nTime span: %s\nZones: %s\nElapsed time: %s\n", fmt_count(frames, sizeof frames, s->frames),
           fmt_time(span, sizeof span, s->span_ns), fmt_count(zones, sizeof zones, s->zones),
           fmt_time(elapsed, sizeof elapsed, s->elapsed_ns));
    fflush(stdout);
}

/* What --strip leaves out is not in the file: its counts go to 0 (the
 * default pool stays). Returns the families it emptied. */
static family_set_t strip_counts(model_counts_t *k, unsigned strip)
{
    const model_counts_t before = *k;
    if (strip & STRIP_LOCKS) k->locks = k->lock_events = 0;
    if (strip & STRIP_MESSAGES) k->messages = 0;
    if (strip & STRIP_PLOTS) k->plots = k->system_plots = k->plot_points = 0;
    if (strip & STRIP_MEMORY) k->memory_events = 0, k->memory_pools = 1;
    if (strip & STRIP_FRAME_IMAGES) k->frame_images = 0;
    if (strip & STRIP_CONTEXT_SWITCHES) k->context_switches = k->cpu_context_switches = k->fiber_runs = 0;
    if (strip & STRIP_SAMPLES) k->samples = k->context_switch_samples = 0;
    if (strip & STRIP_SYMBOL_CODE) k->symbol_code = k->symbol_code_bytes = 0;
    if (strip & STRIP_SOURCE_CACHE) k->source_files = k->source_file_bytes = 0;
    family_set_t emptied = 0;
    for (int f = 0; f < FAM_COUNT; f++)
        if (family_present((family_t)f, &before) && !family_present((family_t)f, k)) emptied |= 1u << f;
    return emptied;
}

void summary_count(capture_t *c, summary_t *s, unsigned strip)
{
    model_count(&c->session.model, &s->counts);
    s->stripped = strip_counts(&s->counts, strip);
    s->missing = require_missing(s->required, &s->counts);
}

/* A family's counts as words: its main count always, the others when not
 * 0 (a count in parentheses holds those after it: a count of 0 drops them
 * too, which are then 0 as well). */
static void family_line(family_t f, const model_counts_t *k, char *buf, size_t len)
{
    family_count_t v[FAMILY_COUNTS_MAX];
    const int n = family_counts(f, k, v);
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && o < len; i++) {
        if (i && (!v[i].n || !v[i].many)) continue;
        char num[32];
        int w = snprintf(buf + o, len - o, "%s%s %s", i ? v[i].sep : "", fmt_count(num, sizeof num, v[i].n),
                         v[i].n == 1 ? v[i].one : v[i].many);
        if (w < 0) break;
        o += (size_t)w;
    }
}

/* The names of the requirable families of set, ", "-separated, into buf. */
static void family_list(family_set_t set, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int f = 0; f < FAM_REQUIRABLE && o < len; f++) {
        if (!(set & (1u << f))) continue;
        int w = snprintf(buf + o, len - o, "%s%s", o ? ", " : "", family_name((family_t)f));
        if (w < 0) break;
        o += (size_t)w;
    }
}

void summary_families(const summary_t *s)
{
    printf("Captured:\n");
    family_set_t empty = 0;
    for (int f = 0; f < FAM_COUNT; f++) {
        if (family_present((family_t)f, &s->counts)) {
            char line[512];
            family_line((family_t)f, &s->counts, line, sizeof line);
            printf("  %-17s %s\n", family_name((family_t)f), line);
        } else if (!(s->stripped & (1u << f))) {
            empty |= 1u << f;
        }
    }
    char list[256];
    family_list(empty, list, sizeof list);
    if (list[0]) printf("Not captured: %s\n", list);
    family_list(s->stripped, list, sizeof list);
    if (list[0]) printf("Left out by --strip: %s\n", list);
    fflush(stdout);
}

/* ---- the JSON file ---------------------------------------------------------------- */

/* Where the JSON goes: through symbolic links to a file, or to nowhere,
 * the name they lead to (the links stay); else (a device or FIFO behind a
 * link, a loop) the path itself. */
static char *json_target(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) return xstrdup(path);
    if (stat(path, &st) == 0 ? !S_ISREG(st.st_mode) : errno != ENOENT) return xstrdup(path);
    char *target = output_link_target(path);
    return target ? target : xstrdup(path);
}

/* A file beside target, created for writing (mode 0666 less the umask);
 * its name into tmp. -1 (errno) if none can be made. */
static int open_beside(const char *target, char *tmp, size_t len)
{
    for (unsigned i = 0; i < 100; i++) {
        snprintf(tmp, len, "%s.tmp.%ld.%u", target, (long)getpid(), i);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

/* The default spool's name beside the trace, or --spool's (NULL: none). */
static char *spool_name(const options_t *o, const char *save_path)
{
    if (o->no_spool || o->recover) return NULL;
    if (o->spool) return xstrdup(o->spool);
    const size_t len = strlen(save_path) + sizeof ".spool";
    char *p = xmalloc(len);
    snprintf(p, len, "%s.spool", save_path);
    return p;
}

/* The JSON file is none of the capture's other files. */
static int check_json_distinct(const options_t *o, const char *save_path)
{
    const char *json = o->summary_json;
    char *spool = spool_name(o, save_path);
    const char *clash = output_same_file(json, o->output) || output_same_file(json, save_path) ? "the output file"
                        : spool && output_same_file(json, spool)                             ? "the spool"
                        : o->recover && output_same_file(json, o->recover)                   ? "the recording"
                                                                                             : NULL;
    free(spool);
    if (!clash) return EXIT_OK;
    diag_error("--summary-json %s is %s", json, clash);
    return EXIT_USAGE;
}

int summary_json_prepare(options_t *o, const char *save_path)
{
    if (!o->summary_json) return EXIT_OK;
    int rc = check_json_distinct(o, save_path);
    if (rc != EXIT_OK) return rc;
    char *target = json_target(o->summary_json);
    struct stat st, so;
    rc = EXIT_OK;
    if (stat(target, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode))) {
        diag_error("--summary-json %s is a %s", o->summary_json, S_ISDIR(st.st_mode) ? "directory" : "socket");
        rc = EXIT_OUTPUT_UNWRITABLE;
    } else if (writer_writes_in_place(target)) {
        if (access(target, W_OK) != 0) {
            diag_error("cannot write --summary-json %s: %s", o->summary_json, strerror(errno));
            rc = EXIT_OUTPUT_UNWRITABLE;
        } else if (fstat(STDOUT_FILENO, &so) == 0 && so.st_dev == st.st_dev && so.st_ino == st.st_ino) {
            o->quiet = true;    /* the JSON alone on stdout */
        }
    } else {
        const size_t len = strlen(target) + 48;
        char *probe = xmalloc(len);
        int fd = open_beside(target, probe, len);
        if (fd < 0) {
            char *copy = xstrdup(target);
            diag_error("cannot write --summary-json %s: directory %s: %s", o->summary_json, dirname(copy),
                       strerror(errno));
            free(copy);
            rc = is_shortage(errno) ? EXIT_CANNOT_RUN : EXIT_OUTPUT_UNWRITABLE;
        } else {
            close(fd);
            unlink(probe);
        }
        free(probe);
    }
    free(target);
    return rc;
}

/* A JSON string: quotes, backslashes and control characters escaped, and
 * each byte that is not part of valid UTF-8 as U+FFFD. */
static void json_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    while (*p) {
        const unsigned char b = *p;
        if (b == '"' || b == '\\') fprintf(f, "\\%c", b), p++;
        else if (b < 0x20) fprintf(f, "\\u%04x", b), p++;
        else if (b < 0x80) fputc(b, f), p++;
        else {
            /* the length a lead byte announces, and its continuation bytes */
            const int n = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
            int ok = n > 0;
            for (int i = 1; ok && i < n; i++) ok = (p[i] & 0xC0) == 0x80;
            /* no overlong forms, surrogates or code points past U+10FFFF */
            if (ok && n == 3) ok = !(b == 0xE0 && p[1] < 0xA0) && !(b == 0xED && p[1] >= 0xA0);
            if (ok && n == 4) ok = !(b == 0xF0 && p[1] < 0x90) && !(b == 0xF4 && p[1] >= 0x90);
            if (ok) fwrite(p, 1, (size_t)n, f), p += n;
            else fputs("\\ufffd", f), p++;
        }
    }
    fputc('"', f);
}

/* A JSON array of the names of the families in set. */
static void json_families(FILE *f, family_set_t set)
{
    fputc('[', f);
    bool first = true;
    for (int i = 0; i < FAM_REQUIRABLE; i++) {
        if (!(set & (1u << i))) continue;
        fprintf(f, "%s\"%s\"", first ? "" : ", ", family_name((family_t)i));
        first = false;
    }
    fputc(']', f);
}

static void json_body(FILE *f, const capture_t *c, const summary_t *s, int status)
{
    const model_t *m = &c->session.model;
    fprintf(f, "{\n  \"status\": %d,\n  \"saved\": %s,\n  \"path\": ", status, s->saved ? "true" : "false");
    json_string(f, s->saved ? s->path : NULL);
    fputs(",\n  \"format\": ", f);
    json_string(f, s->format);
    fputs(",\n  \"compression\": ", f);
    json_string(f, s->saved ? s->compression : NULL);
    fputs(",\n  \"client\": {\"program\": ", f);
    json_string(f, m->capture_program);
    fputs(", \"release\": ", f);
    json_string(f, c->session.desc ? c->session.desc->release : NULL);
    fprintf(f, ", \"protocol\": %u},\n", c->session.desc ? (unsigned)c->session.desc->version : 0u);
    fprintf(f, "  \"frames\": %llu,\n  \"time_span_ns\": %lld,\n  \"zones\": %llu,\n  \"elapsed_ns\": %lld,\n",
            (unsigned long long)s->frames, (long long)s->span_ns, (unsigned long long)s->zones,
            (long long)s->elapsed_ns);
    fprintf(f, "  \"trace_bytes\": %llu,\n  \"payload_bytes\": %llu,\n  \"ratio_percent\": %.2f,\n"
            "  \"save_ns\": %lld,\n", (unsigned long long)s->file_bytes, (unsigned long long)s->payload_bytes,
            s->payload_bytes ? 100.0 * (double)s->file_bytes / (double)s->payload_bytes : 0.0,
            (long long)(s->save_seconds * 1e9));
    fputs("  \"families\": {\n", f);
    for (int i = 0; i < FAM_COUNT; i++) {
        family_count_t v[FAMILY_COUNTS_MAX];
        const int n = family_counts((family_t)i, &s->counts, v);
        fprintf(f, "    \"%s\": {", family_name((family_t)i));
        for (int k = 0; k < n; k++)
            fprintf(f, "%s\"%s\": %llu", k ? ", " : "", v[k].key, (unsigned long long)v[k].n);
        fprintf(f, "}%s\n", i + 1 < FAM_COUNT ? "," : "");
    }
    fputs("  },\n  \"empty\": ", f);
    family_set_t empty = 0;
    for (int i = 0; i < FAM_REQUIRABLE; i++)
        if (!family_present((family_t)i, &s->counts) && !(s->stripped & (1u << i))) empty |= 1u << i;
    json_families(f, empty);
    fputs(",\n  \"stripped\": ", f);
    json_families(f, s->stripped);
    fputs(",\n  \"required\": ", f);
    json_families(f, s->required);
    fputs(",\n  \"missing\": ", f);
    json_families(f, s->missing);
    fputs("\n}\n", f);
}

/* Write the whole object to fd (closed); 0, or -1 (errno). */
static int write_json_fd(int fd, const capture_t *c, const summary_t *s, int status, bool sync)
{
    FILE *f = fdopen(fd, "w");
    if (!f) {
        const int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    json_body(f, c, s, status);
    int bad = fflush(f) != 0 || ferror(f) || (sync && fsync(fd) != 0);
    const int err = errno;
    bad |= fclose(f) != 0;
    if (bad) errno = err ? err : EIO;
    return bad ? -1 : 0;
}

int summary_json_write(const char *path, const capture_t *c, const summary_t *s, int status)
{
    char *target = json_target(path);
    int rc = 0;
    if (writer_writes_in_place(target)) {
        const int fd = open(target, O_WRONLY | O_CLOEXEC);
        rc = fd < 0 ? -1 : write_json_fd(fd, c, s, status, false);
    } else {
        const size_t len = strlen(target) + 48;
        char *tmp = xmalloc(len);
        const int fd = open_beside(target, tmp, len);
        rc = fd < 0 ? -1 : write_json_fd(fd, c, s, status, true);
        if (rc == 0 && rename(tmp, target) != 0) rc = -1;
        if (rc != 0 && fd >= 0) {
            const int err = errno;
            unlink(tmp);
            errno = err;
        }
        free(tmp);
    }
    if (rc != 0) diag_error("cannot write --summary-json %s: %s", path, strerror(errno));
    free(target);
    return rc;
}
