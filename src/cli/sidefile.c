/* sidefile.c - a file beside the trace, checked early and written late
 * (see sidefile.h); the placing is the trace's (writer.c). */
#include "sidefile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "progress.h"
#include "util.h"
#include "writer.h"

/* Where the file goes: with -f, a symbolic link leads to the file it
 * names (the link stays, as for the trace); else the path itself. */
static char *destination(const char *path, bool force)
{
    struct stat st;
    if (!force || lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) return xstrdup(path);
    /* a device or FIFO behind the link is opened through it */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return xstrdup(path);
    char *target = output_link_target(path);
    return target ? target : xstrdup(path);
}

bool sidefile_is_stdout(const char *path)
{
    struct stat so, st;
    return fstat(STDOUT_FILENO, &so) == 0 && stat(path, &st) == 0 && so.st_dev == st.st_dev && so.st_ino == st.st_ino;
}

static int check_destination(const char *path, bool force, const char *what)
{
    struct stat st;
    if (stat(path, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode))) {
        diag_error("%s %s is a %s", what, path, S_ISDIR(st.st_mode) ? "directory" : "socket");
        return EXIT_OUTPUT_UNWRITABLE;
    }
    if (force && writer_writes_in_place(path)) {
        if (access(path, W_OK) == 0) return EXIT_OK;
        diag_error("cannot write %s file %s: %s", what, path, strerror(errno));
        return EXIT_OUTPUT_UNWRITABLE;
    }
    const size_t len = strlen(path) + 16;
    char *probe = xmalloc(len);
    snprintf(probe, len, "%s.tmp.XXXXXX", path);
    const int fd = mkstemp(probe);
    if (fd < 0) {
        char *copy = xstrdup(path);
        diag_error("cannot write %s file %s: directory %s: %s", what, path, dirname(copy), strerror(errno));
        free(copy);
        free(probe);
        return EXIT_OUTPUT_UNWRITABLE;
    }
    close(fd);
    unlink(probe);
    free(probe);
    return EXIT_OK;
}

int sidefile_check(const char *path, bool force, const char *what)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !force) {
        diag_error("%s file %s already exists; use -f to overwrite it", what, path);
        return EXIT_OUTPUT_EXISTS;
    }
    char *dest = destination(path, force);
    const int rc = check_destination(dest, force, what);
    free(dest);
    return rc;
}

/* fill into fp, flushed (and synced, for a file of our own); 0 or -1. */
static int fill_and_close(FILE *fp, bool regular, sidefile_fill_fn fill, void *ctx, const char *name, char *err,
                          size_t errsz)
{
    int rc = fill(fp, ctx, err, errsz);
    if (rc == 0 && (fflush(fp) != 0 || ferror(fp) || (regular && fsync(fileno(fp)) != 0))) {
        snprintf(err, errsz, "writing %s: %s", name, strerror(errno ? errno : EIO));
        rc = -1;
    }
    if (fclose(fp) != 0 && rc == 0) {
        snprintf(err, errsz, "closing %s: %s", name, strerror(errno));
        rc = -1;
    }
    return rc;
}

static int write_in_place(const char *path, sidefile_fill_fn fill, void *ctx, char *err, size_t errsz)
{
    const int fd = open(path, O_WRONLY | O_CLOEXEC);
    FILE *fp = fd < 0 ? NULL : fdopen(fd, "w");
    if (!fp) {
        snprintf(err, errsz, "cannot open %s: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    return fill_and_close(fp, false, fill, ctx, path, err, errsz);
}

static int write_destination(const char *path, bool force, char *volatile *tmp_path, sidefile_fill_fn fill,
                             void *ctx, char *err, size_t errsz)
{
    if (force && writer_writes_in_place(path)) return write_in_place(path, fill, ctx, err, errsz);
    const size_t len = strlen(path) + 16;
    char *tmp = xmalloc(len);
    snprintf(tmp, len, "%s.tmp.XXXXXX", path);
    const int fd = mkstemp(tmp);
    FILE *fp = fd < 0 ? NULL : fdopen(fd, "w");
    if (!fp) {
        snprintf(err, errsz, "cannot create a temporary file beside %s: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(tmp);
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    *tmp_path = tmp;
    int rc = fill_and_close(fp, true, fill, ctx, tmp, err, errsz);
    if (rc != 0) {
        unlink(tmp);
    } else if (force ? rename(tmp, path) != 0 : place_without_replacing(tmp, path) != 0) {
        if (errno == EEXIST)
            snprintf(err, errsz, "%s appeared during the capture and is kept (-f replaces it); the statistics "
                     "are left in %s", path, tmp);
        else
            snprintf(err, errsz, "cannot rename %s to %s: %s; the statistics are left in %s", tmp, path,
                     strerror(errno), tmp);
        rc = -1;
    }
    *tmp_path = NULL;
    free(tmp);
    return rc;
}

int sidefile_write(const char *path, bool force, char *volatile *tmp_path, sidefile_fill_fn fill, void *ctx,
                   char *err, size_t errsz)
{
    char *dest = destination(path, force);
    const int rc = write_destination(dest, force, tmp_path, fill, ctx, err, errsz);
    free(dest);
    return rc;
}
