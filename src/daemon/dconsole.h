/* dconsole.h - what tracy-capture-daemon prints on stdout: one line per
 * event (a client found, connected, ended, saved) and, on a terminal, a
 * live table of the clients under them (client, address, rate, bytes,
 * memory, state); at the end a summary, one line per client and the
 * totals. Diagnostics go to stderr (progress.h). */
#ifndef TC_DCONSOLE_H
#define TC_DCONSOLE_H

#include "daemon.h"

void dconsole_listening(daemon_t *d);
void dconsole_found(client_t *cl);
void dconsole_connected(client_t *cl);
void dconsole_ended(client_t *cl);
/* An announced client that turned out busy (see daemon.c withdrawn()). */
void dconsole_withdrawn(client_t *cl);
void dconsole_saved(client_t *cl);
void dconsole_filtered(daemon_t *d, const announce_t *a, const char *address);
void dconsole_unknown_protocol(daemon_t *d, const announce_t *a, const char *address);
void dconsole_stopping(daemon_t *d, const char *why);
/* Every 100 ms: the live table (on a terminal). */
void dconsole_tick(daemon_t *d);
void dconsole_summary(daemon_t *d);

#endif
