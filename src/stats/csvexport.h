/* csv: print exactly what tracy-csvexport v0.14.0 prints for a loaded
 * model (csvexport-and-fidelity.md §A): statistics (default), -e self
 * times, -u one row per zone, -g GPU zones, -m messages, -p plot rows,
 * --truncated_mean, -f/-c filtering and -s separators. */
#ifndef TC_CSVEXPORT_H
#define TC_CSVEXPORT_H

#include <stdio.h>

#include "tfmodel.h"

typedef struct csv_options {
    const char *filter;      /* "" keeps every source location */
    const char *sep;         /* NULL: upstream's failed-stream case, first field only */
    int case_sensitive;      /* -c */
    int self_time;           /* -e */
    int unwrap;              /* -u */
    int gpu;                 /* -g */
    int messages;            /* -m */
    int plot;                /* -p (only with -u; §5.22 plots only, see csv.c) */
    int truncated_mean;      /* 0 off, else the percentile 1..99 */
} csv_options;

/* Returns 0, or -1 when out of memory. */
int csv_write(const tf_model *m, const csv_options *o, FILE *out);

#endif
