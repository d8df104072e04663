/* progress.c - console output (see progress.h). */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "netdec.h"

/* The terminal's state: one per process, like the terminal itself. */
static struct {
    const char *program;        /* leads every diagnostic line */
    char label[320];            /* then this, if set (console_label) */
    bool out_color, err_color;
    bool quiet;                 /* errors only (-q): no warnings, no notes */
    bool line_shown;            /* a progress line waits to be erased */
    bool line_open;             /* "Connecting to ..." or "Saving trace..." waits for its end */
} console;

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"
#define C_CYAN "\033[36m"
#define ERASE_LINE "\033[2K"

void console_init(const char *program)
{
    console.program = program;
    const char *nc = getenv("NO_COLOR");
    const bool color_ok = !(nc && nc[0]);
    console.out_color = color_ok && isatty(STDOUT_FILENO);
    console.err_color = color_ok && isatty(STDERR_FILENO);
}

/* Make room on stdout for other output: erase a progress line, end the
 * open "Connecting to ..." line. */
static void erase_progress_line(void)
{
    if (console.line_shown) {
        printf("\r" ERASE_LINE);
        console.line_shown = false;
    }
    if (console.line_open) {
        putchar('\n');
        console.line_open = false;
    }
}

void console_quiet(bool quiet)
{
    console.quiet = quiet;
}

void console_label(const char *label)
{
    snprintf(console.label, sizeof console.label, "%s", label ? label : "");
}

static void diag(const char *color, const char *label, const char *fmt, va_list ap)
{
    erase_progress_line();
    fflush(stdout);
    const char *program = console.program ? console.program : "tracy-capture";
    if (console.err_color) fprintf(stderr, "%s%s%s: %s:%s ", C_BOLD, color, program, label, C_RESET);
    else fprintf(stderr, "%s: %s: ", program, label);
    if (console.label[0]) fprintf(stderr, "%s: ", console.label);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void diag_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag(C_RED, "error", fmt, ap);
    va_end(ap);
}

void diag_warn(const char *fmt, ...)
{
    if (console.quiet) return;
    va_list ap;
    va_start(ap, fmt);
    diag(C_YELLOW, "warning", fmt, ap);
    va_end(ap);
}

void diag_note(const char *fmt, ...)
{
    if (console.quiet) return;
    va_list ap;
    va_start(ap, fmt);
    diag(C_CYAN, "note", fmt, ap);
    va_end(ap);
}

/* ---- formatting ---------------------------------------------------------------- */

