/* SPDX-License-Identifier: BSD-3-Clause */
/* User filters and codecs (b2_plugin.h): a byte-reversing XOR filter and a
 * run-length codec registered in the process table and in a b2_registry, round
 * trips through every layer (chunk: whole, getitem, rows, split streams; frames
 * in memory, in a file and sparse; b2nd arrays in memory and on disk, reads and
 * writes), what the user functions are told (meta, typesize, block size, clevel,
 * geometry, user pointer), unregistered ids refused with the id in the message
 * on both sides, registration errors, and registration racing with use from
 * several threads. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "b2_chunk.h"
#include "b2_frame.h"
#include "b2_nd.h"
#include "check.h"
#include "b2_chunk_experimental.h"
#include "frame_open.h"
#include "b2_frame_experimental.h"
#include "b2_nd_experimental.h"
#include "b2_plugin_experimental.h"

#define NITEMS 30000 /* int32 items: 120000 bytes */
#define BLOCK 8192

static int has(const char *msg, const char *part) { return msg && strstr(msg, part) != NULL; }

/* What the user functions saw, one per registration (the user pointer). */
typedef struct seen {
    int calls;     /* atomic */
    int meta;      /* last meta byte */
    int geom_ndim; /* last geometry's ndim (0: none) */
    int bad;       /* some argument broke the contract */
} seen;

static void note(const b2_plugin_call *c, int ok)
{
    seen *s = c->user;
    __atomic_add_fetch(&s->calls, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&s->meta, c->meta, __ATOMIC_RELAXED);
    __atomic_store_n(&s->geom_ndim, c->geom ? c->geom->ndim : 0, __ATOMIC_RELAXED);
    if (!ok || c->typesize < 1 || c->typesize > 255 || c->id < 160 || c->id > 255)
        __atomic_store_n(&s->bad, 1, __ATOMIC_RELAXED);
}

/* ---- the filter: reverse the block, XOR every byte with the meta ---- */

static int rev_forward(const b2_plugin_call *c, const uint8_t *src, uint8_t *dst, int32_t n)
{
    note(c, n == c->blocksize && c->clevel == 0);
    for (int32_t i = 0; i < n; i++)
        dst[n - 1 - i] = src[i] ^ c->meta;
    return 0;
}

static int rev_backward(const b2_plugin_call *c, const uint8_t *src, uint8_t *dst, int32_t n)
{
    note(c, n == c->blocksize && c->clevel == 0);
    for (int32_t i = 0; i < n; i++)
        dst[i] = src[n - 1 - i] ^ c->meta;
    return 0;
}

/* A lossy filter: low nibbles dropped; decoding is a copy. */
static int nibble_forward(const b2_plugin_call *c, const uint8_t *src, uint8_t *dst, int32_t n)
{
    (void)c;
    for (int32_t i = 0; i < n; i++)
        dst[i] = src[i] & 0xF0;
    return 0;
}

static int copy_backward(const b2_plugin_call *c, const uint8_t *src, uint8_t *dst, int32_t n)
{
    (void)c;
    memcpy(dst, src, (size_t)n);
    return 0;
}

static int failing_filter(const b2_plugin_call *c, const uint8_t *src, uint8_t *dst, int32_t n)
{
    (void)c, (void)src, (void)dst, (void)n;
    return -1234;
}

/* ---- the codec: (count, byte) pairs ---- */

static int rle_compress(const b2_plugin_call *c, const uint8_t *src, int32_t srclen, uint8_t *dst,
                        int32_t dstcap)
{
    note(c, srclen <= c->blocksize && c->clevel >= 1 && c->clevel <= 9);
    int32_t o = 0;
    for (int32_t i = 0; i < srclen;) {
        int run = 1;
        while (i + run < srclen && src[i + run] == src[i] && run < 255)
            run++;
        if (o + 2 > dstcap)
            return 0; /* does not fit: stored raw */
        dst[o++] = (uint8_t)run;
        dst[o++] = src[i];
        i += run;
    }
    return o;
}

static int rle_decompress(const b2_plugin_call *c, const uint8_t *src, int32_t srclen,
                          uint8_t *dst, int32_t dstlen)
{
    note(c, dstlen <= c->blocksize && c->clevel == 0);
    int32_t o = 0;
    if (srclen % 2)
        return B2_ERR_CORRUPT;
    for (int32_t i = 0; i < srclen; i += 2) {
        if (src[i] == 0 || o + src[i] > dstlen)
            return B2_ERR_CORRUPT;
        memset(dst + o, src[i + 1], src[i]);
        o += src[i];
    }
    return o;
}

