/* validate: consistency checks on a loaded .tracy model — the assumptions
 * upstream's loader makes without checking (tracy-file-0.14.md §7) and the
 * writer checklist (§9): base frame set, zone-extra sentinel, srcloc ids
 * listed in §5.15, child vector counts, memory freed counts, default pool,
 * unique message/string ids, per-thread zone counts, index ranges, sort
 * orders.  All checks live in one table in validate.c. */
#ifndef TC_READER_VALIDATE_H
#define TC_READER_VALIDATE_H

#include <stdio.h>

#include "tfmodel.h"

/* Run every check; print each violation (up to max_reports of them) to
 * `report` as "section N (name): item: problem".  Returns the number of
 * violations, or -1 when out of memory. */
long validate_model(const tf_model *m, FILE *report, long max_reports);

#endif
