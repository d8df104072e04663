/* code.h - machine code and source text served by tracy-test-client for
 * its invented functions and files (SymbolCode / SourceCode answers). */
#ifndef TC_CODE_H
#define TC_CODE_H

#include "client.h"

/* The s->len code bytes of a user-space function into out (cap bytes);
 * returns the count written, 0 if not available (kernel, too large). */
size_t code_symbol_bytes(const struct tc_client *c, const struct tc_symbol_entry *s, uint8_t *out,
                         size_t cap);

/* Synthetic text of a source file (malloc'd, *len bytes, NUL-terminated). */
char *code_source_text(const struct tc_client *c, const char *file, size_t *len);

#endif
