/* recover.h - build a capture from a recorded client stream instead of a
 * socket: every byte a client sent (the handshake answer, the welcome, the
 * LZ4 frames), as the fixtures' client-to-server.bin holds it. The bytes
 * go through the same session (session_feed) as a live capture's; queries
 * have nobody to go to, and the answers are those the recording holds. */
#ifndef TC_RECOVER_H
#define TC_RECOVER_H

#include "capture.h"

/* Feed the file at `path` into c->session and set c->outcome. Returns 0,
 * or -1 when the file cannot be read (the reason is printed). */
int recover_run(capture_t *c, const char *path);

#endif
