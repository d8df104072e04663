/* report.h - how a capture ended, said on stderr in the words of what
 * it means for the user, and the exit code that goes with it (the codes
 * of cli.h, documented in the man pages). Shared by tracy-capture and the
 * daemon, which says it for each client. */
#ifndef TC_REPORT_H
#define TC_REPORT_H

#include "capture.h"

/* Say how the capture ended (a recovery's recording in its own words);
 * returns the exit code so far (saving may still change it). */
int report_outcome(capture_t *c);

#endif
