/* scenario_ext.h - the scenarios of tracy-test-client that go beyond the
 * CPU-zone workload: everything, crash and on-demand (scenario_ext.c). */
#ifndef TC_SCENARIO_EXT_H
#define TC_SCENARIO_EXT_H

#include "client.h"

/* WelcomeMessage values of everything / on-demand (others keep zeros). */
void scenario_ext_configure(struct tc_client *c);

void scenario_run_everything(struct tc_client *c);
void scenario_run_crash(struct tc_client *c);
void scenario_run_on_demand(struct tc_client *c);

#endif
