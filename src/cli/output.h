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

/* Whether the trace goes to a file (existing or new) beside which the
 * default spool PATH.spool belongs: not a device, FIFO or terminal. */
bool output_takes_default_spool(const char *path);

/* Whether two paths name the same file, existing or to be made (through
 * their symbolic links). */
bool output_same_file(const char *a, const char *b);

/* The name a path leads to through its symbolic links (a link to nowhere
 * leads to the name it holds; a path that is no link, to itself), newly
 * allocated; NULL (errno ELOOP) after 40 links. */
char *output_link_target(const char *path);

#endif
