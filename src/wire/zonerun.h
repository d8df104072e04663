/* zonerun.h - the bulk of a zone-heavy stream: a run of plain
 * ZoneBegin/ZoneEnd events (all compact forms) of the current thread,
 * decoded in one loop and kept through the model's fast path. Anything
 * unusual (a location not in the cache, an end without an open zone, a C
 * API zone id, another event type, a cut event, a time outside the range,
 * a zone too deep) ends the run, for the general handlers. */
#ifndef TC_ZONERUN_H
#define TC_ZONERUN_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Returns the bytes consumed; *ref is the thread time reference. */
size_t zone_run(model_t *m, const uint8_t *p, size_t n, int64_t *ref);

#endif