static int failing_codec(const b2_plugin_call *c, const uint8_t *src, int32_t srclen,
                         uint8_t *dst, int32_t dstcap)
{
    (void)c, (void)src, (void)srclen, (void)dst, (void)dstcap;
    return -777;
}

/* Ids of the process-table pair and the per-context pair. */
enum { P_CODEC = 200, P_FILTER = 201, R_CODEC = 170, R_FILTER = 171 };
static seen p_codec_seen, p_filter_seen, r_codec_seen, r_filter_seen;

/* Runs of equal int32 values: RLE-friendly once shuffled. */
static int32_t *make_data(int n)
{
    int32_t *d = malloc((size_t)n * sizeof *d);
    for (int i = 0; d && i < n; i++)
        d[i] = i / 40 + (i % 997 == 0 ? 12345 : 0);
    return d;
}

static void user_cparams(b2_cparams *p, int codec, int filter, const b2_registry *reg)
{
    b2_cparams_init(p);
    p->codec = codec;
    p->codec_meta = 7;
    p->typesize = 4;
    p->blocksize = BLOCK;
    memset(p->filters, 0, sizeof p->filters);
    p->filters[4] = (uint8_t)filter;
    p->filters_meta[4] = 0x5A;
    p->filters[5] = B2_FILTER_SHUFFLE;
    p->registry = reg;
}

/* Rows callback for b2_chunk_decompress_rows: block j goes to its place in dst. */
typedef struct rows_ud {
    uint8_t *dst;
    int32_t nbytes, blocksize;
} rows_ud;

static int rows_fn(void *ud, int32_t block, b2_block_rows *r)
{
    rows_ud *u = ud;
    int64_t off = (int64_t)block * u->blocksize;
    r->run = u->nbytes - off < u->blocksize ? u->nbytes - off : u->blocksize;
    r->user = u->dst + off;
    return B2_OK;
}

/* Compress with p, check the header, and decode it back every way through d. */
static void chunk_roundtrip(const char *what, const b2_cparams *p, b2_dctx *d, int nthreads)
{
    int32_t *src = make_data(NITEMS), *back = calloc(NITEMS, 4);
    size_t nbytes = NITEMS * 4, cap = b2_chunk_compress_bound(nbytes);
    uint8_t *chunk = malloc(cap);
    b2_cparams q = *p;
    q.nthreads = nthreads;
    b2_cctx *c = b2_cctx_new(&q);
    CHECK(c != NULL, "%s: cctx: %s", what, b2_last_error_message());
    int cb = c ? b2_chunk_compress(c, src, nbytes, chunk, cap) : -1;
    CHECK(cb > 0 && cb < (int)nbytes / 4, "%s: compressed to %d bytes (%s)", what, cb,
          b2_cctx_last_error(c));
    b2_chunk_info ci;
    CHECK(cb > 0 && b2_chunk_get_info(chunk, (size_t)cb, &ci) == B2_OK && ci.codec_format == 6 &&
              ci.compcode == p->codec && ci.compcode_meta == 7 && ci.filters[4] == p->filters[4] &&
              ci.filters_meta[4] == 0x5A && !ci.memcpyed &&
              ci.split == (p->splitmode == B2_SPLIT_ALWAYS),
          "%s: header (format %d, codec %d/%d, split %d)", what, ci.codec_format, ci.compcode,
          ci.compcode_meta, ci.split);
    CHECK(b2_chunk_decompress(d, chunk, (size_t)cb, back, nbytes) == (int)nbytes &&
              !memcmp(src, back, nbytes),
          "%s: decompress (%s)", what, b2_dctx_last_error(d));
    int32_t part[5000];
    CHECK(b2_chunk_getitem(d, chunk, (size_t)cb, 1500, 5000, part, sizeof part) == 20000 &&
              !memcmp(part, src + 1500, sizeof part),
          "%s: getitem (%s)", what, b2_dctx_last_error(d));
    memset(back, 0, nbytes);
    rows_ud u = {(uint8_t *)back, (int32_t)nbytes, ci.blocksize};
    CHECK(b2_chunk_decompress_rows(d, chunk, (size_t)cb, NULL, 0, rows_fn, &u) == B2_OK &&
              !memcmp(src, back, nbytes),
          "%s: rows (%s)", what, b2_dctx_last_error(d));
    b2_cctx_free(c);
    free(chunk);
    free(back);
    free(src);
}

