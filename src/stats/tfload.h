/* load: parse the whole .tracy payload, section by section in file order
 * (tracy-file-0.14.md §2.2, sections 1..36), into a tf_model, and insist
 * that exactly the whole payload is consumed. */
#ifndef TC_TFLOAD_H
#define TC_TFLOAD_H

#include <stddef.h>

#include "tfmodel.h"
#include "tfread.h"

/* Returns 0 on success; -1 with a message in err naming the section and
 * payload offset if the payload is malformed, truncated or has trailing
 * bytes (or memory ran out).  The model must have been model_init()ed; on
 * failure it holds whatever was read so far (free it with model_free). */
int load_model(tfread *r, tf_model *m, char *err, size_t errsz);

/* Name of section n (0 = payload header, 1..36 as in §2.2). */
const char *load_section_name(int section);

#endif
