/* SPDX-License-Identifier: BSD-3-Clause */
/* Orthogonal selections of a b2nd array, NumPy's np.ix_ indexing: one list of
 * indices per dimension, in any order, duplicates allowed, negative indices
 * counted from the end. The selection is the Cartesian product of the lists;
 * the caller's buffer holds it in C order, with shape nsel.
 *
 * Each list is sorted once by index (equal indices keep their list order),
 * which groups it by chunk and, inside a chunk, by block. A chunk's share of the
 * selection is then one range of every sorted list. Reads decode only the blocks
 * those ranges meet, into slots of one chunk-sized buffer, and gather the items.
 * Writes decode the chunk, scatter the items and recompress it; a repeated index
 * keeps the value written last in C order of the caller's buffer, as NumPy's
 * assignment does. */
#include <stdlib.h>
#include <string.h>

#include "b2nd_internal.h"

/* One entry of a dimension's list, with its share of every offset. */
typedef struct sel_item {
    int64_t idx;   /* index in the array (made non-negative) */
    int64_t pos;   /* position in the caller's list */
    int64_t chunk; /* idx / chunkshape */
    int64_t bpart; /* block coordinate times the block-number stride */
    int64_t ipart; /* item offset inside the block, times its stride */
    int64_t upart; /* pos times the caller's buffer stride */
} sel_item;

typedef struct selection {
    int nd;
    sel_item *it[B2_ND_MAX_DIM];
    int64_t n[B2_ND_MAX_DIM];
} selection;

