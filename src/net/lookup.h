/* lookup.h - an address lookup (getaddrinfo) on a thread of its own, its
 * answer delivered on the libuv loop. Not libuv's uv_getaddrinfo: its
 * thread pool ends the process when it cannot start a thread (ulimit -v),
 * and a lookup that hangs in a slow resolver holds the loop's end. Here a
 * thread that cannot start is an error returned, and a lookup given up is
 * left to finish alone. */
#ifndef TC_LOOKUP_H
#define TC_LOOKUP_H

#include <netdb.h>
#include <uv.h>

typedef struct lookup lookup_t;

/* The answer, on the loop: a getaddrinfo status (0, EAI_*), the errno
 * behind EAI_SYSTEM, and the addresses (the callee's, for freeaddrinfo). */
typedef void (*lookup_cb)(void *ctx, int status, int sys_errno, struct addrinfo *res);

/* Look host:port up for a TCP connection. Returns the lookup, or NULL
 * with *err an errno (its thread or handle cannot be had). */
lookup_t *lookup_start(uv_loop_t *loop, const char *host, const char *port, lookup_cb cb, void *ctx, int *err);

/* Give the lookup up: its callback never runs, and a thread still waiting
 * for the resolver frees it when done. Not after the callback ran. */
void lookup_abandon(lookup_t *l);

#endif
