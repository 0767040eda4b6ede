/* SPDX-License-Identifier: BSD-3-Clause */
/* What `b2 slice` reads (select.c): boxes, and orthogonal selections of b2nd
 * arrays. */
#ifndef B2CLI_SELECT_H
#define B2CLI_SELECT_H

#include "b2cli.h"
#include "obj.h"

/* Parse a box SPEC (START:STOP per dimension, see `b2 slice --help`) for ndim
 * dimensions of the given shape. 0 or a usage exit code (message printed). */
int b2cli_parse_box(const char *spec, int ndim, const int64_t *shape, int64_t *start, int64_t *stop);

/* One index list per dimension (malloc'ed; b2cli_selection_free). */
typedef struct b2cli_selection {
    int64_t *idx[B2_ND_MAX_DIM];
    int64_t n[B2_ND_MAX_DIM];
} b2cli_selection;
/* Whether SPEC names index lists ('[' in it) rather than a box. */
int b2cli_spec_is_selection(const char *spec);
/* Parse SPEC: per dimension [I,J,..], START:STOP or I (ranges become lists,
 * dimensions left out are whole). 0 or a usage exit code (message printed). */
int b2cli_parse_selection(const char *spec, int ndim, const int64_t *shape, b2cli_selection *s);
void b2cli_selection_free(b2cli_selection *s);
/* Write the selection's items in C order to out, in pieces of about 16 MiB. */
int b2cli_b2nd_write_selection(const b2cli_obj *o, const b2cli_selection *s, FILE *out);

#endif
