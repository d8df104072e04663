/* broadcast.h - the test client's UDP announcements (--announce PORT),
 * as a real client sends them (spec §1.2): a version-3 BroadcastMessage
 * to 127.255.255.255:PORT, never anywhere else, every
 * --announce-interval ms while no server is connected, and one with
 * activeTime -1 when a server connects or when the client gives up
 * waiting for one. */
#ifndef TC_BROADCAST_H
#define TC_BROADCAST_H

#include "client.h"

#define TC_ANNOUNCE_ADDRESS "127.255.255.255"
#define TC_ANNOUNCE_INTERVAL_MS 3000

/* Open the sending socket (once listening: the port announced is the one
 * bound). Nothing to do without --announce. False (said on stderr) when
 * the socket cannot be had. */
bool broadcast_open(struct tc_client *c);

/* Announce if one is due. */
void broadcast_tick(struct tc_client *c);

/* Milliseconds until the next one is due, at most max_ms. */
int broadcast_wait_ms(const struct tc_client *c, int max_ms);

/* A server connected, or the client leaves unconnected: activeTime -1,
 * and the next announcement (if any) is due at once, as upstream's is. */
void broadcast_busy(struct tc_client *c);

/* No more announcements (the session began; the client serves one). */
void broadcast_close(struct tc_client *c);

#endif
