/* report.c - how a capture ended, and its exit code (see report.h). */
#include "report.h"

#include <stdio.h>

#include "cli.h"
#include "progress.h"
#include "protocols.h"

/* A recording that ends early or holds no session, said in its own words.
 * Returns the exit code, or -1 for outcomes worded as for a live capture. */
static int report_recording_end(const capture_t *c)
{
    const char *path = c->opts->recover;
    switch (c->outcome) {
    case OUT_CLIENT_GONE:
        diag_warn("the recording %s ends before the client ended its session; saving what it holds", path);
        return EXIT_OK;
    case OUT_MISMATCH:
        diag_error("the recording %s holds no session: the client answered with a protocol "
                   "mismatch", path);
        return EXIT_USAGE;
    case OUT_NOT_AVAILABLE:
        diag_error("the recording %s holds no session: the client answered 'not available'", path);
        return EXIT_NOT_AVAILABLE;
    case OUT_DROPPED:
        diag_error("the recording %s holds no session: it ends during the handshake", path);
        return EXIT_DROPPED;
    case OUT_NOT_TRACY:
        diag_error("%s is not a recorded Tracy client stream: its first byte, 0x%02x, is no handshake status",
                   path, c->session.status);
        return EXIT_USAGE;
    default:
        return -1;
    }
}

/* Which bound of the end wait gave up on answers still missing. */
static void report_end_wait(const capture_t *c)
{
    const double limit = c->opts->end_timeout;
    const char *missing = c->gave_up_on[0] ? c->gave_up_on : "nothing";
    switch (c->end_wait) {
    case END_WAIT_NO_ANSWER:
        diag_warn("stopped waiting after %g s without an answer from the client; still missing: %s", limit, missing);
        break;
    case END_WAIT_AFTER_STOP:
        diag_warn("stopped waiting %g s after the stop request; still missing: %s", limit, missing);
        break;
    case END_WAIT_AFTER_TERMINATE:
        diag_warn("stopped waiting %g s after the client ended the session (%d times --end-timeout); still "
                  "missing: %s", limit * END_WAIT_TERMINATE_FACTOR, END_WAIT_TERMINATE_FACTOR, missing);
        break;
    }
}

/* Explain how the capture ended; returns the exit code so far. */
int report_outcome(capture_t *c)
{
    const options_t *o = c->opts;
    progress_clear(c);
    char where[300];
    fmt_endpoint(where, sizeof where, o->address, o->port);
    if (c->partial_frame)
        diag_warn("the input ended inside a frame: its last %zu bytes, an incomplete frame, are not in the trace",
                  c->partial_frame);
    if (o->recover) {
        const int rc = report_recording_end(c);
        if (rc >= 0) return rc;
    }
    switch (c->outcome) {
    case OUT_COMPLETE:
        return EXIT_OK;
    case OUT_STOPPED:
        if (!o->quiet) diag_note("capture stopped (%s)", c->stop_reason);
        return EXIT_OK;
    case OUT_GAVE_UP:
        if (!c->session.model.terminate)
            diag_warn("the client did not end the session within %g s of the request (%s); saving what arrived",
                      o->end_timeout, c->stop_reason);
        else
            report_end_wait(c);
        return EXIT_OK;
    case OUT_CLIENT_GONE:
        diag_warn("the client closed the connection before the session ended%s%s; saving what arrived",
                  c->stop_reason[0] ? ": " : "", c->stop_reason);
        return EXIT_OK;
    case OUT_BROKEN:
        diag_error("%s", c->session.err);
        diag_note("everything received before that point is saved");
        return EXIT_STREAM_BROKEN;
    case OUT_ABORTED:
        diag_warn("stopped waiting for the client (second signal); saving what arrived");
        return EXIT_ABORTED;
    case OUT_INTERRUPTED:
        diag_error("%s before the client sent any data; nothing to save", c->stop_reason);
        return EXIT_ABORTED;
    case OUT_MISMATCH: {
        char list[64];
        proto_list_text(list, sizeof list);
        if (o->protocol)
            diag_error("the client at %s does not speak protocol %u (Tracy %s), which --protocol asked for; "
                       "without --protocol the client's protocol is searched for among %s",
                       where, o->protocol->version, o->protocol->release, list);
        else
            diag_error("the client at %s refused every protocol this tool speaks (%s): it is older than "
                       "Tracy 0.10 or newer than this tool (Tracy %s); capture it with the tracy-capture of "
                       "the client's Tracy release", where, list, proto_all[0]->release);
        return EXIT_USAGE;
    }
    case OUT_NOT_AVAILABLE:
        diag_error("the client at %s already sent its data to another capture and cannot serve "
                   "a second one; restart the client, or build it with TRACY_ON_DEMAND", where);
        return EXIT_NOT_AVAILABLE;
    case OUT_DROPPED:
        diag_error("the client at %s closed the connection during the handshake; check that the "
                   "port belongs to a Tracy client and that nothing in between (adb forward, a proxy) "
                   "drops the connection%s", where,
                   o->connect_timeout < 0 ? " (with --connect-timeout, such connections are tried again)" : "");
        return EXIT_DROPPED;
    case OUT_NOT_TRACY:
        diag_error("the program at %s answered 0x%02x, which is no Tracy handshake status: no Tracy client "
                   "listens there", where, c->session.status);
        return EXIT_USAGE;
    case OUT_CONNECT_TIMEOUT:
        if (c->handshake_unanswered)
            diag_error("connected to %s, but no answer to the handshake came within %g s: another capture may be "
                       "connected to the client (it serves one at a time)", where, o->connect_timeout);
        else if (c->connect_attempts == 0 && c->connect_error[0])
            diag_error("the name lookup of %s kept failing for %g s: %s", o->address, o->connect_timeout,
                       c->connect_error);
        else if (c->connect_attempts == 0)
            diag_error("the name lookup of %s did not finish within %g s", o->address, o->connect_timeout);
        else if (c->silent_drops)
            diag_error("no Tracy client answered at %s within %g s: %u connection%s accepted and closed without "
                       "an answer (an adb forward with no program behind it?)", where, o->connect_timeout,
                       c->silent_drops, c->silent_drops == 1 ? " was" : "s were");
        else
            diag_error("no Tracy client answered at %s within %g s (%u attempts%s%s)", where, o->connect_timeout,
                       c->connect_attempts, c->connect_error[0] ? ", last: " : "", c->connect_error);
        return EXIT_CONNECT_TIMEOUT;
    case OUT_RESOLVE_FAILED:
        diag_error("cannot resolve address %s: %s", o->address, c->connect_error);
        return EXIT_USAGE;
    case OUT_CANNOT_RUN:
        diag_error("%s; nothing was captured", c->start_error);
        return EXIT_CANNOT_RUN;
    case OUT_NONE:
        break;
    }
    return EXIT_OK;
}

