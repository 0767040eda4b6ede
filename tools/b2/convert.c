/* SPDX-License-Identifier: BSD-3-Clause */
/* The helpers both directions of `b2 convert` share (convert.h): the reason a
 * chunk was recompressed, the report line, buffers, and the bare super-chunk a
 * b2nd output is assembled in. The command itself is cmd_convert.c. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "convert.h"

#ifdef B2CLI_HAVE_HDF5


void conv_why(conv *c, const char *fmt, ...)
{
    va_list ap;
    if (c->reason[0])
        return;
    va_start(ap, fmt);
    vsnprintf(c->reason, sizeof c->reason, fmt, ap);
    va_end(ap);
}

int conv_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

const char *conv_coords(int rank, const int64_t *start, char *buf, size_t cap)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int d = 0; d < rank && pos + 24 < cap; d++)
        pos += (size_t)snprintf(buf + pos, cap - pos, "%s%lld", d ? "," : "(", (long long)start[d]);
    if (pos + 2 <= cap)
        snprintf(buf + pos, cap - pos, ")");
    return buf;
}

int conv_grow(uint8_t **buf, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    uint8_t *p = realloc(*buf, n ? n : 1);
    if (!p)
        return -1;
    *buf = p;
    *cap = n;
    return 0;
}

int conv_bare_schunk(b2_nd_array *tmpl, const int64_t *shape, const char *path, b2_schunk **out)
{
    b2_schunk *ts = b2_nd_schunk(tmpl), *s = NULL;
    b2_cparams cp = *b2_schunk_cparams(ts); /* the block size and geometry b2nd set */
    uint8_t *m = NULL;
    int32_t mlen = 0;
    b2_nd_meta meta;
    *out = NULL;
    int rc = b2_schunk_meta_get(ts, B2_ND_META_NAME, &m, &mlen);
    if (rc < 0)
        return rc;
    rc = b2_nd_meta_decode(m, (size_t)mlen, &meta);
    free(m);
    m = NULL;
    if (rc < 0)
        return rc;
    memcpy(meta.shape, shape, (size_t)meta.ndim * sizeof *shape);
    rc = b2_nd_meta_encode(&meta, &m, &mlen);
    b2_nd_meta_clear(&meta);
    if (rc >= 0) {
        rc = b2cli_frame_create(path, 0, &cp, &s);
    }
    if (rc >= 0)
        rc = b2_schunk_meta_add(s, B2_ND_META_NAME, m, mlen);
    free(m);
    if (rc < 0) {
        b2_schunk_free(s);
        return rc;
    }
    *out = s;
    return B2_OK;
}

void conv_report(const conv *c)
{
    if (c->quiet)
        return;
    printf("%s -> %s: %lld chunk%s moved without recompressing, %lld recompressed%s%s%s\n", c->src,
           c->dst, (long long)c->moved, c->moved == 1 ? "" : "s", (long long)c->recompressed,
           c->reason[0] && c->recompressed ? " (" : "", c->recompressed ? c->reason : "",
           c->reason[0] && c->recompressed ? ")" : "");
}
#endif