static int item_cmp(const void *x, const void *y)
{
    const sel_item *a = x, *b = y;
    if (a->idx != b->idx)
        return a->idx < b->idx ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static void selection_free(selection *s)
{
    for (int d = 0; d < s->nd; d++)
        free(s->it[d]);
}

/* Check and sort the lists; *nbytes is the selection's size in the buffer. */
static int selection_init(const b2_nd_geom *g, const int64_t *const *sel, const int64_t *nsel,
                          selection *s, int64_t *nbytes)
{
    memset(s, 0, sizeof *s);
    B2_FAIL_IF(!sel || !nsel, B2_ERR_INVALID_PARAM, "%s is NULL", !sel ? "selection" : "nsel");
    int64_t total = g->typesize, ustr = 1;
    for (int d = 0; d < g->ndim; d++) {
        B2_FAIL_IF(nsel[d] < 0 || (nsel[d] && !sel[d]), B2_ERR_INVALID_PARAM,
                   "dimension %d: %lld indices at %p", d, (long long)nsel[d], (const void *)sel[d]);
        B2_FAIL_IF(b2_nd_mul_checked(total, nsel[d], INT64_MAX, &total) < 0, B2_ERR_DOES_NOT_FIT,
                   "a selection of more than 2^63 bytes");
    }
    s->nd = g->ndim;
    int64_t bnstr = 1;
    for (int d = g->ndim - 1; d >= 0; d--) {
        int64_t n = nsel[d], cs = g->chunkshape[d], bs = g->blockshape[d], istr = 1;
        for (int e = d + 1; e < g->ndim; e++)
            istr *= g->blockshape[e];
        s->n[d] = n;
        if (n && !(s->it[d] = malloc((size_t)n * sizeof(sel_item)))) {
            selection_free(s);
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        }
        for (int64_t k = 0; k < n; k++) {
            int64_t v = sel[d][k] < 0 ? sel[d][k] + g->shape[d] : sel[d][k];
            if (v < 0 || v >= g->shape[d]) {
                selection_free(s);
                return B2_FAIL(B2_ERR_RANGE, "dimension %d: index %lld outside [-%lld, %lld)", d,
                               (long long)sel[d][k], (long long)g->shape[d],
                               (long long)g->shape[d]);
            }
            int64_t local = v % cs;
            s->it[d][k] = (sel_item){.idx = v, .pos = k, .chunk = v / cs,
                                     .bpart = local / bs * bnstr, .ipart = local % bs * istr,
                                     .upart = k * ustr};
        }
        if (n > 1)
            qsort(s->it[d], (size_t)n, sizeof(sel_item), item_cmp);
        ustr *= n;
        bnstr *= g->blocks_in_chunk[d];
    }
    *nbytes = total;
    return B2_OK;
}

/* selection_init for a call with the caller's buffer buf of len bytes (writes:
 * exactly the selection's size; reads: at least), and one chunk of memory to
 * spend; on failure nothing is left to free. */
static int selection_open(b2_nd_array *a, const int64_t *const *sel, const int64_t *nsel,
                          const void *buf, size_t len, int write, selection *s)
{
    int64_t nbytes;
    int rc = selection_init(&a->g, sel, nsel, s, &nbytes);
    if (rc < 0)
        return rc;
    if (write ? (uint64_t)nbytes != len : (uint64_t)nbytes > len)
        rc = B2_FAIL(write ? B2_ERR_INVALID_PARAM : B2_ERR_DST_TOO_SMALL,
                     "selection of %lld bytes, %s has %zu", (long long)nbytes, write ? "src" : "dst", len);
    else if (!buf && nbytes)
        rc = B2_FAIL(B2_ERR_INVALID_PARAM, "%s is NULL", write ? "src" : "dst");
    else
        rc = b2_mem_check(a->mem_limit, a->g.chunk_bytes,
                          write ? "rewriting a chunk" : "decoding the selected blocks of a chunk",
                          "b2_nd_set_memory_limit");
    if (rc < 0)
        selection_free(s);
    return rc;
}

/* The chunk the ranges [lo[d], hi[d]) of every list meet; advance them to the
 * next chunk in C order of the chunk grid. first: set up the first chunk. */
static int next_chunk(const selection *s, int64_t *lo, int64_t *hi, int first)
{
    int d = s->nd - 1;
    if (!first) {
        for (; d >= 0; d--) {
            lo[d] = hi[d];
            if (lo[d] < s->n[d])
                break;
            lo[d] = 0;
        }
        if (d < 0)
            return 0;
    } else {
        for (int e = 0; e < s->nd; e++)
            if (s->n[e] == 0)
                return 0;
        for (int e = 0; e < s->nd; e++)
            lo[e] = 0;
        d = 0;
    }
    for (int e = d; e < s->nd; e++) {
        int64_t c = s->it[e][lo[e]].chunk, h = lo[e] + 1;
        while (h < s->n[e] && s->it[e][h].chunk == c)
            h++;
        hi[e] = h;
    }
    return 1;
}

static int64_t chunk_number(const b2_nd_geom *g, const selection *s, const int64_t *lo)
{
    int64_t n = 0;
    for (int d = 0; d < g->ndim; d++)
        n = n * g->chunks_in_array[d] + s->it[d][lo[d]].chunk;
    return n;
}

/* Visit every item of the chunk's share in C order: fn(ud, block number, item
 * offset inside the block, offset in the caller's buffer), offsets in items. */
typedef void (*item_fn)(void *ud, int64_t block, int64_t ioff, int64_t uoff);

static void each_item(const selection *s, const int64_t *lo, const int64_t *hi, item_fn fn, void *ud)
{
    int nd = s->nd;
    if (nd == 0) {
        fn(ud, 0, 0, 0);
        return;
    }
    int64_t k[B2_ND_MAX_DIM], b[B2_ND_MAX_DIM + 1] = {0}, i[B2_ND_MAX_DIM + 1] = {0},
            u[B2_ND_MAX_DIM + 1] = {0};
    int d = 0;
    k[0] = lo[0];
    for (;;) {
        /* prefix sums of dimensions 0..d from k[0..d] */
        for (; d < nd - 1; d++) {
            const sel_item *e = &s->it[d][k[d]];
            b[d + 1] = b[d] + e->bpart;
            i[d + 1] = i[d] + e->ipart;
            u[d + 1] = u[d] + e->upart;
            k[d + 1] = lo[d + 1];
        }
        const sel_item *e = s->it[nd - 1];
        for (int64_t j = lo[nd - 1]; j < hi[nd - 1]; j++)
            fn(ud, b[nd - 1] + e[j].bpart, i[nd - 1] + e[j].ipart, u[nd - 1] + e[j].upart);
        for (d = nd - 2; d >= 0 && ++k[d] >= hi[d]; d--)
            ;
        if (d < 0)
            return;
    }
}

/* ---- reading ---- */

typedef struct gather_ctx {
    size_t ts;
    int32_t block_bytes;
    int32_t *slot;   /* block number -> slot in buf */
    uint8_t *buf;    /* decoded blocks, one slot each */
    uint8_t *dst;
} gather_ctx;

static void gather_item(void *ud, int64_t block, int64_t ioff, int64_t uoff)
{
    gather_ctx *c = ud;
    memcpy(c->dst + uoff * (int64_t)c->ts,
           c->buf + (int64_t)c->slot[block] * c->block_bytes + ioff * (int64_t)c->ts, c->ts);
}

/* b2_block_rows_fn: block k goes whole into its slot. */
static int slot_rows(void *ud, int32_t k, b2_block_rows *r)
{
    gather_ctx *c = ud;
    r->nd = 0;
    r->run = c->block_bytes;
    r->user = c->buf + (int64_t)c->slot[k] * c->block_bytes;
    return B2_OK;
}

/* The blocks the chunk's share meets, in C order, into list; their count. The
 * lists are sorted, so a dimension's distinct block coordinates are adjacent;
 * the product is built one dimension at a time. */
static int32_t touched_blocks(const selection *s, const int64_t *lo, const int64_t *hi, int32_t *list)
{
    int32_t n = 1;
    list[0] = 0;
    for (int d = 0; d < s->nd; d++) {
        const sel_item *e = s->it[d];
        int32_t ndist = 0;
        for (int64_t j = lo[d]; j < hi[d]; j++)
            ndist += j == lo[d] || e[j].bpart != e[j - 1].bpart;
        /* entry q becomes entries q*ndist .. q*ndist+ndist-1: from the back, so
         * no entry is overwritten before it is read */
        for (int32_t q = n - 1; q >= 0; q--) {
            int32_t base = list[q], r = ndist;
            for (int64_t j = hi[d] - 1; j >= lo[d]; j--)
                if (j == lo[d] || e[j].bpart != e[j - 1].bpart)
                    list[q * ndist + --r] = base + (int32_t)e[j].bpart;
        }
        n *= ndist;
    }
    return n;
}

int b2_nd_get_orthogonal_selection_body(b2_nd_array *a, const int64_t *const *sel,
                                        const int64_t *nsel, void *dst, size_t cap)
{
    B2_FAIL_IF(!a, B2_ERR_INVALID_PARAM, "array is NULL");
    const b2_nd_geom *g = &a->g;
    selection s;
    int rc = selection_open(a, sel, nsel, dst, cap, 0, &s);
    if (rc < 0)
        return rc;
    gather_ctx c = {.ts = (size_t)g->typesize, .block_bytes = g->block_bytes, .dst = dst};
    int32_t *list = malloc((size_t)g->nblocks * sizeof *list);
    c.slot = malloc((size_t)g->nblocks * sizeof *c.slot);
    c.buf = malloc((size_t)g->chunk_bytes);
    nd_reader x;
    if (!list || !c.slot || !c.buf)
        rc = B2_FAIL_CODE(B2_ERR_NOMEM);
    else
        rc = b2_nd_st_reader(a, &x);
    if (rc < 0) {
        free(list);
        free(c.slot);
        free(c.buf);
        selection_free(&s);
        return rc;
    }
    int64_t lo[B2_ND_MAX_DIM], hi[B2_ND_MAX_DIM];
    for (int more = next_chunk(&s, lo, hi, 1); more && rc >= 0; more = next_chunk(&s, lo, hi, 0)) {
        int64_t nchunk = chunk_number(g, &s, lo);
        int sp = b2_nd_st_chunk_special(a, nchunk);
        if (sp < 0) {
            rc = sp;
        } else if (sp != B2_SPECIAL_NONE && !a->post) {
            /* nothing to decode but a value: the whole chunk, block k in slot k */
            const uint8_t *chunk;
            int32_t cbytes;
            b2_chunk_info info;
            for (int32_t k = 0; k < g->nblocks; k++)
                c.slot[k] = k;
            rc = b2_nd_view_chunk(a, &x, nchunk, &chunk, &cbytes, &info);
            if (rc >= 0)
                rc = b2_chunk_decompress(x.d, chunk, (size_t)cbytes, c.buf, (size_t)g->chunk_bytes);
        } else {
            int32_t n = touched_blocks(&s, lo, hi, list);
            for (int32_t j = 0; j < n; j++)
                c.slot[list[j]] = j;
            rc = b2_nd_decode_blocks(a, &x, nchunk, n < g->nblocks ? list : NULL, n, slot_rows, &c);
        }
        if (rc >= 0)
            each_item(&s, lo, hi, gather_item, &c);
    }
    b2_nd_st_reader_done(a, &x);
    free(list);
    free(c.slot);
    free(c.buf);
    selection_free(&s);
    return rc < 0 ? rc : B2_OK;
}

/* ---- writing ---- */

typedef struct scatter_ctx {
    size_t ts;
    int32_t block_bytes;
    uint8_t *chunk;    /* the decoded chunk */
    const uint8_t *src;
} scatter_ctx;

static void scatter_item(void *ud, int64_t block, int64_t ioff, int64_t uoff)
{
    scatter_ctx *c = ud;
    memcpy(c->chunk + block * c->block_bytes + ioff * (int64_t)c->ts,
           c->src + uoff * (int64_t)c->ts, c->ts);
}

int b2_nd_set_orthogonal_selection_body(b2_nd_array *a, const int64_t *const *sel,
                                        const int64_t *nsel, const void *src, size_t len)
{
    B2_FAIL_IF(!a, B2_ERR_INVALID_PARAM, "array is NULL");
    const b2_nd_geom *g = &a->g;
    selection s;
    int rc = selection_open(a, sel, nsel, src, len, 1, &s);
    if (rc < 0)
        return rc;
    scatter_ctx c = {.ts = (size_t)g->typesize, .block_bytes = g->block_bytes, .src = src};
    if (!(c.chunk = malloc((size_t)g->chunk_bytes))) {
        selection_free(&s);
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    int64_t lo[B2_ND_MAX_DIM], hi[B2_ND_MAX_DIM];
    for (int more = next_chunk(&s, lo, hi, 1); more && rc >= 0; more = next_chunk(&s, lo, hi, 0)) {
        int64_t nchunk = chunk_number(g, &s, lo);
        const uint8_t *stored;
        int32_t cbytes;
        b2_chunk_info info;
        nd_reader x;
        if ((rc = b2_nd_st_reader(a, &x)) < 0)
            break;
        memset(c.chunk, 0, (size_t)g->chunk_bytes); /* uninit chunks leave it as is */
        if ((rc = b2_nd_view_chunk(a, &x, nchunk, &stored, &cbytes, &info)) >= 0)
            rc = b2_chunk_decompress(x.d, stored, (size_t)cbytes, c.chunk, (size_t)g->chunk_bytes);
        b2_nd_st_reader_done(a, &x);
        if (rc < 0)
            break;
        each_item(&s, lo, hi, scatter_item, &c);
        uint8_t *chunk;
        if ((rc = b2_nd_compress_chunk(a, c.chunk, &chunk, &cbytes)) < 0)
            break;
        rc = b2_nd_st_update_chunk(a, nchunk, chunk, cbytes);
        free(chunk);
    }
    free(c.chunk);
    selection_free(&s);
    return rc < 0 ? rc : B2_OK;
}
