/* export: open, check the options against the file's release, load,
 * print (see export.h). */
#include "export.h"

#include <string.h>

#include "csvexport.h"
#include "tfload.h"
#include "tfread.h"

/* The options against the file's version stamp, read before the rest:
 * a refused option costs no reading. A payload that is no Tracy one is
 * left for the loader to name. */
static int check_release(tfread *r, stats_args *a, char *err, size_t errsz)
{
    uint8_t head[8];
    if (tfread_peek(r, head, sizeof head) != 0) {
        snprintf(err, errsz, "%s", tfread_error(r));
        return -1;
    }
    if (memcmp(head, "tracy", 5) != 0) {
        a->csv.release = csv_release_newest();
        return 0;
    }
    return stats_args_check(a, head + 5, err, errsz);
}

int stats_export(const char *path, stats_args *a, FILE *out, char *err, size_t errsz)
{
    char why[512];
    int open_failed;
    tfread *r = NULL;
    if (tfread_open(&r, path, &open_failed, why, sizeof why) != 0) {
        if (open_failed)
            snprintf(err, errsz, "cannot open %s", why);
        else
            snprintf(err, errsz, "%s: %s", path, why);
        return -1;
    }
    tf_model m;
    tf_stats s;
    tf_model_init(&m);
    stats_init(&s, &(stats_options){ 0 });
    int rc = -1;
    if (check_release(r, a, why, sizeof why) != 0)
        snprintf(err, errsz, "%s: %s", path, why);
    else if (csv_load(r, &m, &s, &a->csv, 0, why, sizeof why) != 0)
        snprintf(err, errsz, "%s: %s", path, why);
    else if (csv_write(&m, &s, &a->csv, out) != 0)
        snprintf(err, errsz, "%s: out of memory", path);
    else
        rc = 0;
    stats_free(&s);
    tf_model_free(&m);
    tfread_close(r);
    return rc;
}
