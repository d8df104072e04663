/* queries.h - answering the server's query packets (spec §4.2). */
#ifndef TC_QUERIES_H
#define TC_QUERIES_H

#include "client.h"

/* Append the answer events for one query to the pending frame. Returns
 * false for ServerQueryDisconnect, which the caller must act on. */
bool queries_answer(struct tc_client *c, const struct tc_query *q);

/* Release the DataTransfer state (end of the program). */
void queries_free(struct tc_client *c);

/* Human-readable name of a ServerQuery value. */
const char *queries_name(uint8_t type);

#endif