static void test_registration(void)
{
    b2_user_codec uc = {P_CODEC, "rle", rle_compress, rle_decompress, &p_codec_seen};
    b2_user_filter uf = {P_FILTER, "revxor", rev_forward, rev_backward, &p_filter_seen};
    CHECK(b2_register_codec(&uc) == B2_OK, "codec: %s", b2_last_error_message());
    CHECK(b2_register_filter(&uf) == B2_OK, "filter: %s", b2_last_error_message());
    CHECK(b2_register_codec(&uc) == B2_OK && b2_register_filter(&uf) == B2_OK,
          "registering the identical entry again");
    b2_user_codec other = uc;
    other.user = &r_codec_seen;
    CHECK(b2_register_codec(&other) == B2_ERR_EXISTS &&
              has(b2_last_error_message(), "user codec 200 is already registered as 'rle'"),
          "same id, other entry: %s", b2_last_error_message());
    other = uc;
    other.id = 202;
    CHECK(b2_register_codec(&other) == B2_ERR_EXISTS && has(b2_last_error_message(), "'rle'"),
          "same name, other id: %s", b2_last_error_message());
    other.name = "zstd";
    CHECK(b2_register_codec(&other) == B2_ERR_EXISTS && has(b2_last_error_message(), "codec 5"),
          "a built-in codec's name: %s", b2_last_error_message());
    b2_user_filter of = uf;
    of.id = 203;
    of.name = "ndcell";
    CHECK(b2_register_filter(&of) == B2_ERR_EXISTS, "a plugin filter's name");
    static const int bad_ids[] = {0, 5, 32, 159, 256, -1};
    for (size_t i = 0; i < sizeof bad_ids / sizeof *bad_ids; i++) {
        other = uc;
        other.id = bad_ids[i];
        CHECK(b2_register_codec(&other) == B2_ERR_INVALID_PARAM &&
                  has(b2_last_error_message(), "160..255"),
              "codec id %d: %s", bad_ids[i], b2_last_error_message());
        of = uf;
        of.id = bad_ids[i];
        CHECK(b2_register_filter(&of) == B2_ERR_INVALID_PARAM, "filter id %d", bad_ids[i]);
    }
    other = uc;
    other.id = 204;
    other.decompress = NULL;
    CHECK(b2_register_codec(&other) == B2_ERR_INVALID_PARAM &&
              has(b2_last_error_message(), "NULL"),
          "NULL decompress: %s", b2_last_error_message());
    of = uf;
    of.id = 204;
    of.forward = NULL;
    CHECK(b2_register_filter(&of) == B2_ERR_INVALID_PARAM, "NULL forward");
    of.forward = rev_forward;
    of.backward = NULL;
    CHECK(b2_register_filter(&of) == B2_ERR_INVALID_PARAM, "NULL backward");
    of.backward = rev_backward;
    of.name = NULL;
    CHECK(b2_register_filter(&of) == B2_ERR_INVALID_PARAM, "NULL name");
    of.name = "";
    CHECK(b2_register_filter(&of) == B2_ERR_INVALID_PARAM, "empty name");
    of.name = "a-name-longer-than-thirty-one-bytes";
    CHECK(b2_register_filter(&of) == B2_ERR_INVALID_PARAM, "long name");
    CHECK(b2_register_filter(NULL) == B2_ERR_INVALID_PARAM &&
              b2_register_codec(NULL) == B2_ERR_INVALID_PARAM,
          "NULL entries");

    /* names: the process table is visible to b2_*_name, a registry only through its own */
    CHECK(b2_codec_name(P_CODEC) && !strcmp(b2_codec_name(P_CODEC), "rle") &&
              b2_codec_from_name("rle") == P_CODEC,
          "process codec name");
    CHECK(b2_filter_name(P_FILTER) && !strcmp(b2_filter_name(P_FILTER), "revxor") &&
              b2_filter_from_name("revxor") == P_FILTER,
          "process filter name");
    CHECK(b2_codec_name(204) == NULL && b2_filter_name(204) == NULL, "unregistered ids have no name");

    b2_registry *r = b2_registry_new();
    b2_user_codec rc = {R_CODEC, "rle_ctx", rle_compress, rle_decompress, &r_codec_seen};
    b2_user_filter rf = {R_FILTER, "revxor_ctx", rev_forward, rev_backward, &r_filter_seen};
    CHECK(b2_registry_add_codec(r, &rc) == B2_OK && b2_registry_add_filter(r, &rf) == B2_OK,
          "registry adds: %s", b2_last_error_message());
    rc.user = NULL;
    CHECK(b2_registry_add_codec(r, &rc) == B2_ERR_EXISTS, "registry: same id, other entry");
    rc.id = 300;
    CHECK(b2_registry_add_codec(r, &rc) == B2_ERR_INVALID_PARAM, "registry: id 300");
    CHECK(b2_registry_add_codec(NULL, &uc) == B2_ERR_INVALID_PARAM, "NULL registry");
    /* a registry may reuse a process id and name: it shadows the process entry */
    CHECK(b2_registry_add_codec(r, &uc) == B2_OK, "registry holds a process id too");
    CHECK(!strcmp(b2_registry_codec_name(r, R_CODEC), "rle_ctx") &&
              !strcmp(b2_registry_filter_name(r, R_FILTER), "revxor_ctx") &&
              !strcmp(b2_registry_codec_name(r, B2_CODEC_ZSTD), "zstd") &&
              !strcmp(b2_registry_codec_name(NULL, P_CODEC), "rle") &&
              b2_codec_name(R_CODEC) == NULL && b2_registry_codec_name(r, 250) == NULL,
          "registry names");
    b2_registry_free(r);
    b2_registry_free(NULL);
}

