/* SPDX-License-Identifier: BSD-3-Clause */
/* The fault tests' workload (workload.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"
#include "frame_open.h"

const char *const wl_kind_names[WL_NKINDS] = {
    "append", "append zeros", "insert", "update", "update to zeros", "delete",
    "reorder", "metalayer update", "vlmetalayer set", "vlmetalayer delete", "compact"};

/*                                 app zer ins upd uz del reo meta vls vld cmp */
const wl_profile wl_all_ops = {{30, 4, 8, 14, 3, 12, 3, 8, 8, 3, 6}, 1, 24, WL_CHUNK};
const wl_profile wl_append_only = {{60, 0, 0, 0, 0, 0, 0, 20, 20, 0, 0}, 0, 1 << 30, 2048};

static const char *const vl_names[WL_NVL] = {"va", "vb", "vc"};

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* ---- what every stored byte is, from its tag ---- */

/* Chunk data: int32 items tag, nbytes, then a ramp with 16 bits of noise, which
 * compresses to about half: chunks of some kilobytes, so a write takes time. */
static void fill_chunk(uint32_t tag, int32_t nbytes, uint8_t *buf)
{
    uint64_t r = mix(tag);
    int32_t base = (int32_t)(r >> 40), step = (int32_t)(tag % 7) + 1;
    for (int32_t i = 0; i < nbytes / 4; i++) {
        int32_t v = i == 0 ? (int32_t)tag : i == 1 ? nbytes : base + i * step + (int32_t)(r >> 48);
        r = r * 6364136223846793005u + 1442695040888963407u;
        memcpy(buf + 4 * i, &v, 4);
    }
}

/* vlmetalayer content: 12..51 bytes starting with the tag. */
static int32_t fill_vl(uint32_t tag, uint8_t *buf)
{
    int32_t len = 12 + (int32_t)(tag % 40);
    memcpy(buf, &tag, 4);
    for (int32_t i = 4; i < len; i++)
        buf[i] = (uint8_t)(tag * 31 + (uint32_t)i * 7);
    return len;
}

static void fill_meta(uint32_t tag, uint8_t *buf)
{
    uint32_t inv = ~tag;
    memcpy(buf, &tag, 4);
    memcpy(buf + 4, &inv, 4);
}

/* ---- the model ---- */

void wl_init(wl_state *st) { memset(st, 0, sizeof *st); }

void wl_free(wl_state *st)
{
    free(st->c);
    wl_init(st);
}

static void reserve(wl_state *st, int64_t n)
{
    if (n <= st->cap)
        return;
    st->cap = n * 2 + 16;
    st->c = realloc(st->c, (size_t)st->cap * sizeof *st->c);
    if (!st->c) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
}

void wl_copy(wl_state *dst, const wl_state *src)
{
    wl_chunk *c = dst->c;
    int64_t cap = dst->cap;
    *dst = *src;
    dst->c = c;
    dst->cap = cap;
    reserve(dst, src->n);
    if (src->n)
        memcpy(dst->c, src->c, (size_t)src->n * sizeof *src->c);
}

int wl_equal(const wl_state *a, const wl_state *b)
{
    return a->n == b->n && a->meta == b->meta && !memcmp(a->vl, b->vl, sizeof a->vl) &&
           (a->n == 0 || !memcmp(a->c, b->c, (size_t)a->n * sizeof *a->c));
}

void wl_next(const wl_profile *p, uint64_t seed, int64_t j, const wl_state *st, wl_op *op)
{
    uint64_t r = mix(seed * 0x100000001b3u + (uint64_t)j);
    int total = 0;
    for (int k = 0; k < WL_NKINDS; k++)
        total += p->weight[k];
    int pick = (int)(r % (uint64_t)total), kind = 0;
    while (pick >= p->weight[kind])
        pick -= p->weight[kind++];
    r = mix(r);
    memset(op, 0, sizeof *op);
    /* no chunk to change: append; too many: delete instead of adding */
    if (st->n == 0 && (kind == WL_UPDATE || kind == WL_UPDATE_ZEROS || kind == WL_DELETE ||
                       kind == WL_REORDER))
        kind = WL_APPEND;
    if (st->n >= p->target_chunks &&
        (kind == WL_APPEND || kind == WL_APPEND_ZEROS || kind == WL_INSERT))
        kind = WL_DELETE;
    int nvl = 0;
    for (int v = 0; v < WL_NVL; v++)
        nvl += st->vl[v] != 0;
    if (kind == WL_VLDEL && nvl == 0)
        kind = WL_VLSET;
    op->kind = kind;
    op->tag = kind == WL_APPEND_ZEROS || kind == WL_UPDATE_ZEROS ? 0 : (uint32_t)j;
    static const int32_t sizes[] = {8192, 4000, 12000};
    op->nbytes = p->varsize && r % 4 == 0 ? sizes[(r >> 8) % 3] : p->nbytes;
    r = mix(r);
    switch (kind) {
    case WL_INSERT: op->pos = (int64_t)(r % (uint64_t)(st->n + 1)); break;
    case WL_UPDATE:
    case WL_UPDATE_ZEROS:
    case WL_DELETE: op->pos = (int64_t)(r % (uint64_t)st->n); break;
    case WL_REORDER: op->pos = st->n > 1 ? 1 + (int64_t)(r % (uint64_t)(st->n - 1)) : 0; break;
    case WL_VLSET: op->vl = (int)(r % WL_NVL); break;
    case WL_VLDEL:
        op->vl = (int)(r % WL_NVL);
        while (!st->vl[op->vl])
            op->vl = (op->vl + 1) % WL_NVL;
        break;
    default: break;
    }
}

