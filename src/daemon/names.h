/* names.h - the output file of each client heard, named as upstream's
 * capture daemon names it: DIR/PROGRAM_ADDRESS_PORT.tracy, with _1, _2...
 * before ".tracy" while the name is taken. */
#ifndef TC_NAMES_H
#define TC_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "strtab.h"

/* The output directory and the paths handed out so far. */
typedef struct {
    char *dir;
    strtab_t given;                  /* every path names_claim returned */
} names_t;

void names_init(names_t *n, const char *dir);
void names_free(names_t *n);

/* The program name reduced to what a file name may safely hold: letters,
 * digits, '_' and '-' are kept, a space or tab becomes '_', any other
 * byte is dropped; nothing left is "unknown". Written into out (cut to
 * size - 1 bytes; 64 holds every announced name); returns out. */
char *names_sanitize(const char *program, char *out, size_t size);

/* A path for a new client's file: DIR/SANITIZED_ADDRESS_PORT.tracy, or
 * DIR/SANITIZED_ADDRESS_PORT_N.tracy with the smallest N >= 1 that is
 * free, a path being taken when this names_t handed it out before or
 * something (a dangling link too) is there on disk. The path is recorded
 * as handed out; it stays valid until names_free. */
const char *names_claim(names_t *n, const char *program, const char *address, uint16_t port);

#endif