static void test_chunks(void)
{
    b2_cparams p;
    b2_dctx *d = b2_dctx_new(1), *d3 = b2_dctx_new(3);
    user_cparams(&p, P_CODEC, P_FILTER, NULL);
    int calls = p_codec_seen.calls;
    chunk_roundtrip("process", &p, d, 1);
    chunk_roundtrip("process, 3 threads", &p, d3, 3);
    CHECK(p_codec_seen.calls > calls && p_filter_seen.calls > 0 && p_codec_seen.meta == 7 &&
              p_filter_seen.meta == 0x5A && !p_codec_seen.bad && !p_filter_seen.bad &&
              p_codec_seen.geom_ndim == 0,
          "process functions: calls %d/%d, meta %d/%d, bad %d/%d", p_codec_seen.calls,
          p_filter_seen.calls, p_codec_seen.meta, p_filter_seen.meta, p_codec_seen.bad,
          p_filter_seen.bad);
    p.splitmode = B2_SPLIT_ALWAYS;
    chunk_roundtrip("process, split", &p, d, 1);

    b2_registry *r = b2_registry_new();
    b2_user_codec rc = {R_CODEC, "rle_ctx", rle_compress, rle_decompress, &r_codec_seen};
    b2_user_filter rf = {R_FILTER, "revxor_ctx", rev_forward, rev_backward, &r_filter_seen};
    b2_registry_add_codec(r, &rc);
    b2_registry_add_filter(r, &rf);
    user_cparams(&p, R_CODEC, R_FILTER, r);
    b2_dctx_set_registry(d, r);
    b2_dctx_set_registry(d3, r);
    chunk_roundtrip("registry", &p, d, 1);
    chunk_roundtrip("registry, 3 threads", &p, d3, 3);
    CHECK(r_codec_seen.calls > 0 && r_filter_seen.calls > 0 && !r_codec_seen.bad &&
              !r_filter_seen.bad,
          "registry functions called (%d, %d)", r_codec_seen.calls, r_filter_seen.calls);
    /* the registry comes first: its 200 shadows the process table's */
    b2_user_codec shadow = {P_CODEC, "rle_shadow", rle_compress, rle_decompress, &r_codec_seen};
    b2_registry_add_codec(r, &shadow);
    user_cparams(&p, P_CODEC, P_FILTER, r);
    int pc = p_codec_seen.calls, rcalls = r_codec_seen.calls;
    chunk_roundtrip("shadowed", &p, d, 1);
    CHECK(p_codec_seen.calls == pc && r_codec_seen.calls > rcalls,
          "registry entry used before the process one");
    b2_dctx_free(d3);

    /* unregistered ids: refused on both sides, naming the id */
    b2_dctx *plain = b2_dctx_new(1);
    user_cparams(&p, 250, P_FILTER, NULL);
    CHECK(b2_cparams_check(&p) == B2_ERR_UNSUPPORTED &&
              has(b2_last_error_message(), "codec id 250 is not registered"),
          "encode, codec 250: %s", b2_last_error_message());
    CHECK(b2_cctx_new(&p) == NULL && has(b2_last_error_message(), "250"), "cctx, codec 250");
    user_cparams(&p, P_CODEC, 251, NULL);
    CHECK(b2_cparams_check(&p) == B2_ERR_UNSUPPORTED &&
              has(b2_last_error_message(), "filter id 251 in slot 4 is not registered"),
          "encode, filter 251: %s", b2_last_error_message());
    user_cparams(&p, R_CODEC, P_FILTER, NULL); /* only in the registry */
    CHECK(b2_cparams_check(&p) == B2_ERR_UNSUPPORTED, "registry ids unseen without it");
    p.codec = 42;
    CHECK(b2_cparams_check(&p) == B2_ERR_BAD_CODEC, "codec 42 is still a bad codec");

    int32_t *src = make_data(NITEMS), *back = malloc(NITEMS * 4);
    size_t nbytes = NITEMS * 4, cap = b2_chunk_compress_bound(nbytes);
    uint8_t *chunk = malloc(cap);
    user_cparams(&p, R_CODEC, R_FILTER, r);
    b2_cctx *c = b2_cctx_new(&p);
    int cb = b2_chunk_compress(c, src, nbytes, chunk, cap);
    CHECK(b2_chunk_decompress(plain, chunk, (size_t)cb, back, nbytes) == B2_ERR_UNSUPPORTED &&
              has(b2_last_error_message(), "codec id 170 is not registered") &&
              has(b2_dctx_last_error(plain), "codec id 170"),
          "decode, codec 170: %s", b2_last_error_message());
    CHECK(b2_chunk_getitem(plain, chunk, (size_t)cb, 0, 10, back, nbytes) == B2_ERR_UNSUPPORTED &&
              has(b2_last_error_message(), "codec id 170"),
          "getitem, codec 170");
    rows_ud u = {(uint8_t *)back, (int32_t)nbytes, BLOCK};
    CHECK(b2_chunk_decompress_rows(plain, chunk, (size_t)cb, NULL, 0, rows_fn, &u) ==
                  B2_ERR_UNSUPPORTED,
          "rows, codec 170");
    /* the filter alone unknown: patch the codec to the process one */
    b2_cctx_free(c);
    user_cparams(&p, P_CODEC, R_FILTER, r);
    c = b2_cctx_new(&p);
    cb = b2_chunk_compress(c, src, nbytes, chunk, cap);
    CHECK(b2_chunk_decompress(plain, chunk, (size_t)cb, back, nbytes) == B2_ERR_UNSUPPORTED &&
              has(b2_last_error_message(), "filter id 171 in slot 4 is not registered"),
          "decode, filter 171: %s", b2_last_error_message());

    /* a lossy user filter before delta: blocks >= 1 are deltas against the block
     * 0 a decoder rebuilds, so the chunk decodes to the filtered data */
    b2_user_filter lossy = {182, "nibbles", nibble_forward, copy_backward, NULL};
    b2_registry_add_filter(r, &lossy);
    user_cparams(&p, B2_CODEC_LZ4, 182, r);
    p.filters[3] = 182;
    p.filters[4] = B2_FILTER_DELTA;
    b2_cctx_free(c);
    c = b2_cctx_new(&p);
    cb = b2_chunk_compress(c, src, nbytes, chunk, cap);
    int same = cb > 0 && b2_chunk_decompress(d, chunk, (size_t)cb, back, nbytes) == (int)nbytes;
    for (size_t i = 0; same && i < nbytes; i++)
        same = ((uint8_t *)back)[i] == (((uint8_t *)src)[i] & 0xF0);
    CHECK(same, "lossy user filter before delta decodes to the filtered data");

    /* a failing user function is an error, never a silent memcpy chunk */
    b2_user_codec fc = {180, "failing", failing_codec, rle_decompress, NULL};
    b2_user_filter ff = {181, "failing_f", failing_filter, failing_filter, NULL};
    b2_registry_add_codec(r, &fc);
    b2_registry_add_filter(r, &ff);
    b2_cctx_free(c);
    user_cparams(&p, 180, 0, r);
    c = b2_cctx_new(&p);
    CHECK(b2_chunk_compress(c, src, nbytes, chunk, cap) == B2_ERR_CODEC &&
              has(b2_cctx_last_error(c), "user codec 180 (failing) compress returned -777"),
          "failing codec: %s", b2_cctx_last_error(c));
    b2_cctx_free(c);
    user_cparams(&p, B2_CODEC_LZ4, 181, r);
    c = b2_cctx_new(&p);
    CHECK(b2_chunk_compress(c, src, nbytes, chunk, cap) == B2_ERR_FILTER &&
              has(b2_cctx_last_error(c), "user filter 181 (failing_f) forward returned -1234"),
          "failing filter: %s", b2_cctx_last_error(c));
    /* corrupt user-codec stream: the codec's own error reaches the caller */
    b2_cctx_free(c);
    user_cparams(&p, R_CODEC, 0, r);
    c = b2_cctx_new(&p);
    cb = b2_chunk_compress(c, src, nbytes, chunk, cap);
    chunk[32 + 4 * ((NITEMS * 4 + BLOCK - 1) / BLOCK) + 4] = 0; /* first run count of block 0 */
    CHECK(b2_chunk_decompress(d, chunk, (size_t)cb, back, nbytes) == B2_ERR_CORRUPT &&
              has(b2_dctx_last_error(d), "user codec 170 (rle_ctx) decompress returned"),
          "corrupt stream: %s", b2_dctx_last_error(d));
    b2_cctx_free(c);
    free(chunk);
    free(src);
    free(back);
    b2_dctx_free(plain);
    b2_dctx_free(d);
    b2_registry_free(r);
}

