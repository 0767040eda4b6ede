/* SPDX-License-Identifier: BSD-3-Clause */
/* Minimal JSON reader for tests: parses a whole document into a tree of nodes
 * (enough for the interop manifest.json). Not for hostile input beyond tests. */
#ifndef B2_TEST_MANIFEST_H
#define B2_TEST_MANIFEST_H

#include <stddef.h>

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct jnode {
    enum jtype type;
    double num;            /* J_NUM, J_BOOL (0/1) */
    char *str;             /* J_STR (NUL-terminated, escapes decoded) */
    char *key;             /* member name when inside an object */
    struct jnode *kids;    /* J_ARR / J_OBJ children */
    size_t nkids;
} jnode;

/* Parse text (len bytes). Returns the root or NULL on a syntax error. */
jnode *json_parse(const char *text, size_t len);
/* Read and parse a file; NULL if it cannot be read or parsed. */
jnode *json_load(const char *path);
/* Free a tree returned by json_parse/json_load (NULL is fine). */
void json_free(jnode *n);

/* Member of an object by name, or NULL (also NULL when o is NULL). */
const jnode *json_get(const jnode *o, const char *key);
/* Follow a dotted path of member names, e.g. "params.codec". */
const jnode *json_path(const jnode *o, const char *path);
/* Number / string / bool at a dotted path, with a default when absent. */
double json_num(const jnode *o, const char *path, double dflt);
const char *json_str(const jnode *o, const char *path, const char *dflt);
int json_bool(const jnode *o, const char *path, int dflt);

/* Read a whole file into a malloc'ed buffer; returns NULL on failure. */
unsigned char *test_read_file(const char *path, size_t *len);
/* $B2_INTEROP_DIR/manifest.json parsed, or NULL after printing a SKIP line that
 * says why (the caller then exits 77). */
jnode *test_interop_manifest(void);
/* $B2_INTEROP_DIR/plugins/manifest.json likewise. */
jnode *test_plugin_manifest(void);
/* The file a plugin vector's member field ("path", "input.path") names, as
 * $B2_INTEROP_DIR/plugins/<value>, written into buf (cap bytes); returns buf. */
const char *test_plugin_path(const jnode *v, const char *field, char *buf, size_t cap);

#endif
