/* output.c - where the trace goes, checked before connecting (see
 * output.h): an existing output needs -f; a directory, socket or
 * unwritable place is refused; a device or FIFO is written in place; a
 * link to a file leads to the file; the output may be neither the spool
 * nor the recording; and stdout named as output gets the trace alone. */
#include "output.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "progress.h"
#include "util.h"
#include "writer.h"

bool output_takes_default_spool(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? S_ISREG(st.st_mode) : errno == ENOENT;
}

/* The name a path leads to through its symbolic links (a link to nowhere
 * leads to the name it holds), or NULL (errno ELOOP) after 40 links. */
static char *final_name(const char *path)
{
    char *cur = xstrdup(path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        char link[4096];
        ssize_t n;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode) || (n = readlink(cur, link, sizeof link - 1)) < 0)
            return cur;
        link[n] = '\0';
        char *next;
        if (link[0] == '/') {
            next = xstrdup(link);
        } else {
            char *d = xstrdup(cur);
            const char *dir = dirname(d);
            const size_t len = strlen(dir) + 1 + (size_t)n + 1;
            next = xmalloc(len);
            snprintf(next, len, "%s/%s", dir, link);
            free(d);
        }
        free(cur);
        cur = next;
    }
    free(cur);
    errno = ELOOP;
    return NULL;
}

char *output_link_target(const char *path)
{
    return final_name(path);
}

/* Where the trace goes: the output, or with -f on a symbolic link to a
 * file, that file (the link stays). Decided once, before connecting, so
 * that the checks look where the save writes. NULL (said) if the link
 * cannot be followed. */
static char *resolve_output(const options_t *o)
{
    struct stat st;
    if (!o->force || lstat(o->output, &st) != 0 || !S_ISLNK(st.st_mode)) return xstrdup(o->output);
    const bool there = stat(o->output, &st) == 0;
    /* a device or FIFO behind the link is opened through it */
    if (there && !S_ISREG(st.st_mode)) return xstrdup(o->output);
    /* a file, or a link to nowhere: the trace gets the name it leads to */
    char *target = there || errno == ENOENT ? final_name(o->output) : NULL;
    if (!target) diag_error("cannot follow the symbolic link %s: %s", o->output, strerror(errno));
    return target;
}

/* Whether two paths name the same file, existing or to be created. */
bool output_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    /* one is still to be made: compare the names the links lead to */
    char *fa = final_name(a), *fb = final_name(b);
    if (!fa || !fb) {
        free(fa);
        free(fb);
        return false;
    }
    char *ca = xstrdup(fa), *cb = xstrdup(fb);
    const bool same = strcmp(basename(ca), basename(cb)) == 0 && stat(dirname(fa), &sa) == 0 &&
                      stat(dirname(fb), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    free(ca);
    free(cb);
    free(fa);
    free(fb);
    return same;
}

/* Files the options name twice: the trace would be renamed over its own
 * spool or recording. */
static int check_distinct(const options_t *o)
{
    if (o->recover && output_same_file(o->recover, o->output)) {
        diag_error("the output %s is the recording --recover reads", o->output);
        return EXIT_USAGE;
    }
    if (o->spool && !o->recover && output_same_file(o->spool, o->output)) {
        diag_error("--spool %s is the output file", o->spool);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* Refuse an existing output without -f, and prove we can create files
 * beside where the trace goes (a temporary file, then renamed). */
static int check_output(const options_t *o, const char *path)
{
    struct stat st;
    /* lstat: a dangling symbolic link is a name taken too */
    if (lstat(o->output, &st) == 0 && !o->force) {
        diag_error("output file %s already exists; use -f to overwrite it", o->output);
        return EXIT_OUTPUT_EXISTS;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        diag_error("output %s is a directory", o->output);
        return EXIT_OUTPUT_UNWRITABLE;
    }
    if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
        diag_error("output %s is a socket, which cannot be opened as a file", o->output);
        return EXIT_OUTPUT_UNWRITABLE;
    }
    if (o->force && writer_writes_in_place(path)) {
        /* a device or FIFO (-f): written in place at the end, as upstream does */
        if (access(path, W_OK) != 0) {
            diag_error("cannot write output file %s: %s", o->output, strerror(errno));
            return EXIT_OUTPUT_UNWRITABLE;
        }
        return EXIT_OK;
    }
    size_t len = strlen(path);
    char *probe = xmalloc(len + 16);
    snprintf(probe, len + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(probe);
    if (fd < 0 && is_shortage(errno)) {
        char why[160];
        diag_error("cannot open a temporary file beside %s: %s", o->output, strerror_limit(errno, why, sizeof why));
        free(probe);
        return EXIT_CANNOT_RUN;
    }
    if (fd < 0) {
        char *copy = xstrdup(path);
        diag_error("cannot write output file %s: directory %s: %s", o->output, dirname(copy), strerror(errno));
        free(copy);
        free(probe);
        return EXIT_OUTPUT_UNWRITABLE;
    }
    close(fd);
    unlink(probe);
    free(probe);
    return EXIT_OK;
}

/* An output that is this process's standard output (-o /dev/stdout, a
 * pipe or terminal named twice) gets the trace alone: the summary and
 * progress stay out of it, as with -q. */
static void keep_stdout_out_of_the_trace(options_t *o, const char *path)
{
    struct stat so, st;
    if (o->quiet || fstat(STDOUT_FILENO, &so) != 0 || stat(path, &st) != 0) return;
    if (so.st_dev == st.st_dev && so.st_ino == st.st_ino) o->quiet = true;
}

int output_prepare(options_t *o, char **save_path)
{
    int rc = check_distinct(o);
    if (rc != EXIT_OK) return rc;
    *save_path = resolve_output(o);
    if (!*save_path) return EXIT_OUTPUT_UNWRITABLE;
    rc = check_output(o, *save_path);
    if (rc != EXIT_OK) {
        free(*save_path);
        *save_path = NULL;
        return rc;
    }
    keep_stdout_out_of_the_trace(o, *save_path);
    return EXIT_OK;
}
