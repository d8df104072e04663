/* sidefile.h - a file written beside the trace (--csv) as the trace is:
 * checked before the capture (an existing one needs -f), written after the
 * save to a temporary file beside its name, then renamed into place, so
 * that its name never holds half a file; with -f a device or FIFO there
 * is written in place (--csv /dev/stdout). */
#ifndef TC_SIDEFILE_H
#define TC_SIDEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Check that path can be written (what names it in messages: "--csv").
 * Returns EXIT_OK, or the exit code with the reason said: 4 it exists
 * and no -f, 5 not writable there. */
int sidefile_check(const char *path, bool force, const char *what);

/* Whether path is this process's standard output. */
bool sidefile_is_stdout(const char *path);

/* Fill the file: 0, or -1 with the reason in err. */
typedef int (*sidefile_fill_fn)(FILE *fp, void *ctx, char *err, size_t errsz);

/* Write path with fill. *tmp_path names the temporary file while it
 * exists (for a signal handler to remove it). Returns 0, or -1 with the
 * reason in err: nothing is left under path then (a finished file whose
 * name was taken meanwhile, without -f, stays in the temporary file err
 * names). */
int sidefile_write(const char *path, bool force, char *volatile *tmp_path, sidefile_fill_fn fill, void *ctx,
                   char *err, size_t errsz);

#endif
