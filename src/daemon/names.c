/* names.c - output file names for the clients heard (see names.h). */
#include "names.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

void names_init(names_t *n, const char *dir)
{
    memset(n, 0, sizeof *n);
    n->dir = xstrdup(*dir ? dir : ".");
}

void names_free(names_t *n)
{
    free(n->dir);
    strtab_free(&n->given);
    memset(n, 0, sizeof *n);
}

static bool is_kept(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

char *names_sanitize(const char *program, char *out, size_t size)
{
    size_t o = 0;
    for (const char *p = program; *p && o + 1 < size; p++) {
        if (is_kept(*p)) out[o++] = *p;
        else if (*p == ' ' || *p == '\t') out[o++] = '_';
    }
    out[o] = '\0';
    if (o == 0) snprintf(out, size, "unknown");
    return out;
}

static bool on_disk(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

const char *names_claim(names_t *n, const char *program, const char *address, uint16_t port)
{
    char name[64];
    names_sanitize(program, name, sizeof name);
    const size_t dl = strlen(n->dir);
    const char *sep = n->dir[dl - 1] == '/' ? "" : "/";
    const size_t cap = dl + strlen(name) + strlen(address) + 48;
    char *path = xmalloc(cap);
    const char *claimed = NULL;
    for (unsigned idx = 0; !claimed; idx++) {
        int len = idx == 0
            ? snprintf(path, cap, "%s%s%s_%s_%u.tracy", n->dir, sep, name, address, (unsigned)port)
            : snprintf(path, cap, "%s%s%s_%s_%u_%u.tracy", n->dir, sep, name, address, (unsigned)port, idx);
        /* taken when handed out before (asked first: no system call) or
         * on the disk */
        if (strtab_find(&n->given, path, (size_t)len) != STRTAB_NONE || on_disk(path)) continue;
        claimed = strtab_get(&n->given, strtab_intern(&n->given, path, (size_t)len));
    }
    free(path);
    return claimed;
}
