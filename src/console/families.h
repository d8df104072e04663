/* families.h - what a capture holds, family by family (zones, frames,
 * memory, sampling...): whether each has anything, its counts with their
 * names for people and for machines, and why a family may be empty. The
 * summary (summary.c) and --require (require.c) read the model's counts
 * through it. */
#ifndef TC_FAMILIES_H
#define TC_FAMILIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* The families --require names (in its order), then those the summary
 * shows only when they hold something. */
typedef enum {
    FAM_ZONES,
    FAM_FRAMES,
    FAM_MESSAGES,
    FAM_PLOTS,
    FAM_LOCKS,
    FAM_MEMORY,
    FAM_CALLSTACKS,
    FAM_SAMPLING,
    FAM_CONTEXT_SWITCHES,
    FAM_GPU,
    FAM_SOURCE_FILES,
    FAM_REQUIRABLE,                 /* how many --require knows */
    FAM_SECTIONS = FAM_REQUIRABLE,
    FAM_PARAMETERS,
    FAM_CRASH,
    FAM_COUNT
} family_t;

/* A set of families, bit (1 << family) each. */
typedef uint32_t family_set_t;

/* One count of a family: its JSON key; on the console, what goes before
 * the number (after the count before it: ", ", " in ", " (") and the words
 * after it, for one and for more (NULL: in the JSON only); the number. */
typedef struct {
    const char *key, *sep, *one, *many;
    uint64_t n;
} family_count_t;

#define FAMILY_COUNTS_MAX 6

/* Its name, as --require and the summary say it ("context-switches"). */
const char *family_name(family_t f);
/* The requirable family named by the first len bytes of name; -1 if none. */
int family_by_name(const char *name, size_t len);
/* "zones, frames, ..., source-files": the names --require takes. */
void family_names_text(char *buf, size_t len);

/* Whether the capture holds anything of the family. */
bool family_present(family_t f, const model_counts_t *k);
/* Its counts into out (FAMILY_COUNTS_MAX at most); returns how many. The
 * first is the family's main one. */
int family_counts(family_t f, const model_counts_t *k, family_count_t *out);

/* Why the capture may hold nothing of a requirable family, into buf
 * (returns buf): what is missing and its usual causes. sampling_period is
 * the client's (its welcome's; 0: its system tracing did not start). */
const char *family_missing_text(family_t f, const model_counts_t *k, int64_t sampling_period, char *buf,
                                size_t len);

#endif
