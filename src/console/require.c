/* require.c - --require and the LD_PRELOAD warning (see require.h). */
#include "require.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"

int require_parse(const char *list, family_set_t *set)
{
    family_set_t got = 0;
    for (const char *p = list;;) {
        const size_t len = strcspn(p, ",");
        if (len) {
            const int f = family_by_name(p, len);
            if (f < 0) {
                char known[256];
                family_names_text(known, sizeof known);
                fprintf(stderr, "tracy-capture: --require: unknown family '%.*s'; the families are: %s\n"
                        "Try 'tracy-capture --help' for more information.\n", (int)len, p, known);
                return -1;
            }
            got |= 1u << f;
        }
        if (!p[len]) break;
        p += len + 1;
    }
    if (!got) {
        char known[256];
        family_names_text(known, sizeof known);
        fprintf(stderr, "tracy-capture: --require needs a comma-separated list of families (%s), not '%s'\n"
                "Try 'tracy-capture --help' for more information.\n", known, list);
        return -1;
    }
    *set |= got;
    return 0;
}

family_set_t require_missing(family_set_t required, const model_counts_t *k)
{
    family_set_t missing = 0;
    for (int f = 0; f < FAM_REQUIRABLE; f++)
        if ((required & (1u << f)) && !family_present((family_t)f, k)) missing |= 1u << f;
    return missing;
}

void require_report(family_set_t missing, family_set_t stripped, const model_counts_t *k, int64_t sampling_period)
{
    for (int f = 0; f < FAM_REQUIRABLE; f++) {
        if (!(missing & (1u << f))) continue;
        if (stripped & (1u << f)) {
            diag_error("--require %s: the trace holds nothing of it: --strip left it out of the file (the capture "
                       "received some)", family_name((family_t)f));
            continue;
        }
        char why[640];
        diag_error("--require %s: the capture holds %s", family_name((family_t)f),
                   family_missing_text((family_t)f, k, sampling_period, why, sizeof why));
    }
}

bool require_warn_preload(const char *program)
{
    const char *preload = getenv("LD_PRELOAD");
    if (!preload || !preload[strspn(preload, " :")]) return false;
    diag_warn("LD_PRELOAD is set (%s): an interposer meant for the profiled program also hooks %s itself, "
              "which can corrupt the capture; unset it for the capture: env -u LD_PRELOAD %s ...", preload, program,
              program);
    return true;
}