/* Append NCH chunks of make_data to s. */
#define NCH 3
static int fill_schunk(b2_schunk *s, const int32_t *src)
{
    for (int i = 0; i < NCH; i++)
        if (b2_schunk_append_buffer(s, src, NITEMS * 4) != i + 1)
            return -1;
    return 0;
}

static int check_schunk(b2_schunk *s, const int32_t *src)
{
    int32_t *back = malloc(NITEMS * 4);
    int ok = b2_schunk_nchunks(s) == NCH;
    for (int i = 0; ok && i < NCH; i++)
        ok = b2_schunk_decompress_chunk(s, i, back, NITEMS * 4) == NITEMS * 4 &&
             !memcmp(back, src, NITEMS * 4);
    ok = ok && b2_schunk_get_items(s, NITEMS - 100, 300, back, 1200) == 1200 &&
         !memcmp(back, src + NITEMS - 100, 400) && !memcmp(back + 100, src, 800);
    free(back);
    return ok;
}

static void test_frames(const char *dir)
{
    int32_t *src = make_data(NITEMS);
    b2_registry *r = b2_registry_new();
    b2_user_codec rc = {R_CODEC, "rle_ctx", rle_compress, rle_decompress, &r_codec_seen};
    b2_user_filter rf = {R_FILTER, "revxor_ctx", rev_forward, rev_backward, &r_filter_seen};
    b2_registry_add_codec(r, &rc);
    b2_registry_add_filter(r, &rf);
    b2_cparams p;

    /* process table: nothing to attach anywhere */
    user_cparams(&p, P_CODEC, P_FILTER, NULL);
    b2_schunk *s = t_new(&p);
    CHECK(s && fill_schunk(s, src) == 0 && check_schunk(s, src), "process: memory frame");
    uint8_t *buf = NULL;
    size_t len = 0;
    CHECK(b2_schunk_to_buffer(s, &buf, &len) == B2_OK && len > 87 && (buf[27] & 0x0f) == 6 &&
              buf[77] == P_CODEC && buf[78] == 7,
          "frame header: codec flags 0x%02x, udcodec %d", buf ? buf[27] : 0, buf ? buf[77] : 0);
    b2_schunk_free(s);
    CHECK(t_open_buffer(buf, len, 0, &s) == B2_OK && check_schunk(s, src) &&
              b2_schunk_cparams(s)->codec == P_CODEC,
          "process: reopened frame");
    b2_schunk_free(s);
    free(buf);

    /* registry: in memory, reopened without and with it */
    user_cparams(&p, R_CODEC, R_FILTER, r);
    s = t_new(&p);
    CHECK(s && fill_schunk(s, src) == 0 && check_schunk(s, src), "registry: memory frame (%s)",
          s ? b2_schunk_last_error(s) : "");
    b2_schunk_to_buffer(s, &buf, &len);
    b2_schunk_free(s);
    CHECK(t_open_buffer(buf, len, 1, &s) == B2_OK, "open without the registry");
    int32_t one[4], *back = malloc(NITEMS * 4);
    CHECK(b2_schunk_decompress_chunk(s, 0, back, NITEMS * 4) == B2_ERR_UNSUPPORTED &&
              has(b2_schunk_last_error(s), "codec id 170 is not registered"),
          "frame without the registry: %s", b2_schunk_last_error(s));
    CHECK(b2_schunk_get_items(s, 0, 4, one, sizeof one) == B2_ERR_UNSUPPORTED, "get_items without it");
    CHECK(b2_schunk_append_buffer(s, src, NITEMS * 4) < 0 &&
              has(b2_schunk_last_error(s), "codec id 170"),
          "append without the registry: %s", b2_schunk_last_error(s));
    CHECK(b2_schunk_set_registry(s, r) == B2_OK && check_schunk(s, src) &&
              b2_schunk_append_buffer(s, src, NITEMS * 4) == NCH + 1,
          "after b2_schunk_set_registry: %s", b2_schunk_last_error(s));
    b2_schunk_free(s);
    free(buf);

    /* a frame file and a sparse frame */
    char path[512];
    for (int sparse = 0; sparse < 2; sparse++) {
        snprintf(path, sizeof path, "%s/f%d.b2frame", dir, sparse);
        int rc = sparse ? t_create_sparse(path, &p, &s) : t_create(path, &p, &s);
        CHECK(rc == B2_OK && fill_schunk(s, src) == 0 && check_schunk(s, src), "%s: written",
              sparse ? "sframe" : "file");
        b2_schunk_free(s);
        CHECK(t_open(path, B2_OPEN_WRITE, &s) == B2_OK &&
                  b2_schunk_decompress_chunk(s, 1, back, NITEMS * 4) == B2_ERR_UNSUPPORTED,
              "%s: refused without the registry", sparse ? "sframe" : "file");
        CHECK(b2_schunk_set_registry(s, r) == B2_OK && check_schunk(s, src) &&
                  b2_schunk_append_buffer(s, src, NITEMS * 4) == NCH + 1,
              "%s: read and append with it (%s)", sparse ? "sframe" : "file", b2_schunk_last_error(s));
        b2_schunk_free(s);
    }
    b2_registry_free(r);
    free(back);
    free(src);
}