const char *fmt_time(char *buf, size_t len, int64_t ns)
{
    const char *sign = ns < 0 ? "-" : "";
    const uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns; /* INT64_MIN too */
    if (a < 1000) snprintf(buf, len, "%s%llu ns", sign, (unsigned long long)a);
    else if (a < 1000000ULL) snprintf(buf, len, "%s%.2f us", sign, a / 1e3);
    else if (a < 1000000000ULL) snprintf(buf, len, "%s%.2f ms", sign, a / 1e6);
    else if (a < 60000000000ULL) snprintf(buf, len, "%s%.2f s", sign, a / 1e9);
    else {
        uint64_t s = a / 1000000000ULL;
        if (s < 3600) snprintf(buf, len, "%s%llu:%05.2f", sign, (unsigned long long)(s / 60), (a % 60000000000ULL) / 1e9);
        else snprintf(buf, len, "%s%llu:%02llu:%02llu", sign, (unsigned long long)(s / 3600),
                      (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
    }
    return buf;
}

const char *fmt_size(char *buf, size_t len, uint64_t b)
{
    if (b < 10000) snprintf(buf, len, "%llu bytes", (unsigned long long)b);
    else if (b < 10000ULL * 1024) snprintf(buf, len, "%.2f KB", b / 1024.0);
    else if (b < 10000ULL * 1024 * 1024) snprintf(buf, len, "%.2f MB", b / (1024.0 * 1024));
    else snprintf(buf, len, "%.2f GB", b / (1024.0 * 1024 * 1024));
    return buf;
}

const char *fmt_count(char *buf, size_t len, uint64_t n)
{
    char tmp[32];
    int digits = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)n);
    size_t o = 0;
    for (int i = 0; i < digits && o + 2 < len; i++) {
        if (i && (digits - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = '\0';
    return buf;
}

/* ---- progress -------------------------------------------------------------------- */

const char *fmt_endpoint(char *buf, size_t len, const char *address, const char *port)
{
    snprintf(buf, len, strchr(address, ':') ? "[%s]:%s" : "%s:%s", address, port);
    return buf;
}

void progress_connecting(capture_t *c)
{
    char where[300];
    printf("Connecting to %s...", fmt_endpoint(where, sizeof where, c->opts->address, c->opts->port));
    fflush(stdout);
    console.line_open = true;
}

void progress_client(capture_t *c)
{
    const proto_desc_t *d = c->session.desc;
    erase_progress_line();
    printf("Client: %s, Tracy %s (protocol %u)\n", c->session.model.capture_program, d->release, d->version);
}

void progress_connected(capture_t *c)
{
    char t[32];
    progress_client(c);
    /* the releases whose welcome has it (64-74) print their queue delay */
    if (c->session.desc->layout & PL_WELCOME_DELAY)
        printf("Queue delay: %s\n", fmt_time(t, sizeof t, c->session.model.delay_ns));
    printf("Timer resolution: %s\n", fmt_time(t, sizeof t, c->session.model.resolution));
    fflush(stdout);
    c->rate_t = uv_hrtime();
    c->rate_bytes = c->rx_bytes;
}

void progress_handshake_wait(capture_t *c)
{
    (void)c;
    progress_clear(c);
    diag_note("connected, but the client has not answered the handshake yet; another capture may be "
              "connected to it (the client serves one at a time)");
}

void progress_stopping(capture_t *c)
{
    progress_clear(c);
    diag_note("%s: asking the client to end the session (press Ctrl-C again to stop waiting)", c->stop_reason);
}

void progress_clear(capture_t *c)
{
    (void)c;
    erase_progress_line();
    fflush(stdout);
}

void progress_update(capture_t *c)
{
    const uint64_t now = uv_hrtime();
    if (now - c->rate_t >= 200000000ULL) {
        c->rate_mbps = (double)(c->rx_bytes - c->rate_bytes) * 8.0 / ((double)(now - c->rate_t) / 1e9) / 1e6;
        c->rate_t = now;
        c->rate_bytes = c->rx_bytes;
    }
    const session_t *s = &c->session;
    if (c->dec) netdec_stats(c->dec, &c->frames, &c->compressed, &c->decompressed);
    const double ratio = c->decompressed ? (double)c->compressed / (double)c->decompressed : 1.0;
    char rx[32], mem[32], span[32], backlog[32];
    fmt_size(rx, sizeof rx, c->rx_bytes);
    fmt_size(mem, sizeof mem, process_rss());
    fmt_time(span, sizeof span, s->model.last_time);
    fmt_count(backlog, sizeof backlog, queryq_waiting(&s->queries));
    /* input received faster than it is decoded waits (in memory or the spool) */
    const uint64_t undecoded = c->dec ? netdec_backlog(c->dec) : 0;
    char waiting[48] = "";
    if (undecoded >= (1u << 20)) {
        char size[32];
        snprintf(waiting, sizeof waiting, " | %s to decode", fmt_size(size, sizeof size, undecoded));
    }
    const bool col = console.out_color;
    printf("\r%s%s%7.2f Mbps%s / %5.1f%% = %7.2f Mbps | Rx: %s | Mem: %s | %s | %s query backlog%s",
           ERASE_LINE, col ? C_CYAN C_BOLD : "", c->rate_mbps, col ? C_RESET : "", ratio * 100.0,
           ratio > 0 ? c->rate_mbps / ratio : 0.0, rx, mem, span, backlog, waiting);
    fflush(stdout);
    console.line_shown = true;
}

void progress_decoding(capture_t *c, const char *what, uint64_t left, uint64_t total)
{
    const uint64_t now = uv_hrtime();
    if (console.line_shown && now - c->decoding_shown_t < 200000000ULL) return;
    c->decoding_shown_t = now;
    const uint64_t decoded = total - (left < total ? left : total);
    char done[32], all[32], mem[32], span[32];
    fmt_size(done, sizeof done, decoded);
    fmt_size(all, sizeof all, total);
    fmt_size(mem, sizeof mem, process_rss());
    fmt_time(span, sizeof span, c->session.model.last_time);
    const bool col = console.out_color;
    printf("\r%sDecoding %s: %s%5.1f%%%s (%s of %s) | Mem: %s | %s", ERASE_LINE, what, col ? C_CYAN C_BOLD : "",
           total ? 100.0 * (double)decoded / (double)total : 100.0, col ? C_RESET : "", done, all, mem, span);
    fflush(stdout);
    console.line_shown = true;
}

/* ---- summary ------------------------------------------------------------------------ */

void summary_saving(capture_t *c)
{
    (void)c;
    printf("Saving trace...");
    fflush(stdout);
    console.line_open = true;   /* a diagnostic meanwhile goes below it */
}

void summary_saved(capture_t *c, const char *format, uint64_t file_bytes, uint64_t payload_bytes, double seconds)
{
    (void)c;
    char size[32], t[32];
    console.line_open = false;
    printf("%s done!%s\n", console.out_color ? C_GREEN C_BOLD : "", console.out_color ? C_RESET : "");
    printf("Trace size %s (%.2f%% ratio), saved in %s, format %s\n", fmt_size(size, sizeof size, file_bytes),
           payload_bytes ? 100.0 * (double)file_bytes / (double)payload_bytes : 0.0,
           fmt_time(t, sizeof t, (int64_t)(seconds * 1e9)), format);
    fflush(stdout);
}

void summary_save_failed(capture_t *c)
{
    (void)c;
    console.line_open = false;
    printf("%s failed!%s\n", console.out_color ? C_RED C_BOLD : "", console.out_color ? C_RESET : "");
    fflush(stdout);
}
