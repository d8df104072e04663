/* cli.h - the command line: options, their defaults, help and version. */
#ifndef TC_CLI_H
#define TC_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "fileopts.h"
#include "format.h"

/* Exit codes (documented in man/tracy-capture.1). 0-5 are upstream's. */
enum exit_code {
    EXIT_OK = 0,
    EXIT_USAGE = 1,            /* usage error, or protocol mismatch */
    EXIT_CANNOT_RUN = 1,       /* a descriptor, thread or memory needed to start cannot be had (ulimit) */
    EXIT_NOT_AVAILABLE = 2,    /* client already served another server */
    EXIT_DROPPED = 3,          /* client dropped the connection during the handshake */
    EXIT_OUTPUT_EXISTS = 4,    /* output exists and no -f */
    EXIT_OUTPUT_UNWRITABLE = 5,
    EXIT_CONNECT_TIMEOUT = 6,  /* no client answered within --connect-timeout */
    EXIT_SAVE_FAILED = 7,
    EXIT_STREAM_BROKEN = 8,    /* corrupt or undecodable data; what came before is saved */
    EXIT_REQUIRE_UNMET = 9,    /* saved, but a family --require names is missing (a status above wins) */
    EXIT_CSV_FAILED = 10,      /* the trace is saved, its --csv statistics could not be written */
    EXIT_ABORTED = 130,        /* second signal */
};

typedef struct {
    const char *output;
    const char *address;
    const char *port;            /* kept as text for getaddrinfo */
    char port_buf[8];            /* -p's number in its normal form */
    bool force;
    double seconds;              /* stop after this long; < 0 = no limit */
    int memlimit_percent;        /* 0 = no limit */
    double connect_timeout;      /* < 0 = retry forever (upstream's behaviour) */
    double end_timeout;          /* give up waiting for answers after this long without data */
    bool quiet;
    const char *recover;         /* build the trace from this recorded client stream */
    const char *spool;           /* where to spool received bytes (NULL: OUTPUT.spool) */
    bool no_spool, keep_spool;
    const struct proto_desc *protocol;   /* --protocol: offer only this one (NULL: the version search) */
    const file_format_t *format; /* --format; NULL: the default */
    file_opts_t file;            /* -z, -j, --lz4*, --strip */
    uint32_t require;            /* --require: families the capture must hold (families.h, a family_set_t) */
    const char *summary_json;    /* --summary-json: write the summary's numbers here (NULL: nowhere) */
    const char *csv;             /* --csv: tracy-csvexport's output of the saved trace goes there */
    const char *csv_args;        /* --csv-args: csvexport's options for it (checked by cli_parse) */
} options_t;

/* A non-negative number of seconds, fractions allowed, into *out (at most
 * 1e9: forever); -1 if arg is none. */
int cli_seconds(const char *arg, double *out);
/* A port number 1..65535, digits only, into its normal form in buf; -1 if
 * arg is none. */
int cli_port(const char *arg, char *buf, size_t len);

/* Parse argv into opts. Returns -1 to go on, or an exit code (help and
 * version print to stdout and return 0; errors print to stderr). */
int cli_parse(options_t *opts, int argc, char **argv);

#endif
