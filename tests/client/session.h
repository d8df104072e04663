/* session.h - connection lifecycle of tracy-test-client: listening, the
 * handshake, serving one session, query servicing and the session end. */
#ifndef TC_SESSION_H
#define TC_SESSION_H

#include "client.h"

/* Bind and listen; prints "tracy-test-client: listening on A:PORT". */
bool session_listen(struct tc_client *c);

/* Accept connections until one session has been served (protocol
 * mismatches and bad handshakes are turned away and listening goes on).
 * Returns the process exit status. */
int session_serve(struct tc_client *c);

/* For scenarios: ------------------------------------------------------ */

/* True while the scenario should keep producing events. */
bool session_active(const struct tc_client *c);

/* Read queries that arrived and append their answers (never blocks). */
void session_pump(struct tc_client *c);

/* Answer pending queries, then send the pending frame. */
void session_flush(struct tc_client *c);

/* Wait about `ms` milliseconds, answering queries; sends KeepAlive after
 * 5 s without any frame, like a real client. */
void session_idle(struct tc_client *c, int ms);

/* Current wall-clock time in client ticks (ns since start + initBegin). */
int64_t session_ticks_now(const struct tc_client *c);

/* Normal end (§8.1): flush, Terminate frame, answer queries until the
 * server sends ServerQueryTerminate or closes. */
void session_finish(struct tc_client *c);

/* Failure injections. */
void session_send_partial_frame(struct tc_client *c);
void session_send_garbage(struct tc_client *c, enum tc_garbage_kind kind);
/* How to end the connection after an injection. */
enum tc_abort {
    TC_ABORT_HALF_CLOSE, /* shutdown(SHUT_WR), wait (bounded) for the server's close */
    TC_ABORT_RESET,      /* RST (SO_LINGER 0) once the sent data left the socket */
    TC_ABORT_WAIT_PEER,  /* wait (bounded) for the server to close, then close */
};
void session_abort(struct tc_client *c, enum tc_abort how);

#endif
