/* dconsole.c - tracy-capture-daemon's console (see dconsole.h). */
#include "dconsole.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "progress.h"
#include "protocols.h"

#define TABLE_MAX_ROWS 24

/* Erase the live table before a line goes above it. */
static void table_erase(daemon_t *d)
{
    if (d->table_lines > 0) printf("\033[%dA\r\033[J", d->table_lines);
    d->table_lines = 0;
}

/* An event line: above the table on a terminal; nothing with -q. */
static void event_line(daemon_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void event_line(daemon_t *d, const char *fmt, ...)
{
    if (d->opts->quiet) return;
    if (d->tty) table_erase(d);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static const char *endpoint(const client_t *cl, char *buf, size_t len)
{
    return fmt_endpoint(buf, len, cl->host, cl->port);
}

void dconsole_listening(daemon_t *d)
{
    const daemon_options_t *o = d->opts;
    if (!o->no_listen)
        event_line(d, "Listening for clients on UDP port %u; traces go to %s", d->listener.port, o->dir);
    else
        event_line(d, "Capturing %d client%s named with -a; traces go to %s", o->ntargets, o->ntargets == 1 ? "" : "s",
                   o->dir);
}

void dconsole_found(client_t *cl)
{
    char where[300];
    if (cl->announced)
        event_line(cl->d, "[%d] found %s at %s (Tracy %s, protocol %u) -> %s", cl->index, cl->program,
                   endpoint(cl, where, sizeof where), cl->opts.protocol->release, cl->opts.protocol->version, cl->path);
    else
        event_line(cl->d, "[%d] waiting for the client at %s", cl->index, endpoint(cl, where, sizeof where));
}

void dconsole_connected(client_t *cl)
{
    char where[300];
    const proto_desc_t *p = cl->cap.session.desc;
    event_line(cl->d, "[%d] connected to %s at %s (Tracy %s, protocol %u) -> %s", cl->index, cl->program,
               endpoint(cl, where, sizeof where), p->release, p->version, cl->path);
}

/* How a capture ended, in a few words. */
static const char *outcome_words(const capture_t *c)
{
    switch (c->outcome) {
    case OUT_COMPLETE: return "the client ended the session";
    case OUT_STOPPED: return c->stop_reason[0] ? c->stop_reason : "stopped";
    case OUT_GAVE_UP: return "stopped waiting for the client's answers";
    case OUT_CLIENT_GONE: return "the connection closed mid-session";
    case OUT_BROKEN: return "the stream broke";
    case OUT_ABORTED: return "saved at once (second signal)";
    case OUT_INTERRUPTED: return "never connected";
    case OUT_MISMATCH: return "protocol mismatch";
    case OUT_NOT_AVAILABLE: return "the client served another server";
    case OUT_DROPPED: return "dropped during the handshake";
    case OUT_CONNECT_TIMEOUT: return "no answer to the handshake";
    case OUT_RESOLVE_FAILED: return "the address does not resolve";
    case OUT_NOT_TRACY: return "no Tracy client";
    case OUT_CANNOT_RUN: return "could not run";
    case OUT_NONE: break;
    }
    return "ended";
}

void dconsole_ended(client_t *cl)
{
    char where[300], size[32];
    snprintf(cl->how, sizeof cl->how, "%s", outcome_words(&cl->cap));
    event_line(cl->d, "[%d] ended %s at %s: %s (%s received)", cl->index, cl->program[0] ? cl->program : "client",
               endpoint(cl, where, sizeof where), cl->how, fmt_size(size, sizeof size, cl->cap.rx_bytes));
}

void dconsole_withdrawn(client_t *cl)
{
    char where[300];
    event_line(cl->d, "[%d] %s at %s did not answer: %s", cl->index, cl->program, endpoint(cl, where, sizeof where),
               cl->how);
}

void dconsole_saved(client_t *cl)
{
    char size[32], zones[32];
    if (cl->state == CL_SAVED)
        event_line(cl->d, "[%d] saved %s (%s, %s zones, format %s)", cl->index, cl->save.saved_as,
                   fmt_size(size, sizeof size, cl->save.file_bytes), fmt_count(zones, sizeof zones, cl->zones),
                   cl->save.format->name);
}

void dconsole_filtered(daemon_t *d, const announce_t *a, const char *address)
{
    event_line(d, "passed over %s at %s:%u (filtered out)", a->program_name, address, a->listen_port);
}

void dconsole_unknown_protocol(daemon_t *d, const announce_t *a, const char *address)
{
    (void)d;
    char list[64];
    proto_list_text(list, sizeof list);
    diag_warn("passed over %s at %s:%u: it speaks protocol %u, which this tool does not (%s)", a->program_name,
              address, a->listen_port, a->protocol_version, list);
}

void dconsole_stopping(daemon_t *d, const char *why)
{
    int active = 0;
    for (size_t i = 0; i < d->clients.n; i++)
        if (d->clients.v[i]->state < CL_SAVED) active++;
    if (active == 0) {
        event_line(d, "%s: no capture is running; exiting", why);
        return;
    }
    event_line(d, "%s: ending %d capture%s%s", why, active, active == 1 ? "" : "s",
               d->signal_count == 1 ? " (press Ctrl-C again to save at once)" : "");
}

static const char *state_words(const client_t *cl)
{
    switch (cl->state) {
    case CL_CONNECTING: return "connecting";
    case CL_CAPTURING: return "capturing";
    case CL_SAVING: return "saving";
    case CL_SAVED: return "saved";
    case CL_FAILED: return "failed";
    }
    return "";
}

void dconsole_tick(daemon_t *d)
{
    for (size_t i = 0; i < d->clients.n; i++) {
        client_t *cl = d->clients.v[i];
        cl->mbps = (double)(cl->cap.rx_bytes - cl->shown_rx) * 8 / 1e6 / 0.1;
        cl->shown_rx = cl->cap.rx_bytes;
    }
    if (!d->tty || d->opts->quiet || d->closing) return;
    table_erase(d);
    int rows = 0, active = 0;
    double mbps = 0;
    uint64_t bytes = 0;
    for (size_t i = 0; i < d->clients.n; i++) {
        const client_t *cl = d->clients.v[i];
        if (cl->state >= CL_SAVED) continue;
        active++;
        mbps += cl->mbps;
        bytes += cl->cap.rx_bytes;
        if (rows == TABLE_MAX_ROWS) continue;
        char where[300], size[32], mem[32];
        printf("  [%d] %-24.24s %-22.22s %8.1f Mbps %12s %12s  %s\n", cl->index, cl->program[0] ? cl->program : "?",
               endpoint(cl, where, sizeof where), cl->mbps, fmt_size(size, sizeof size, cl->cap.rx_bytes),
               fmt_size(mem, sizeof mem, cl->cap.mem_now), state_words(cl));
        rows++;
    }
    char size[32];
    printf("%d active, %zu found: %.1f Mbps, %s received%s\n", active, d->clients.n, mbps,
           fmt_size(size, sizeof size, bytes), d->listening ? " (listening; Ctrl-C ends)" : "");
    d->table_lines = rows + 1;
    fflush(stdout);
}

void dconsole_summary(daemon_t *d)
{
    if (d->tty) table_erase(d);
    printf("\n=== Capture summary ===\n");
    uint64_t total = 0;
    int saved = 0;
    for (size_t i = 0; i < d->clients.n; i++) {
        const client_t *cl = d->clients.v[i];
        char where[300], size[32], zones[32];
        if (cl->withdrawn) continue;
        if (cl->state == CL_SAVED) {
            saved++;
            total += cl->save.file_bytes;
            printf("  [%d] %s @ %s -> %s (%s, %s zones): %s\n", cl->index, cl->program, endpoint(cl, where, sizeof where),
                   cl->save.saved_as, fmt_size(size, sizeof size, cl->save.file_bytes),
                   fmt_count(zones, sizeof zones, cl->zones), cl->how);
        } else {
            printf("  [%d] %s @ %s: not saved: %s (exit status %d)\n", cl->index, cl->program[0] ? cl->program : "client",
                   endpoint(cl, where, sizeof where), cl->how[0] ? cl->how : "saving failed", cl->rc);
        }
    }
    char size[32];
    size_t taken = 0;
    for (size_t i = 0; i < d->clients.n; i++) taken += !d->clients.v[i]->withdrawn;
    printf("Total: %d file%s, %s; %zu client%s not saved\n", saved, saved == 1 ? "" : "s",
           fmt_size(size, sizeof size, total), taken - (size_t)saved, taken - (size_t)saved == 1 ? "" : "s");
    fflush(stdout);
}
