/* scenario_bad.h - the `malformed` scenario of tracy-test-client: a normal
 * session with one kind of bad input injected halfway (scenario_bad.c). */
#ifndef TC_SCENARIO_BAD_H
#define TC_SCENARIO_BAD_H

#include "client.h"

/* The welcome values of the bad inputs sent in the welcome. */
void scenario_bad_configure(struct tc_client *c);
void scenario_run_malformed(struct tc_client *c);

#endif
