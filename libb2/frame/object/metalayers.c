/* SPDX-License-Identifier: BSD-3-Clause */
/* Metalayers (uncompressed, fixed size, in the header) and vlmetalayers
 * (compressed chunks in the trailer). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "frame_internal.h"

static int find(const frame_meta *m, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(m[i].name, name) == 0)
            return i;
    return B2_ERR_NOT_FOUND; /* callers record it, with the name, when it is a failure */
}

static int check_name(const char *name)
{
    B2_FAIL_IF(!name || !*name || strlen(name) > B2_FRAME_MAX_NAME, B2_ERR_INVALID_PARAM,
               "metalayer name \"%s\" (1..%d characters)", name ? name : "NULL", B2_FRAME_MAX_NAME);
    return B2_OK;
}

static uint8_t *dup_bytes(const void *p, int32_t len)
{
    uint8_t *d = malloc(len ? (size_t)len : 1);
    if (d && len)
        memcpy(d, p, (size_t)len);
    return d;
}

int b2_schunk_meta_count(const b2_schunk *s) { return s->head.nmeta; }
const char *b2_schunk_meta_name(const b2_schunk *s, int i)
{
    return i >= 0 && i < s->head.nmeta ? s->head.meta[i].name : NULL;
}

int b2_schunk_meta_get(const b2_schunk *s, const char *name, uint8_t **content, int32_t *len)
{
    *content = NULL;
    int i = name ? find(s->head.meta, s->head.nmeta, name) : B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    if (i < 0)
        return B2_FAIL(i, "metalayer \"%s\"", name ? name : "NULL");
    *content = dup_bytes(s->head.meta[i].content, s->head.meta[i].len);
    if (!*content)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    *len = s->head.meta[i].len;
    return i;
}

/* What adding a (vl)metalayer asks of the handle and the arguments. */
static int check_add(const b2_schunk *s, const char *name, const void *content, int32_t len)
{
    B2_FAIL_IF(!s->io.writable, B2_ERR_READ_ONLY, B2_READ_ONLY_WHY);
    int rc = check_name(name);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(len < 0 || (!content && len), B2_ERR_INVALID_PARAM, "content %p of %d bytes",
               content, (int)len);
    return B2_OK;
}

/* A header that changes size moves everything after it: only done while the frame
 * holds no chunk. Files are rewritten whole and renamed into place. */
static int rebuild_empty(b2_schunk *s)
{
    s->head.h.cbytes = 0;
    return s->io.place->rewrite_empty(s);
}

int b2_schunk_meta_add_body(b2_schunk *s, const char *name, const void *content, int32_t len)
{
    int rc = check_add(s, name, content, len);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(find(s->head.meta, s->head.nmeta, name) >= 0, B2_ERR_EXISTS, "metalayer \"%s\"",
               name);
    if (s->head.nmeta >= B2_FRAME_MAX_METALAYERS)
        return B2_FAIL_CODE(B2_ERR_DOES_NOT_FIT);
    /* would shift every chunk (the reference refuses too) */
    B2_FAIL_IF(s->ix.nchunks > 0 || s->head.h.nbytes > 0, B2_ERR_INVALID_PARAM,
               "metalayer \"%s\" added after %lld chunks", name, (long long)s->ix.nchunks);
    frame_meta *m = &s->head.meta[s->head.nmeta];
    memset(m->name, 0, sizeof m->name);
    strcpy(m->name, name);
    m->content = dup_bytes(content, len);
    if (!m->content)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    m->len = len;
    s->head.nmeta++;
    s->head.h.header_len = (int32_t)b2_frame_header_size(s->head.meta, s->head.nmeta);
    rc = rebuild_empty(s);
    if (rc >= 0)
        rc = b2_schunk_adopt_geometry(s);
    return rc < 0 ? rc : s->head.nmeta - 1;
}