void wl_apply(wl_state *st, const wl_op *op)
{
    wl_chunk c = {op->tag, op->nbytes};
    switch (op->kind) {
    case WL_APPEND:
    case WL_APPEND_ZEROS:
        reserve(st, st->n + 1);
        st->c[st->n++] = c;
        break;
    case WL_INSERT:
        reserve(st, st->n + 1);
        memmove(st->c + op->pos + 1, st->c + op->pos, (size_t)(st->n - op->pos) * sizeof c);
        st->c[op->pos] = c;
        st->n++;
        break;
    case WL_UPDATE:
    case WL_UPDATE_ZEROS: st->c[op->pos] = c; break;
    case WL_DELETE:
        memmove(st->c + op->pos, st->c + op->pos + 1, (size_t)(st->n - op->pos - 1) * sizeof c);
        st->n--;
        break;
    case WL_REORDER: {
        wl_chunk *t = malloc((size_t)(st->n ? st->n : 1) * sizeof c);
        for (int64_t i = 0; i < st->n; i++)
            t[i] = st->c[(i + op->pos) % st->n];
        if (st->n)
            memcpy(st->c, t, (size_t)st->n * sizeof c);
        free(t);
        break;
    }
    case WL_META: st->meta = op->tag; break;
    case WL_VLSET: st->vl[op->vl] = op->tag; break;
    case WL_VLDEL: st->vl[op->vl] = 0; break;
    default: break; /* compact: same content */
    }
}

void wl_print(FILE *f, const char *label, const wl_state *st)
{
    fprintf(f, "%s: metalayer %u, vlmetalayers %u %u %u, %lld chunks (tag/bytes):", label,
            (unsigned)st->meta, (unsigned)st->vl[0], (unsigned)st->vl[1], (unsigned)st->vl[2],
            (long long)st->n);
    for (int64_t i = 0; i < st->n; i++)
        fprintf(f, " %u/%d", (unsigned)st->c[i].tag, (int)st->c[i].nbytes);
    fputc('\n', f);
}

const char *wl_describe(const wl_op *op, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s (pos %lld, tag %u, %d bytes, vl %d)", wl_kind_names[op->kind],
             (long long)op->pos, (unsigned)op->tag, (int)op->nbytes, op->vl);
    return buf;
}

/* ---- performing operations ---- */

/* The chunk op adds: compressed with the frame's parameters, or a zeros chunk. */
static int make_chunk(b2_schunk *s, const wl_op *op, uint8_t *dst, size_t cap)
{
    if (op->tag == 0)
        return b2_chunk_make_special(B2_SPECIAL_ZEROS, 4, op->nbytes, NULL, dst, cap);
    uint8_t data[WL_CHUNK];
    fill_chunk(op->tag, op->nbytes, data);
    b2_cctx *c = b2_cctx_new(b2_schunk_cparams(s));
    if (!c)
        return B2_ERR_NOMEM;
    int rc = b2_chunk_compress(c, data, (size_t)op->nbytes, dst, cap);
    b2_cctx_free(c);
    return rc;
}

int64_t wl_exec(b2_schunk *s, const wl_op *op)
{
    uint8_t chunk[WL_CHUNK + B2_MAX_OVERHEAD], data[WL_CHUNK], vl[64];
    int64_t rc = 0;
    switch (op->kind) {
    case WL_APPEND:
        fill_chunk(op->tag, op->nbytes, data);
        return b2_schunk_append_buffer(s, data, op->nbytes);
    case WL_APPEND_ZEROS:
    case WL_INSERT:
    case WL_UPDATE:
    case WL_UPDATE_ZEROS:
        rc = make_chunk(s, op, chunk, sizeof chunk);
        if (rc < 0)
            return rc;
        if (op->kind == WL_UPDATE || op->kind == WL_UPDATE_ZEROS)
            return b2_schunk_update_chunk(s, op->pos, chunk, (int32_t)rc);
        if (op->kind == WL_INSERT)
            return b2_schunk_insert_chunk(s, op->pos, chunk, (int32_t)rc);
        return b2_schunk_append_chunk(s, chunk, (int32_t)rc);
    case WL_DELETE: return b2_schunk_delete_chunk(s, op->pos);
    case WL_REORDER: {
        int64_t n = b2_schunk_nchunks(s);
        int64_t *order = malloc((size_t)(n ? n : 1) * sizeof *order);
        for (int64_t i = 0; i < n; i++)
            order[i] = (i + op->pos) % n;
        rc = b2_schunk_reorder(s, order);
        free(order);
        return rc;
    }
    case WL_META:
        fill_meta(op->tag, vl);
        return b2_schunk_meta_update(s, "m", vl, WL_META_LEN);
    case WL_VLSET: {
        int32_t len = fill_vl(op->tag, vl);
        uint8_t *old;
        int32_t olen;
        rc = b2_schunk_vlmeta_get(s, vl_names[op->vl], &old, &olen);
        free(rc >= 0 ? old : NULL);
        return rc >= 0 ? b2_schunk_vlmeta_update(s, vl_names[op->vl], vl, len)
                       : b2_schunk_vlmeta_add(s, vl_names[op->vl], vl, len);
    }
    case WL_VLDEL: return b2_schunk_vlmeta_delete(s, vl_names[op->vl]);
    case WL_COMPACT: return b2_schunk_compact(s);
    }
    return B2_ERR_INVALID_PARAM;
}

