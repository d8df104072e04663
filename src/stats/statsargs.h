/* statsargs: tracy-csvexport's options, as tracy-stats takes them on its
 * command line and tracy-capture in --csv-args: -f -s -c -e -u -g -m -p,
 * --truncated_mean[=N] (and -t[N], which upstream's usage names but its
 * parser lacks), and tracy-stats' own --release, -h, -V.  Parsed with
 * getopt_long like upstream's bundled getopt: options before the file,
 * grouping (-eu), -sX or -s X, long options by unique prefix, --filter and
 * --sep taking a value only after '='.  Which options a file's release
 * has is checked against the file (stats_args_check). */
#ifndef TC_STATSARGS_H
#define TC_STATSARGS_H

#include <stddef.h>

#include "csvexport.h"
#include "csvrelease.h"

typedef struct stats_args {
    csv_options csv;
    const csv_release *release;  /* --release; NULL: the file's own */
    const char *path;            /* the file (tracy-stats' operand) */
    int help, version;           /* -h, -V seen (parsing stopped there) */
    char **words;                /* stats_args_parse_text's words, owned */
} stats_args;

void stats_args_init(stats_args *a);
void stats_args_free(stats_args *a);

/* Parse argv[1..] (argv[0] names the program). With want_file, exactly
 * one operand, the file, must follow the options; else none may.
 * Uses getopt_long (its globals are reset first): call it when no other
 * parse is under way. Returns 0, or -1 with the reason in err. */
int stats_args_parse(stats_args *a, int argc, char **argv, int want_file, char *err, size_t errsz);

/* Parse options given as one text (--csv-args), split into words as a
 * shell splits them ('...', "...", \ quote; nothing is expanded); -h and
 * -V are not taken there. Returns 0, or -1 with the reason in err. */
int stats_args_parse_text(stats_args *a, const char *text, char *err, size_t errsz);

/* Settle whose output the options give for a file of version v (the
 * file's release, or --release if that reads the file) into a->csv.release,
 * and refuse the options that release's csvexport lacks (upstream: usage,
 * exit 1). Returns 0, or -1 with the reason in err. */
int stats_args_check(stats_args *a, const uint8_t v[3], char *err, size_t errsz);

#endif
