/* require.h - what a capture must hold (--require) and what spoils it:
 * the families named on the command line, checked after the save, and
 * an interposer loaded into tracy-capture itself (LD_PRELOAD). */
#ifndef TC_REQUIRE_H
#define TC_REQUIRE_H

#include <stdbool.h>

#include "families.h"

/* Add the families of a comma-separated list ("memory,sampling") to *set.
 * Returns 0, or -1 after saying on stderr which name is unknown and which
 * are known (a list with no name is none). */
int require_parse(const char *list, family_set_t *set);

/* The families of `required` the capture holds nothing of. */
family_set_t require_missing(family_set_t required, const model_counts_t *k);

/* Say (as errors) what each family of `missing` lacks and its usual
 * causes (for those of `stripped`: --strip); sampling_period is the
 * client's. */
void require_report(family_set_t missing, family_set_t stripped, const model_counts_t *k, int64_t sampling_period);

/* Warn when this process runs with LD_PRELOAD set: the interposer meant
 * for the profiled program hooks the capture too. Returns whether it did. */
bool require_warn_preload(const char *program);

#endif
