/* fields: the --format-fields report of tracy-csv, the values of every
 * field that not every file version holds, as lines to compare: the
 * version and queue delay, the CPU topology (one line per logical CPU),
 * the sections, message sources and severities, thread group hints,
 * context-switch wake-up CPUs and GPU notes and query ids. A file of an
 * older version shows what the v0.14.0 loader makes of the fields it
 * lacks (tracy-file-older.md), so the report of a file written in two
 * formats differs by exactly what the older one cannot hold. */
#ifndef TC_READER_FIELDS_H
#define TC_READER_FIELDS_H

#include <stdio.h>

#include "tfmodel.h"

/* Returns 0, or -1 when out of memory. */
int fields_write(const tf_model *m, FILE *out);

#endif
