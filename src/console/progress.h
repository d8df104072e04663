/* progress.h - everything the user sees on the console: the connecting
 * line, the progress line (on a terminal only), diagnostics on stderr
 * (coloured on a terminal unless NO_COLOR is set) and the save's lines
 * of the summary (the rest: summary.c). */
#ifndef TC_PROGRESS_H
#define TC_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct capture;

/* Colour where the streams are terminals and NO_COLOR is unset; `program`
 * leads every diagnostic line. */
void console_init(const char *program);
/* Errors only (tracy-capture -q): warnings and notes are not said. */
void console_quiet(bool quiet);
/* A label said after the program's name in the diagnostics that follow
 * (the daemon's client, "[3] 127.0.0.1:8086"), or NULL for none. */
void console_label(const char *label);
void diag_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void progress_connecting(struct capture *c);
/* The client's program, release and protocol, once its welcome is in. */
void progress_client(struct capture *c);
void progress_connected(struct capture *c);
void progress_handshake_wait(struct capture *c);
void progress_stopping(struct capture *c);
void progress_update(struct capture *c);
/* Decoding `what` (the input a capture received, a recording) with
 * `left` of its `total` bytes to go: a line redrawn at most five times a
 * second. */
void progress_decoding(struct capture *c, const char *what, uint64_t left, uint64_t total);
/* End the progress line before other output. */
void progress_clear(struct capture *c);

void summary_saving(struct capture *c);
void summary_saved(struct capture *c, const char *format, uint64_t file_bytes, uint64_t payload_bytes, double seconds);
void summary_save_failed(struct capture *c);

/* Human-readable quantities into buf (returns buf). */
const char *fmt_time(char *buf, size_t len, int64_t ns);
const char *fmt_size(char *buf, size_t len, uint64_t bytes);
const char *fmt_count(char *buf, size_t len, uint64_t n);
/* ADDRESS:PORT, an IPv6 address in brackets. */
const char *fmt_endpoint(char *buf, size_t len, const char *address, const char *port);

#endif