int wl_create(const char *path, int sparse, b2_schunk **out)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    int rc = sparse ? t_create_sparse(path, &cp, out) : t_create(path, &cp, out);
    if (rc < 0)
        return rc;
    uint8_t m[WL_META_LEN];
    fill_meta(0, m);
    rc = b2_schunk_meta_add(*out, "m", m, WL_META_LEN);
    if (rc < 0) {
        b2_schunk_free(*out);
        *out = NULL;
    }
    return rc < 0 ? rc : 0;
}

/* ---- reading a frame back ---- */

#define BAD(...) (snprintf(msg, cap, __VA_ARGS__), 1)

int wl_observe(b2_schunk *s, wl_state *st, char *msg, size_t cap)
{
    uint8_t got[WL_CHUNK], want[WL_CHUNK], *c;
    int32_t len;
    st->n = 0;
    *msg = 0;
    int64_t n = b2_schunk_nchunks(s);
    reserve(st, n);
    for (int64_t i = 0; i < n; i++) {
        int nb = b2_schunk_chunk_nbytes(s, i);
        if (nb < 0 || nb > WL_CHUNK || nb % 4) {
            if (nb < 0)
                return snprintf(msg, cap, "chunk %lld: %s", (long long)i, b2_schunk_last_error(s)), nb;
            return BAD("chunk %lld has %d bytes", (long long)i, nb);
        }
        int rc = b2_schunk_decompress_chunk(s, i, got, sizeof got);
        if (rc < 0)
            return snprintf(msg, cap, "chunk %lld: %s", (long long)i, b2_schunk_last_error(s)), rc;
        uint32_t tag;
        int32_t size;
        memcpy(&tag, got, 4);
        memcpy(&size, got + 4, 4);
        if (tag == 0) {
            memset(want, 0, (size_t)nb);
        } else {
            if (size != nb)
                return BAD("chunk %lld (tag %u) says %d bytes, holds %d", (long long)i,
                           (unsigned)tag, (int)size, nb);
            fill_chunk(tag, nb, want);
        }
        if (rc != nb || memcmp(got, want, (size_t)nb))
            return BAD("chunk %lld (tag %u): content differs from what its tag says", (long long)i,
                       (unsigned)tag);
        st->c[i].tag = tag;
        st->c[i].nbytes = nb;
        st->n++;
    }
    int rc = b2_schunk_meta_get(s, "m", &c, &len);
    if (rc < 0)
        return snprintf(msg, cap, "metalayer: %s", b2_schunk_last_error(s)), rc;
    uint8_t m[WL_META_LEN];
    memcpy(&st->meta, c, 4);
    fill_meta(st->meta, m);
    int ok = len == WL_META_LEN && !memcmp(c, m, WL_META_LEN);
    free(c);
    if (!ok || b2_schunk_meta_count(s) != 1)
        return BAD("metalayer m is not what its tag says (or other metalayers exist)");
    int nvl = 0;
    for (int v = 0; v < WL_NVL; v++) {
        st->vl[v] = 0;
        rc = b2_schunk_vlmeta_get(s, vl_names[v], &c, &len);
        if (rc == B2_ERR_NOT_FOUND)
            continue;
        if (rc < 0)
            return snprintf(msg, cap, "vlmetalayer %s: %s", vl_names[v], b2_schunk_last_error(s)), rc;
        uint8_t w[64];
        ok = len >= 4;
        if (ok) {
            memcpy(&st->vl[v], c, 4);
            ok = st->vl[v] != 0 && fill_vl(st->vl[v], w) == len && !memcmp(c, w, (size_t)len);
        }
        free(c);
        if (!ok)
            return BAD("vlmetalayer %s is not what its tag says", vl_names[v]);
        nvl++;
    }
    if (b2_schunk_vlmeta_count(s) != nvl)
        return BAD("%d vlmetalayers, %d known", b2_schunk_vlmeta_count(s), nvl);
    return 0;
}

int wl_observe_path(const char *path, wl_state *st, char *msg, size_t cap)
{
    b2_schunk *s;
    int rc = t_open(path, B2_OPEN_READONLY, &s);
    if (rc < 0) {
        snprintf(msg, cap, "open: %s", b2_last_error_message());
        return rc;
    }
    rc = wl_observe(s, st, msg, cap);
    b2_schunk_free(s);
    return rc;
}
