/* SPDX-License-Identifier: BSD-3-Clause */
/* The vlmetalayers a handle holds, below the public calls (metalayers.c) and
 * the library's own layers (frame_sums.c): find, put and decode, no commit. */
#include <string.h>

#include "frame_internal.h"

static int find(const frame_meta *m, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(m[i].name, name) == 0)
            return i;
    return B2_ERR_NOT_FOUND;
}

/* Compress content as the reference does for vlmetalayers (default cparams), or
 * fast (lz4, clevel 1) for the library's own bulky layers. */
static int vl_compress(const void *content, int32_t len, int fast, uint8_t **out, int32_t *olen)
{
    b2_cparams p;
    b2_cparams_init(&p);
    p.nthreads = 1;
    if (fast) {
        p.codec = B2_CODEC_LZ4;
        p.clevel = 1;
    }
    b2_cctx *cctx = b2_cctx_new(&p);
    if (!cctx)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    size_t cap = b2_chunk_compress_bound((size_t)len);
    uint8_t *dst = malloc(cap);
    int rc = dst ? b2_chunk_compress(cctx, content, (size_t)len, dst, cap) : B2_FAIL_CODE(B2_ERR_NOMEM);
    b2_cctx_free(cctx);
    if (rc < 0) {
        free(dst);
        return rc;
    }
    *out = dst;
    *olen = rc;
    return B2_OK;
}

int b2_frame_vlmeta_find(const b2_schunk *s, const char *name)
{
    return find(s->head.vlmeta, s->head.nvlmeta, name);
}

int b2_frame_vlmeta_put(b2_schunk *s, const char *name, const void *content, int32_t len, int fast)
{
    int i = find(s->head.vlmeta, s->head.nvlmeta, name);
    if (!content) { /* delete */
        if (i < 0)
            return B2_FAIL(i, "vlmetalayer \"%s\"", name);
        free(s->head.vlmeta[i].content);
        memmove(s->head.vlmeta + i, s->head.vlmeta + i + 1, (size_t)(s->head.nvlmeta - i - 1) * sizeof *s->head.vlmeta);
        s->head.nvlmeta--;
        return B2_OK;
    }
    if (i < 0 && s->head.nvlmeta >= B2_FRAME_MAX_VLMETALAYERS)
        return B2_FAIL(B2_ERR_DOES_NOT_FIT, "the frame holds %d vlmetalayers already", s->head.nvlmeta);
    if (i < 0 && s->head.nvlmeta >= s->head.vlmeta_cap) {
        int cap = s->head.vlmeta_cap ? s->head.vlmeta_cap * 2 : 4;
        frame_meta *p = realloc(s->head.vlmeta, (size_t)cap * sizeof *p);
        if (!p)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        s->head.vlmeta = p;
        s->head.vlmeta_cap = cap;
    }
    uint8_t *c;
    int32_t clen;
    int rc = vl_compress(content, len, fast, &c, &clen);
    if (rc < 0)
        return rc;
    if (i < 0) {
        i = s->head.nvlmeta++;
        memset(s->head.vlmeta[i].name, 0, sizeof s->head.vlmeta[i].name);
        strcpy(s->head.vlmeta[i].name, name);
    } else {
        free(s->head.vlmeta[i].content);
    }
    s->head.vlmeta[i].content = c;
    s->head.vlmeta[i].len = clen;
    return i;
}


int b2_frame_vlmeta_decode(b2_schunk *s, int i, uint8_t **content, int32_t *len)
{
    *content = NULL;
    b2_chunk_info info;
    int rc = b2_chunk_get_info(s->head.vlmeta[i].content, (size_t)s->head.vlmeta[i].len, &info);
    if (rc >= 0)
        rc = FRAME_MEM_CHECK(s, info.nbytes, "the vlmetalayer's content");
    if (rc < 0)
        return rc;
    uint8_t *d = malloc(info.nbytes ? (size_t)info.nbytes : 1);
    if (!d)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    if (info.special == B2_SPECIAL_UNINIT)
        memset(d, 0, (size_t)info.nbytes); /* it decodes to nothing */
    frame_rd *r = b2_frame_rd_get(s);
    rc = r ? b2_chunk_decompress(r->dctx, s->head.vlmeta[i].content, (size_t)s->head.vlmeta[i].len, d,
                                 (size_t)info.nbytes)
           : B2_ERR_NOMEM;
    b2_frame_rd_put(s, r);
    if (rc < 0) {
        free(d);
        return rc;
    }
    *content = d;
    *len = rc;
    return B2_OK;
}
