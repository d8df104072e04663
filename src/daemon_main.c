/* daemon_main.c - tracy-capture-daemon: capture every Tracy client that
 * announces itself, and every one named with -a, each into its own trace.
 *
 * The story: read the command line (dcli.c), then run the daemon
 * (daemon.c): listen, connect to each client, capture them all on one
 * event loop, save each trace as its capture ends, and print the summary. */
#include <signal.h>
#include <stdio.h>

#include "cli.h"
#include "daemon.h"
#include "dcli.h"
#include "progress.h"

/* The options, which an exit for want of memory names the spools by. */
static daemon_options_t opts;

/* Out of memory (util.c), on any thread: the captures under way are not
 * saved, but their spools stay where they are. */
int on_fatal_exit(const char *message)
{
    diag_error("%s", message);
    diag_note("the traces under way are not saved; their spools stay in %s: 'tracy-capture --recover "
              "SPOOL -o FILE' rebuilds each where more memory is free", opts.dir ? opts.dir : ".");
    return EXIT_SAVE_FAILED;
}

int main(int argc, char **argv)
{
    const int rc = dcli_parse(&opts, argc, argv);
    if (rc >= 0) return rc;
    /* a client that vanished is an error to handle (EPIPE), not a death */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    console_init("tracy-capture-daemon");
    return daemon_run(&opts);
}
