/* SPDX-License-Identifier: BSD-3-Clause */
/* What `b2 slice` reads: boxes (START:STOP per dimension, NumPy-like: omitted
 * bounds are the ends, negative ones count from the end, a single index I means
 * I:I+1, missing trailing dimensions are whole) of b2nd arrays, frames and HDF5
 * datasets, and orthogonal selections of b2nd arrays ('[1,5,9],2:7'). In a
 * selection each dimension is a list [I,J,..] (any order, repeats allowed,
 * negative indices from the end), a range START:STOP or one index; ranges and
 * indices become lists, so the result is NumPy's a[np.ix_(...)] with every
 * dimension kept. */
#include <stdlib.h>
#include <string.h>

#include "b2cli.h"
#include "obj.h"
#include "select.h"

#define CMD "slice"

/* One bound: empty -> dflt; negative counts from the end; clipped to [0, n]. */
static int parse_bound(const char *s, size_t len, int64_t n, int64_t dflt, int64_t *out)
{
    char buf[32];
    int64_t v;
    if (len == 0) {
        *out = dflt;
        return 0;
    }
    if (len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (b2cli_parse_int(buf, INT64_MIN / 2, INT64_MAX / 2, 0, &v) < 0)
        return -1;
    if (v < 0)
        v += n;
    *out = v < 0 ? 0 : v > n ? n : v;
    return 0;
}

int b2cli_parse_box(const char *spec, int ndim, const int64_t *shape, int64_t *start, int64_t *stop)
{
    int d = 0;
    const char *p = spec;
    for (int i = 0; i < ndim; i++) {
        start[i] = 0;
        stop[i] = shape[i];
    }
    if (!*spec)
        return 0;
    for (;;) {
        const char *comma = strchr(p, ','), *end = comma ? comma : p + strlen(p);
        const char *colon = memchr(p, ':', (size_t)(end - p));
        if (d == ndim)
            return b2cli_usage_error(CMD, "'%s' has more than %d dimension%s", spec, ndim,
                                     ndim == 1 ? "" : "s");
        if (colon) {
            if (parse_bound(p, (size_t)(colon - p), shape[d], 0, &start[d]) < 0 ||
                parse_bound(colon + 1, (size_t)(end - colon - 1), shape[d], shape[d], &stop[d]) < 0)
                return b2cli_usage_error(CMD, "cannot parse range '%.*s' in '%s' (START:STOP, integers)",
                                         (int)(end - p), p, spec);
        } else {
            int64_t i;
            char buf[32];
            size_t len = (size_t)(end - p);
            if (len == 0 || len >= sizeof buf)
                return b2cli_usage_error(CMD, "bad index '%.*s' in '%s'", (int)len, p, spec);
            memcpy(buf, p, len);
            buf[len] = '\0';
            if (b2cli_parse_int(buf, INT64_MIN / 2, INT64_MAX / 2, 0, &i) < 0)
                return b2cli_usage_error(CMD, "cannot parse index '%s' in '%s' (an integer)", buf, spec);
            if (i < -shape[d] || i >= shape[d])
                return b2cli_usage_error(CMD, "index %s out of range for dimension %d (extent %lld)",
                                         buf, d, (long long)shape[d]);
            if (i < 0)
                i += shape[d];
            start[d] = i;
            stop[d] = i + 1;
        }
        if (stop[d] < start[d])
            stop[d] = start[d]; /* empty, as in NumPy */
        d++;
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

int b2cli_spec_is_selection(const char *spec)
{
    return strchr(spec, '[') != NULL;
}

void b2cli_selection_free(b2cli_selection *s)
{
    for (int d = 0; d < B2_ND_MAX_DIM; d++) {
        free(s->idx[d]);
        s->idx[d] = NULL;
    }
}

static int push(b2cli_selection *s, int d, int64_t *cap, int64_t v)
{
    if (s->n[d] == *cap) {
        int64_t nc = *cap ? *cap * 2 : 16;
        int64_t *p = realloc(s->idx[d], (size_t)nc * sizeof *p);
        if (!p)
            return -1;
        s->idx[d] = p;
        *cap = nc;
    }
    s->idx[d][s->n[d]++] = v;
    return 0;
}

/* One integer at *p, ending at one of `stops`; advances *p. 0, -1 when it is
 * not an integer, -2 when it is outside [-n, n) (the token is left in tok). */
static int parse_index(const char **p, const char *stops, int64_t n, int64_t *out, char *tok)
{
    size_t len = strcspn(*p, stops);
    tok[0] = '\0';
    if (len == 0 || len >= 32)
        return -1;
    memcpy(tok, *p, len);
    tok[len] = '\0';
    if (b2cli_parse_int(tok, INT64_MIN / 2, INT64_MAX / 2, 0, out) < 0)
        return -1;
    if (*out < -n || *out >= n)
        return -2;
    *p += len;
    return 0;
}

int b2cli_parse_selection(const char *spec, int ndim, const int64_t *shape, b2cli_selection *s)
{
    memset(s, 0, sizeof *s);
    const char *p = spec;
    int d = 0;
    for (; *p; d++) {
        if (d == ndim) {
            b2cli_selection_free(s);
            return b2cli_usage_error(CMD, "'%s' has more than %d dimension%s", spec, ndim,
                                     ndim == 1 ? "" : "s");
        }
        int64_t cap = 0, v;
        const char *item = p;
        if (*p == '[') {
            p++;
            while (*p != ']') {
                char tok[32];
                int prc = parse_index(&p, ",]", shape[d], &v, tok);
                if (prc == -2) {
                    b2cli_selection_free(s);
                    return b2cli_usage_error(CMD, "index %s out of range for dimension %d (extent %lld)",
                                             tok, d, (long long)shape[d]);
                }
                if (prc < 0 || push(s, d, &cap, v) < 0 || (*p != ',' && *p != ']')) {
                    b2cli_selection_free(s);
                    return b2cli_usage_error(CMD, "cannot parse index list '%.*s' for dimension %d",
                                             (int)strcspn(item, "]") + 1, item, d);
                }
                if (*p == ',')
                    p++;
            }
            p++;
        } else {
            /* a range or one index, expanded: the box parser says what it means */
            size_t len = strcspn(p, ",");
            char *one = strndup(p, len);
            int64_t lo, hi;
            int rc = one ? b2cli_parse_box(one, 1, &shape[d], &lo, &hi) : -1;
            free(one);
            if (rc != 0) {
                b2cli_selection_free(s);
                return rc > 0 ? rc : B2CLI_EXIT_DATA;
            }
            for (int64_t i = lo; i < hi; i++)
                if (push(s, d, &cap, i) < 0) {
                    b2cli_selection_free(s);
                    return b2cli_data_error(spec, "out of memory"), B2CLI_EXIT_DATA;
                }
            p += len;
        }
        if (*p == ',')
            p++;
        else if (*p) {
            b2cli_selection_free(s);
            return b2cli_usage_error(CMD, "expected ',' after dimension %d in '%s'", d, spec);
        }
    }
    /* dimensions left out are taken whole */
    for (; d < ndim; d++) {
        int64_t cap = 0;
        for (int64_t i = 0; i < shape[d]; i++)
            if (push(s, d, &cap, i) < 0) {
                b2cli_selection_free(s);
                return b2cli_data_error(spec, "out of memory"), B2CLI_EXIT_DATA;
            }
    }
    return 0;
}

int b2cli_b2nd_write_selection(const b2cli_obj *o, const b2cli_selection *s, FILE *out)
{
    b2_nd_array *a = o->arr;
    int nd = b2_nd_ndim(a);
    int64_t rowbytes = b2_nd_typesize(a);
    for (int d = 0; d < nd; d++) {
        if (s->n[d] == 0)
            return B2_OK; /* nothing selected */
        if (d > 0)
            rowbytes *= s->n[d];
    }
    /* pieces of the first list, at most ~16 MiB of output each (at least one row) */
    int64_t step = nd ? (16 << 20) / rowbytes : 1;
    if (step < 1)
        step = 1;
    if (nd && step > s->n[0])
        step = s->n[0];
    uint8_t *buf = malloc((size_t)(step * rowbytes));
    if (!buf)
        return b2cli_data_error(o->path, "out of memory"), B2_ERR_NOMEM;
    const int64_t *lists[B2_ND_MAX_DIM];
    int64_t n[B2_ND_MAX_DIM];
    for (int d = 0; d < nd; d++) {
        lists[d] = s->idx[d];
        n[d] = s->n[d];
    }
    int rc = B2_OK;
    for (int64_t r = 0; r < (nd ? s->n[0] : 1) && rc == B2_OK; r += step) {
        if (nd) {
            lists[0] = s->idx[0] + r;
            n[0] = s->n[0] - r < step ? s->n[0] - r : step;
        }
        size_t len = (size_t)((nd ? n[0] : 1) * rowbytes);
        rc = b2_nd_get_orthogonal_selection(a, lists, n, buf, len);
        if (rc < 0)
            b2cli_data_error(o->path, "cannot read the selection: %s", b2_nd_last_error(a));
        else if ((rc = b2cli_write_all(out, buf, len)) < 0)
            b2cli_data_error(o->path, "write error on output");
    }
    free(buf);
    return rc;
}
