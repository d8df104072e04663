/* dcli.h - the command line of tracy-capture-daemon: upstream's options
 * (-o DIR, -p PORT, -m PERCENT, --filter-name, --filter-port) and ours
 * (explicit targets, CI exits, the file format), --help and --version. */
#ifndef TC_DCLI_H
#define TC_DCLI_H

#include <stdbool.h>
#include <stdint.h>

#include "fileopts.h"
#include "format.h"

/* A client named on the command line (-a HOST:PORT). */
typedef struct {
    char host[256];
    char port[8];
} target_t;

#define DAEMON_MAX_TARGETS 256

typedef struct {
    const char *dir;             /* -o: where the traces go */
    uint16_t listen_port;        /* -p: the UDP port announcements come to */
    int memlimit_percent;        /* -m: per client; 0 = none */
    const char *filter_name;     /* a substring of the program name, or NULL */
    uint16_t filter_port;        /* the client's data port, or 0 */
    target_t targets[DAEMON_MAX_TARGETS];
    int ntargets;
    bool no_listen;              /* targets only */
    int max_clients;             /* stop taking clients after this many; 0 = no limit */
    double idle_exit;            /* exit after this long with nothing running or new; < 0 = never */
    double end_timeout;          /* as tracy-capture's */
    const file_format_t *format; /* NULL: each client's release */
    file_opts_t file;            /* -z, -j, --lz4*, --strip: as tracy-capture's */
    int threads;                 /* decoding and saving threads; 0 = one per core */
    bool quiet;
} daemon_options_t;

/* Parse argv. Returns -1 to go on, or an exit code (help and version
 * print to stdout and return 0; errors print to stderr and return 1). */
int dcli_parse(daemon_options_t *o, int argc, char **argv);

#endif
