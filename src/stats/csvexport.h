/* csvexport: print exactly what tracy-csvexport prints for a .tracy file
 * (csvexport-and-fidelity.md §A), as the release of csv_options.release
 * prints it (csvrelease.h): statistics (default), -e self times, -u one
 * row per zone, -g GPU zones, -m messages, -p plot rows,
 * --truncated_mean, -f/-c filtering and -s separators.  csv_load reads
 * the file keeping only what the options print (the statistics are
 * gathered as the zones are read), csv_write prints. */
#ifndef TC_CSVEXPORT_H
#define TC_CSVEXPORT_H

#include <stdio.h>

#include "csvrelease.h"
#include "tfload.h"
#include "tfmodel.h"
#include "zonestats.h"

typedef struct csv_options {
    const char *filter;      /* "" keeps every source location */
    const char *sep;         /* NULL: upstream's failed-stream case, first field only */
    int case_sensitive;      /* -c */
    int self_time;           /* -e */
    int unwrap;              /* -u */
    int gpu;                 /* -g */
    int messages;            /* -m */
    int plot;                /* -p (only with -u; §5.22 plots only, see csvexport.c) */
    int truncated_mean;      /* 0 off, else the percentile 1..99 */
    const csv_release *release;  /* whose output; NULL: the newest. Its options only (see stats_args_check) */
} csv_options;

/* Load the file r into m (tf_model_init()ed) and s (not yet initialised;
 * stats_free it either way), keeping what o prints and, besides, the
 * LOAD_KEEP_* lists in `keep`.  Returns 0, or -1 with a message in err
 * (section and payload offset of what is malformed). */
int csv_load(tfread *r, tf_model *m, tf_stats *s, const csv_options *o, unsigned keep, char *err, size_t errsz);

/* Print what o asks of the loaded file (--truncated_mean sorts the
 * records' values).  Returns 0, or -1 when out of memory. */
int csv_write(const tf_model *m, tf_stats *s, const csv_options *o, FILE *out);

#endif