static void test_b2nd(const char *dir)
{
    enum { R = 120, C = 90 };
    int32_t *src = malloc(R * C * 4), *back = malloc(R * C * 4);
    for (int i = 0; i < R * C; i++)
        src[i] = (i / C) / 7 * 100 + (i % C) / 9;
    b2_registry *r = b2_registry_new();
    b2_user_codec rc = {R_CODEC, "rle_ctx", rle_compress, rle_decompress, &r_codec_seen};
    b2_user_filter rf = {R_FILTER, "revxor_ctx", rev_forward, rev_backward, &r_filter_seen};
    b2_registry_add_codec(r, &rc);
    b2_registry_add_filter(r, &rf);
    b2_cparams cp;
    user_cparams(&cp, R_CODEC, R_FILTER, r);
    b2_nd_params np = {.ndim = 2, .shape = {R, C}, .chunkshape = {50, 60}, .blockshape = {10, 30},
                       .typesize = 4, .dtype = "<i4", .cparams = &cp};
    b2_nd_array *a = NULL;
    __atomic_store_n(&r_codec_seen.geom_ndim, 0, __ATOMIC_RELAXED);
    CHECK(b2_nd_from_cbuffer(&np, NULL, src, R * C * 4, &a) == B2_OK, "b2nd: from_cbuffer: %s",
          b2_last_error_message());
    CHECK(r_codec_seen.geom_ndim == 2 && r_filter_seen.geom_ndim == 2,
          "b2nd: the functions get the block geometry (%d, %d)", r_codec_seen.geom_ndim,
          r_filter_seen.geom_ndim);
    CHECK(a && b2_nd_to_cbuffer(a, back, R * C * 4) == B2_OK && !memcmp(src, back, R * C * 4),
          "b2nd: to_cbuffer");
    int64_t start[2] = {13, 27}, stop[2] = {77, 88};
    int32_t box[64 * 61];
    CHECK(a && b2_nd_get_slice_cbuffer(a, start, stop, box, sizeof box) == B2_OK &&
              !memcmp(box, src + 13 * C + 27, 61 * 4) && box[63 * 61 + 60] == src[76 * C + 87],
          "b2nd: slice");
    uint8_t *frame = NULL;
    size_t flen = 0;
    CHECK(a && b2_nd_to_frame_buffer(a, &frame, &flen) == B2_OK, "b2nd: to frame");
    char path[512];
    snprintf(path, sizeof path, "%s/a.b2nd", dir);
    b2_nd_storage st = {B2_STORAGE_FILE, path};
    CHECK(a && b2_nd_save(a, &st) == B2_OK, "b2nd: save");
    b2_nd_free(a);

    CHECK(b2_nd_open_buffer(frame, flen, 1, &a) == B2_OK &&
              b2_nd_to_cbuffer(a, back, R * C * 4) == B2_ERR_UNSUPPORTED &&
              has(b2_nd_last_error(a), "170"),
          "b2nd: refused without the registry: %s", a ? b2_nd_last_error(a) : "");
    CHECK(a && b2_nd_set_registry(a, r) == B2_OK && b2_nd_to_cbuffer(a, back, R * C * 4) == B2_OK &&
              !memcmp(src, back, R * C * 4),
          "b2nd: read after b2_nd_set_registry: %s", a ? b2_nd_last_error(a) : "");
    int32_t patch[4] = {-1, -2, -3, -4};
    int64_t p0[2] = {100, 40}, p1[2] = {101, 44};
    CHECK(a && b2_nd_set_slice_cbuffer(a, p0, p1, patch, sizeof patch) == B2_OK &&
              b2_nd_to_cbuffer(a, back, R * C * 4) == B2_OK && back[100 * C + 41] == -2,
          "b2nd: write with the registry: %s", a ? b2_nd_last_error(a) : "");
    b2_nd_free(a);
    free(frame);

    /* on disk: blocks read lazily through the frame's own context */
    CHECK(b2_nd_open(path, B2_OPEN_READONLY, &a) == B2_OK && b2_nd_set_registry(a, r) == B2_OK &&
              b2_nd_get_slice_cbuffer(a, start, stop, box, sizeof box) == B2_OK &&
              box[63 * 61 + 60] == src[76 * C + 87] && box[5] == src[13 * C + 32],
          "b2nd file: slice with the registry: %s", a ? b2_nd_last_error(a) : "");
    b2_nd_free(a);
    b2_registry_free(r);
    free(src);
    free(back);
}

