/* welcome.h - the client's WelcomeMessage and on-demand payload read off
 * the wire (protocol 82's layout, protocol-82.md section 2.3, or the
 * 1178-byte one of protocols 64-74 with the queue delay, protocol-older.md
 * section 2) into the model's plain values (welcome_t, on_demand_t), so
 * that the model sees no wire layout. */
#ifndef TC_WELCOME_H
#define TC_WELCOME_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "protocols.h"

/* Read a WelcomeMessage of desc->welcome_size bytes. */
void welcome_parse(const proto_desc_t *desc, const uint8_t *w, welcome_t *out);
/* Whether a WelcomeMessage says an on-demand payload follows it. */
bool welcome_on_demand(const proto_desc_t *desc, const uint8_t *w);
/* Read the on-demand payload of PROTO_ONDEMAND_SIZE bytes. */
void on_demand_parse(const uint8_t *p, on_demand_t *out);

#endif
