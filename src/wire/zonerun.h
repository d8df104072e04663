/* zonerun.h - the bulk of a zone-heavy stream: a run of plain
 * ZoneBegin/ZoneEnd events (all the protocol's forms) of the current thread,
 * decoded in one loop and kept through the model's fast path. Anything
 * unusual (a location not in the cache, an end without an open zone, a C
 * API zone id, another event type, a cut event, a time outside the range,
 * a zone too deep) ends the run, for the general handlers. */
#ifndef TC_ZONERUN_H
#define TC_ZONERUN_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Protocol 82's run (all compact forms). Returns the bytes consumed; *ref
 * is the thread time reference. */
size_t zone_run(model_t *m, const uint8_t *p, size_t n, int64_t *ref);

/* The run of protocols 64-76: only the 17-byte ZoneBegin and the 9-byte
 * ZoneEnd (type bytes `begin` and `end`), each a plain 64-bit delta. */
size_t zone_run_wide(model_t *m, const uint8_t *p, size_t n, int64_t *ref, uint8_t begin, uint8_t end);

#endif
