/* scenario.h - what tracy-test-client sends during a session. */
#ifndef TC_SCENARIO_H
#define TC_SCENARIO_H

#include "client.h"

/* Parse a --scenario name; false if unknown. */
bool scenario_parse(const char *name, enum tc_scenario *out);

/* Comma-separated list of the scenario names (for --help). */
const char *scenario_names(void);

/* Set the scenario's WelcomeMessage values (flags, exectime, sampling
 * period, on-demand payload) before any connection. */
void scenario_configure(struct tc_client *c);

/* Run the selected scenario on the established session (after the
 * welcome), including its ending (Terminate, or an abrupt failure). */
void scenario_run(struct tc_client *c);

#endif
