/* export: tracy-stats' work on one file, shared with tracy-capture --csv:
 * read it (streamed, keeping only what the options print) and print what
 * the file's release of tracy-csvexport prints for the options. */
#ifndef TC_EXPORT_H
#define TC_EXPORT_H

#include <stdio.h>

#include "statsargs.h"

/* Print what a asks of the .tracy file at path into out. Returns 0, or -1
 * with err saying what failed: "PATH: what (and where in the file)"; a
 * file that cannot be read puts nothing into out, for nothing is printed
 * before the whole file is read. Write errors on out are the caller's to
 * find (ferror). */
int stats_export(const char *path, stats_args *a, FILE *out, char *err, size_t errsz);

#endif
