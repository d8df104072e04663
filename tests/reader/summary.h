/* summary: the --summary report of tracy-csv, a short description of a
 * loaded .tracy model as "key: value" lines plus one line per frame set,
 * thread, lock, memory pool, GPU context, plot, app info line, section
 * category and cached source file (formats modelled on the fixtures'
 * inspect.txt so the two can be compared line by line). */
#ifndef TC_READER_SUMMARY_H
#define TC_READER_SUMMARY_H

#include <stdio.h>

#include "tfmodel.h"

void summary_write(const tf_model *m, FILE *out);

#endif