int b2_schunk_meta_update_body(b2_schunk *s, const char *name, const void *content, int32_t len)
{
    B2_FAIL_IF(!s->io.writable, B2_ERR_READ_ONLY, B2_READ_ONLY_WHY);
    B2_FAIL_IF(!name || len < 0 || (!content && len), B2_ERR_INVALID_PARAM,
               "name %s, content %p of %d bytes", name ? name : "NULL", content, (int)len);
    int i = find(s->head.meta, s->head.nmeta, name);
    if (i < 0)
        return B2_FAIL(i, "metalayer \"%s\"", name ? name : "NULL");
    if (len > s->head.meta[i].len)
        return B2_FAIL_CODE(B2_ERR_DOES_NOT_FIT);
    /* Position of the content inside the header (doc/format/frame.md §3). */
    int64_t pos = FRAME_HEADER_FIXED + 7;
    for (int j = 0; j < s->head.nmeta; j++)
        pos += 1 + (int64_t)strlen(s->head.meta[j].name) + 5;
    pos += 3;
    for (int j = 0; j < i; j++)
        pos += 5 + s->head.meta[j].len;
    pos += 5;
    memcpy(s->head.meta[i].content, content, (size_t)len);
    int rc = s->io.place->write_meta(s, pos, content, len);
    if (rc >= 0)
        rc = b2_schunk_adopt_geometry(s);
    return rc < 0 ? rc : i;
}

/* ---- vlmetalayers ---- */

int b2_schunk_vlmeta_count(const b2_schunk *s) { return s->head.nvlmeta; }
const char *b2_schunk_vlmeta_name(const b2_schunk *s, int i)
{
    return i >= 0 && i < s->head.nvlmeta ? s->head.vlmeta[i].name : NULL;
}

int b2_schunk_vlmeta_get_body(b2_schunk *s, const char *name, uint8_t **content, int32_t *len)
{
    *content = NULL;
    int i = name ? find(s->head.vlmeta, s->head.nvlmeta, name) : B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    if (i < 0)
        return B2_FAIL(i, "vlmetalayer \"%s\"", name ? name : "NULL");
    int rc = b2_frame_vlmeta_decode(s, i, content, len);
    return rc < 0 ? rc : i;
}

int b2_schunk_vlmeta_add_body(b2_schunk *s, const char *name, const void *content, int32_t len)
{
    int rc = check_add(s, name, content, len);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(find(s->head.vlmeta, s->head.nvlmeta, name) >= 0, B2_ERR_EXISTS,
               "vlmetalayer \"%s\"", name);
    int i = b2_frame_vlmeta_put(s, name, content ? content : "", len, 0);
    if (i < 0)
        return i;
    rc = b2_frame_commit(s, 0);
    return rc < 0 ? rc : i;
}

int b2_schunk_vlmeta_update_body(b2_schunk *s, const char *name, const void *content, int32_t len)
{
    B2_FAIL_IF(!s->io.writable, B2_ERR_READ_ONLY, B2_READ_ONLY_WHY);
    B2_FAIL_IF(!name || len < 0 || (!content && len), B2_ERR_INVALID_PARAM,
               "name %s, content %p of %d bytes", name ? name : "NULL", content, (int)len);
    int i = find(s->head.vlmeta, s->head.nvlmeta, name);
    if (i < 0)
        return B2_FAIL(i, "vlmetalayer \"%s\"", name);
    i = b2_frame_vlmeta_put(s, name, content ? content : "", len, 0);
    if (i < 0)
        return i;
    int rc = b2_frame_commit(s, 0);
    return rc < 0 ? rc : i;
}

int b2_schunk_vlmeta_delete_body(b2_schunk *s, const char *name)
{
    B2_FAIL_IF(!s->io.writable, B2_ERR_READ_ONLY, B2_READ_ONLY_WHY);
    B2_FAIL_IF(!name, B2_ERR_INVALID_PARAM, "name is NULL");
    int rc = b2_frame_vlmeta_put(s, name, NULL, 0, 0);
    if (rc < 0)
        return rc;
    if (!strcmp(name, B2_FRAME_SUMS_NAME)) /* as b2_schunk_set_checksums(OFF) */
        (void)b2_frame_sums_apply(s, B2_CHECKSUMS_OFF);
    rc = b2_frame_commit(s, 0);
    return rc < 0 ? rc : s->head.nvlmeta;
}