/* ---- registration racing with use ---- */

#define NTHREADS 6
static seen race_seen[NTHREADS];
static int race_winners;

static void *race(void *arg)
{
    int k = (int)(intptr_t)arg;
    char name[32];
    snprintf(name, sizeof name, "race_codec_%d", k);
    b2_user_codec uc = {210 + k, name, rle_compress, rle_decompress, &race_seen[k]};
    char fname[32];
    snprintf(fname, sizeof fname, "race_filter_%d", k);
    b2_user_filter uf = {220 + k, fname, rev_forward, rev_backward, &race_seen[k]};
    int ok = b2_register_codec(&uc) == B2_OK && b2_register_filter(&uf) == B2_OK;
    /* everyone registers the same shared entry (identical: all succeed) ... */
    b2_user_filter shared = {230, "race_shared", rev_forward, rev_backward, &race_seen[0]};
    ok &= b2_register_filter(&shared) == B2_OK;
    /* ... and competes for one id with its own entry: exactly one wins */
    b2_user_codec contested = {231, "race_contested", rle_compress, rle_decompress, &race_seen[k]};
    int rc = b2_register_codec(&contested);
    if (rc == B2_OK)
        __atomic_add_fetch(&race_winners, 1, __ATOMIC_RELAXED);
    ok &= rc == B2_OK || rc == B2_ERR_EXISTS;
    /* use them while the other threads still register */
    int32_t *src = make_data(NITEMS), *back = malloc(NITEMS * 4);
    size_t cap = b2_chunk_compress_bound(NITEMS * 4);
    uint8_t *chunk = malloc(cap);
    b2_dctx *d = b2_dctx_new(2);
    for (int round = 0; ok && round < 4; round++) {
        b2_cparams p;
        user_cparams(&p, round % 2 ? 231 : 210 + k, round < 2 ? 220 + k : 230, NULL);
        p.nthreads = 2;
        b2_cctx *c = b2_cctx_new(&p);
        int cb = c ? b2_chunk_compress(c, src, NITEMS * 4, chunk, cap) : -1;
        ok = cb > 0 && b2_chunk_decompress(d, chunk, (size_t)cb, back, NITEMS * 4) == NITEMS * 4 &&
             !memcmp(src, back, NITEMS * 4);
        b2_cctx_free(c);
    }
    b2_dctx_free(d);
    free(chunk);
    free(back);
    free(src);
    return (void *)(intptr_t)ok;
}

static void test_threads(void)
{
    pthread_t t[NTHREADS];
    for (int k = 0; k < NTHREADS; k++)
        pthread_create(&t[k], NULL, race, (void *)(intptr_t)k);
    int good = 0;
    for (int k = 0; k < NTHREADS; k++) {
        void *ok;
        pthread_join(t[k], &ok);
        good += ok != NULL;
    }
    CHECK(good == NTHREADS, "threads that registered and used their ids: %d of %d", good, NTHREADS);
    CHECK(race_winners == 1, "one registration of the contested id succeeded (%d)", race_winners);
    for (int k = 0; k < NTHREADS; k++) {
        char name[32];
        snprintf(name, sizeof name, "race_codec_%d", k);
        CHECK(b2_codec_from_name(name) == 210 + k, "%s registered", name);
    }
}

int main(void)
{
    char dir[] = "/tmp/b2_registry_XXXXXX";
    if (!mkdtemp(dir)) {
        printf("FAIL: mkdtemp\n");
        return 1;
    }
    test_registration();
    test_chunks();
    test_frames(dir);
    test_b2nd(dir);
    test_threads();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("warning: could not remove %s\n", dir);
    return b2t_summary("registry");
}
