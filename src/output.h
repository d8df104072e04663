/* output.h - where the trace goes, and the checks made on it before
 * connecting, so that a capture never runs only to find it cannot save. */
#ifndef TC_OUTPUT_H
#define TC_OUTPUT_H

#include <stdbool.h>

#include "cli.h"

/* Check the output named by the options (and, for an output that is
 * stdout, set o->quiet); *save_path gets where the trace will be written:
 * the output, or the file a symbolic link to a file names (-f). Returns
 * EXIT_OK or the exit code, the reason said on stderr. */
int output_prepare(options_t *o, char **save_path);

/* A character or block device at path, written in place (-f): no
 * default spool goes beside it. */
bool output_is_device(const options_t *o, const char *path);

/* Whether the file at path is the open file fd (a spool a link made the
 * output). */
bool output_is_open_file(const char *path, int fd);

#endif
