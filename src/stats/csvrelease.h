/* csvrelease: the releases of tracy-csvexport whose output tracy-stats
 * reproduces, what each one's options and output hold, and the release a
 * .tracy file belongs to (the oldest that reads it: each release refuses
 * files stamped by a later one).
 *
 * Between 0.10 and 0.14.0 csvexport changed its options and its -u rows
 * only (the statistics its loader builds are the same): 5479a42 (stamp
 * 0.11.2) added -g, -p and the -u value column, left empty; 0.12.0 filled
 * that column with the zone's text; 0.13.1 added --truncated_mean. */
#ifndef TC_CSVRELEASE_H
#define TC_CSVRELEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct csv_release {
    const char *name;        /* "0.11.1", "5479a42" */
    uint8_t stamp[3];        /* the file version it writes; it reads none newer */
    bool gpu;                /* -g, -p and the -u value column */
    bool zone_text;          /* the value column holds each zone's text (else it is empty) */
    bool truncated_mean;     /* --truncated_mean */
} csv_release;

/* The release a file of version v belongs to: the oldest that reads it;
 * NULL if none does (newer than 0.14.0). */
const csv_release *csv_release_of_file(const uint8_t v[3]);

/* A release by name: "0.12.2", "v0.12.2", "0.10" or "0.10.0", "5479a42"
 * (or the commit's longer prefixes); NULL if none. */
const csv_release *csv_release_by_name(const char *name);

/* The newest release (0.14.0). */
const csv_release *csv_release_newest(void);

/* Whether release a reads the files release b does (a is b or newer). */
bool csv_release_reads(const csv_release *a, const csv_release *b);

/* "0.10, 0.11.0, ...": the names, for messages. */
void csv_release_list_text(char *out, size_t len);

#endif
