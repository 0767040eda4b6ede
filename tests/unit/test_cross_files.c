/* SPDX-License-Identifier: BSD-3-Clause */
/* Files written on one machine must be the bytes another machine writes for the
 * same input, and read back to that input: the big-endian check of issue 28.
 * The set: chunks (5 codecs x 6 filter pipelines x typesizes 1..16), a frame
 * file with metalayers, vlmetalayers and checksums, a sparse frame, an
 * in-memory frame, and b2nd arrays (file and sparse).
 *
 *   test_cross_files             write the set twice here, compare, read back
 *   test_cross_files --write D   write the set into D and read it back (scripts/cross.sh
 *                                runs this on s390x under qemu)
 *   test_cross_files --check D   the set in D must equal, file for file and byte for
 *                                byte, the set this machine writes, and decode to the input
 *
 * Inputs are made as bytes (values stored little-endian by hand), so the same
 * bytes go in on every machine. liblz4 and libzstd hash words read in host
 * order (lz4.c LZ4_hash5 branches on LZ4_isLittleEndian), so their streams
 * differ between little- and big-endian machines while both decode the same:
 * the lz4, lz4hc and zstd chunk files are compared by content only, and the
 * frames and arrays, whose bytes are all ours, use blosclz and zlib. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "b2_chunk.h"
#include "b2_frame.h"
#include "b2_nd.h"
#include "check.h"
#include "scratch.h"
#include "frame_open.h"

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* n bytes of typesize-ts items: a slow ramp with a wobble (compressible by every
 * filter), in little-endian order; seed varies it per file. Typesize 8 holds the
 * bits of an exactly representable double, so trunc_prec has real mantissas. */
static uint8_t *make_input(int32_t ts, size_t n, uint32_t seed)
{
    uint8_t *p = malloc(n ? n : 1);
    if (!p)
        abort();
    size_t items = n / (size_t)ts;
    for (size_t i = 0; i < items; i++) {
        uint64_t v = (uint64_t)(i / 3) * 7u + (uint64_t)((i * 2654435761u + seed) % 5u);
        if (ts == 8) {
            double d = (double)(int64_t)v * 0.125 + seed;
            memcpy(&v, &d, 8);
        }
        if (ts <= 8) {
            put_le(p + i * (size_t)ts, v, ts);
        } else {
            put_le(p + i * (size_t)ts, v, 8);
            for (int32_t b = 8; b < ts; b++)
                p[i * (size_t)ts + (size_t)b] = (uint8_t)(b + seed);
        }
    }
    for (size_t i = items * (size_t)ts; i < n; i++)
        p[i] = (uint8_t)(i * 31u + seed);
    return p;
}

static int write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(p, 1, n, f);
    return (fclose(f) == 0 && w == n) ? 0 : -1;
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *p = NULL;
    size_t cap = 0, len = 0, got;
    do {
        if (len == cap) {
            cap = cap ? 2 * cap : 65536;
            uint8_t *q = realloc(p, cap);
            if (!q)
                abort();
            p = q;
        }
        got = fread(p + len, 1, cap - len, f);
        len += got;
    } while (got > 0);
    fclose(f);
    *n = len;
    return p;
}

/* ---- the set ---- */

static const int codecs[] = {B2_CODEC_BLOSCLZ, B2_CODEC_LZ4, B2_CODEC_LZ4HC, B2_CODEC_ZLIB,
                             B2_CODEC_ZSTD};
#define NCODECS (int)(sizeof codecs / sizeof codecs[0])
static const int32_t typesizes[] = {1, 2, 4, 8, 16};
#define NTS (int)(sizeof typesizes / sizeof typesizes[0])
#define NPIPES 6
#define CHUNK_BYTES 20011 /* not a multiple of any typesize above 1 or of a block */

/* Filter pipeline k of the chunk set (slot 5 is the last one applied). */
static void set_pipeline(b2_cparams *cp, int k)
{
    memset(cp->filters, 0, sizeof cp->filters);
    memset(cp->filters_meta, 0, sizeof cp->filters_meta);
    switch (k) {
    case 0: break;
    case 1: cp->filters[5] = B2_FILTER_SHUFFLE; break;
    case 2: cp->filters[5] = B2_FILTER_BITSHUFFLE; break;
    case 3: cp->filters[4] = B2_FILTER_DELTA; cp->filters[5] = B2_FILTER_SHUFFLE; break;
    case 4: cp->filters[4] = B2_FILTER_SHUFFLE; cp->filters[5] = B2_FILTER_BYTEDELTA; break;
    case 5: /* trunc_prec needs 4- or 8-byte items; others get shuffle + bitshuffle */
        if (cp->typesize == 4 || cp->typesize == 8) {
            cp->filters[4] = B2_FILTER_TRUNC_PREC;
            cp->filters_meta[4] = 13;
            cp->filters[5] = B2_FILTER_BITSHUFFLE;
        } else {
            cp->filters[4] = B2_FILTER_SHUFFLE;
            cp->filters[5] = B2_FILTER_BITSHUFFLE;
        }
        break;
    }
}

/* The input of chunk file (c, k, t) as the decoder must return it: trunc_prec is
 * lossy, so its chunks are only compared by bytes across machines. */
static int chunk_lossless(int k, int32_t ts)
{
    return !(k == 5 && (ts == 4 || ts == 8));
}

static int write_chunks(const char *dir)
{
    char path[4096];
    for (int c = 0; c < NCODECS; c++)
        for (int k = 0; k < NPIPES; k++)
            for (int t = 0; t < NTS; t++) {
                b2_cparams cp;
                b2_cparams_init(&cp);
                cp.codec = codecs[c];
                cp.typesize = typesizes[t];
                cp.blocksize = 4096; /* several blocks and a short last one */
                cp.splitmode = (t % 2) ? B2_SPLIT_ALWAYS : B2_SPLIT_AUTO;
                set_pipeline(&cp, k);
                uint8_t *in = make_input(cp.typesize, CHUNK_BYTES, (uint32_t)(c * 64 + k * 8 + t));
                size_t cap = b2_chunk_compress_bound(CHUNK_BYTES);
                uint8_t *out = malloc(cap);
                b2_cctx *cc = b2_cctx_new(&cp);
                CHECK(cc != NULL, "cctx %d/%d/%d", c, k, t);
                int n = cc ? b2_chunk_compress(cc, in, CHUNK_BYTES, out, cap) : -1;
                CHECK(n > 0, "compress codec %d pipeline %d ts %d: %d", codecs[c], k,
                      typesizes[t], n);
                snprintf(path, sizeof path, "%s/chunk_c%d_f%d_t%d.b2chunk", dir, codecs[c], k,
                         typesizes[t]);
                if (n > 0)
                    CHECK(write_file(path, out, (size_t)n) == 0, "write %s", path);
                b2_cctx_free(cc);
                free(out);
                free(in);
            }
    return 0;
}

static void check_chunks(const char *dir)
{
    char path[4096];
    b2_dctx *dc = b2_dctx_new(1);
    uint8_t *got = malloc(CHUNK_BYTES);
    for (int c = 0; c < NCODECS; c++)
        for (int k = 0; k < NPIPES; k++)
            for (int t = 0; t < NTS; t++) {
                if (!chunk_lossless(k, typesizes[t]))
                    continue;
                snprintf(path, sizeof path, "%s/chunk_c%d_f%d_t%d.b2chunk", dir, codecs[c], k,
                         typesizes[t]);
                size_t n;
                uint8_t *chunk = read_file(path, &n);
                CHECK(chunk != NULL, "read %s", path);
                if (!chunk)
                    continue;
                uint8_t *in = make_input(typesizes[t], CHUNK_BYTES, (uint32_t)(c * 64 + k * 8 + t));
                int r = b2_chunk_decompress(dc, chunk, n, got, CHUNK_BYTES);
                CHECK(r == CHUNK_BYTES && !memcmp(got, in, CHUNK_BYTES), "decode %s: %d", path, r);
                free(in);
                free(chunk);
            }
    free(got);
    b2_dctx_free(dc);
}

/* Frames: three chunks each (the last one short), from make_input(ts, ., 100 + j). */
#define FRAME_CHUNK 24000
static const int32_t frame_last = 7000;
static const uint8_t meta_content[] = {0x93, 0x01, 0xa3, 'b', 'i', 'g', 0xcd, 0x12, 0x34};
static const char vlmeta_content[] = "written on every machine alike";

static void fill_frame(b2_schunk *s, int32_t ts)
{
    for (int j = 0; j < 3; j++) {
        int32_t n = j == 2 ? frame_last : FRAME_CHUNK;
        uint8_t *in = make_input(ts, (size_t)n, 100u + (uint32_t)j);
        CHECK(b2_schunk_append_buffer(s, in, n) == j + 1, "append %d", j);
        free(in);
    }
}

static void frame_cparams(b2_cparams *cp, int codec, int32_t ts, int pipeline)
{
    b2_cparams_init(cp);
    cp->codec = codec;
    cp->typesize = ts;
    cp->blocksize = 8192;
    set_pipeline(cp, pipeline);
}

static void write_frames(const char *dir)
{
    char path[4096];
    b2_cparams cp;
    b2_schunk *s = NULL;
    /* a contiguous frame file with metalayers, vlmetalayers and chunk checksums */
    frame_cparams(&cp, B2_CODEC_ZLIB, 8, 1);
    snprintf(path, sizeof path, "%s/file.b2frame", dir);
    CHECK(t_create(path, &cp, &s) == B2_OK, "create %s", path);
    if (s) {
        b2_schunk_set_sync(s, 0);
        CHECK(b2_schunk_meta_add(s, "cross", meta_content, sizeof meta_content) >= 0, "meta");
        CHECK(b2_schunk_set_checksums(s, B2_CHECKSUMS_ON) == B2_OK, "checksums on");
        fill_frame(s, 8);
        CHECK(b2_schunk_vlmeta_add(s, "note", vlmeta_content, sizeof vlmeta_content) >= 0,
              "vlmeta");
        b2_schunk_free(s);
    }
    /* a sparse frame (index file plus one file per chunk) */
    frame_cparams(&cp, B2_CODEC_BLOSCLZ, 4, 2);
    snprintf(path, sizeof path, "%s/sparse.b2frame", dir);
    s = NULL;
    CHECK(t_create_sparse(path, &cp, &s) == B2_OK, "create %s", path);
    if (s) {
        b2_schunk_set_sync(s, 0);
        fill_frame(s, 4);
        CHECK(b2_schunk_vlmeta_add(s, "note", vlmeta_content, sizeof vlmeta_content) >= 0,
              "vlmeta");
        b2_schunk_free(s);
    }
    /* an in-memory frame serialized */
    frame_cparams(&cp, B2_CODEC_BLOSCLZ, 2, 3);
    s = t_new(&cp);
    CHECK(s != NULL, "schunk_new");
    if (s) {
        fill_frame(s, 2);
        uint8_t *buf = NULL;
        size_t len = 0;
        CHECK(b2_schunk_to_buffer(s, &buf, &len) == B2_OK, "to_buffer");
        snprintf(path, sizeof path, "%s/memory.b2frame", dir);
        if (buf)
            CHECK(write_file(path, buf, len) == 0, "write %s", path);
        free(buf);
        b2_schunk_free(s);
    }
}

static void check_frame(const char *dir, const char *name, int32_t ts, int metas)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    b2_schunk *s = NULL;
    int rc = t_open(path, B2_OPEN_READONLY, &s);
    CHECK(rc == B2_OK, "open %s: %s", path, b2_strerror(rc));
    if (!s)
        return;
    CHECK(b2_schunk_nchunks(s) == 3 && b2_schunk_typesize(s) == ts, "%s header", path);
    uint8_t *got = malloc(FRAME_CHUNK);
    for (int j = 0; j < 3 && b2_schunk_nchunks(s) == 3; j++) {
        int32_t n = j == 2 ? frame_last : FRAME_CHUNK;
        uint8_t *in = make_input(ts, (size_t)n, 100u + (uint32_t)j);
        rc = b2_schunk_decompress_chunk(s, j, got, FRAME_CHUNK);
        CHECK(rc == n && !memcmp(got, in, (size_t)n), "%s chunk %d: %d", path, j, rc);
        free(in);
    }
    free(got);
    uint8_t *c;
    int32_t len;
    if (metas & 1) {
        CHECK(b2_schunk_meta_get(s, "cross", &c, &len) >= 0 && len == (int32_t)sizeof meta_content &&
                  !memcmp(c, meta_content, sizeof meta_content),
              "%s metalayer", path);
        if (len > 0)
            free(c);
        for (int j = 0; j < 3; j++)
            CHECK(b2_schunk_checksum_state(s, j) == B2_CHECKSUM_OK, "%s checksum %d", path, j);
    }
    if (metas & 2) {
        len = 0;
        CHECK(b2_schunk_vlmeta_get(s, "note", &c, &len) >= 0 &&
                  len == (int32_t)sizeof vlmeta_content && !memcmp(c, vlmeta_content, (size_t)len),
              "%s vlmetalayer", path);
        if (len > 0)
            free(c);
    }
    b2_schunk_free(s);
}

/* b2nd arrays: a 3-D float64 array in a file, a 2-D int16 array sparse. */
static const int64_t nd1_shape[3] = {11, 13, 7};
static const int64_t nd2_shape[2] = {37, 29};

static void nd_params(int which, b2_nd_params *p, b2_cparams *cp)
{
    memset(p, 0, sizeof *p);
    b2_cparams_init(cp);
    if (which == 1) {
        p->ndim = 3;
        memcpy(p->shape, nd1_shape, sizeof nd1_shape);
        p->chunkshape[0] = 4, p->chunkshape[1] = 6, p->chunkshape[2] = 7;
        p->blockshape[0] = 2, p->blockshape[1] = 3, p->blockshape[2] = 7;
        p->typesize = 8;
        p->dtype = "<f8";
        cp->codec = B2_CODEC_BLOSCLZ;
    } else {
        p->ndim = 2;
        memcpy(p->shape, nd2_shape, sizeof nd2_shape);
        p->chunkshape[0] = 16, p->chunkshape[1] = 16;
        p->blockshape[0] = 8, p->blockshape[1] = 5;
        p->typesize = 2;
        p->dtype = "<i2";
        cp->codec = B2_CODEC_ZLIB;
        cp->filters[5] = B2_FILTER_BITSHUFFLE;
    }
    p->cparams = cp;
}

static size_t nd_bytes(const b2_nd_params *p)
{
    size_t n = (size_t)p->typesize;
    for (int d = 0; d < p->ndim; d++)
        n *= (size_t)p->shape[d];
    return n;
}

static const char *nd_name(int which)
{
    return which == 1 ? "array3d.b2nd" : "array2d_sparse.b2nd";
}

static void write_arrays(const char *dir)
{
    char path[4096];
    for (int which = 1; which <= 2; which++) {
        b2_nd_params p;
        b2_cparams cp;
        nd_params(which, &p, &cp);
        b2_nd_user_meta um = {"cross", meta_content, (int32_t)sizeof meta_content};
        p.nmetalayers = 1;
        p.metalayers = &um;
        snprintf(path, sizeof path, "%s/%s", dir, nd_name(which));
        b2_nd_storage st = {which == 1 ? B2_STORAGE_FILE : B2_STORAGE_SPARSE, path};
        size_t n = nd_bytes(&p);
        uint8_t *in = make_input(p.typesize, n, 200u + (uint32_t)which);
        b2_nd_array *a = NULL;
        int rc = b2_nd_from_cbuffer(&p, &st, in, n, &a);
        CHECK(rc == B2_OK, "b2nd %s: %s", path, b2_strerror(rc));
        b2_nd_free(a);
        free(in);
    }
}

static void check_arrays(const char *dir)
{
    char path[4096];
    for (int which = 1; which <= 2; which++) {
        b2_nd_params p;
        b2_cparams cp;
        nd_params(which, &p, &cp);
        snprintf(path, sizeof path, "%s/%s", dir, nd_name(which));
        b2_nd_array *a = NULL;
        int rc = b2_nd_open(path, B2_OPEN_READONLY, &a);
        CHECK(rc == B2_OK, "open %s: %s", path, b2_strerror(rc));
        if (!a)
            continue;
        CHECK(b2_nd_ndim(a) == p.ndim && !memcmp(b2_nd_shape(a), p.shape, (size_t)p.ndim * 8) &&
                  !memcmp(b2_nd_chunkshape(a), p.chunkshape, (size_t)p.ndim * 4) &&
                  !memcmp(b2_nd_blockshape(a), p.blockshape, (size_t)p.ndim * 4) &&
                  !strcmp(b2_nd_dtype(a), p.dtype),
              "%s: shapes or dtype differ", path);
        size_t n = nd_bytes(&p);
        uint8_t *in = make_input(p.typesize, n, 200u + (uint32_t)which);
        uint8_t *got = malloc(n);
        rc = b2_nd_to_cbuffer(a, got, n);
        CHECK(rc >= 0 && !memcmp(got, in, n), "%s values: %d", path, rc);
        /* a slice crossing chunk borders goes through the partial-read path */
        int64_t start[3] = {3, 5, 0}, stop[3] = {9, 12, 6};
        size_t sn = (size_t)p.typesize * 6 * 7 * (p.ndim == 3 ? 6 : 1);
        uint8_t *sl = malloc(sn);
        rc = b2_nd_get_slice_cbuffer(a, start, stop, sl, sn);
        int ok = rc >= 0;
        size_t k = 0;
        for (int64_t i = start[0]; ok && i < stop[0]; i++)
            for (int64_t j = start[1]; ok && j < stop[1]; j++)
                for (int64_t l = p.ndim == 3 ? start[2] : 0; ok && l < (p.ndim == 3 ? stop[2] : 1);
                     l++) {
                    size_t lin = p.ndim == 3 ? (size_t)((i * p.shape[1] + j) * p.shape[2] + l)
                                             : (size_t)(i * p.shape[1] + j);
                    ok = !memcmp(sl + k, in + lin * (size_t)p.typesize, (size_t)p.typesize);
                    k += (size_t)p.typesize;
                }
        CHECK(ok, "%s slice: %d", path, rc);
        free(sl);
        free(got);
        free(in);
        b2_nd_free(a);
    }
}

static void write_set(const char *dir)
{
    write_chunks(dir);
    write_frames(dir);
    write_arrays(dir);
}

static void check_values(const char *dir)
{
    check_chunks(dir);
    check_frame(dir, "file.b2frame", 8, 3);
    check_frame(dir, "sparse.b2frame", 4, 2);
    check_frame(dir, "memory.b2frame", 2, 0);
    check_arrays(dir);
}

/* Every file under want must exist under got with the same bytes (but the
 * lz4, lz4hc and zstd chunks when lib_exempt: check_chunks decodes them), and
 * got must hold nothing else. Returns the number of files compared. */
static int compare_trees(const char *want, const char *got, int lib_exempt)
{
    int nfiles = 0, nwant = 0;
    DIR *d = opendir(want);
    CHECK(d != NULL, "opendir %s", want);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/%s", want, e->d_name);
        snprintf(b, sizeof b, "%s/%s", got, e->d_name);
        struct stat sa;
        nwant++;
        if (stat(a, &sa) == 0 && S_ISDIR(sa.st_mode)) {
            nfiles += compare_trees(a, b, lib_exempt);
            continue;
        }
        size_t na = 0, nb = 0;
        uint8_t *pa = read_file(a, &na), *pb = read_file(b, &nb);
        CHECK(pb != NULL, "%s is missing", b);
        if (pa && pb && (!lib_exempt || !(strstr(e->d_name, "_c1_") || strstr(e->d_name, "_c2_") ||
                                          strstr(e->d_name, "_c5_")))) {
            size_t off = 0;
            while (off < na && off < nb && pa[off] == pb[off])
                off++;
            CHECK(na == nb && off == na, "%s: %zu bytes here, %zu there, first difference at %zu",
                  e->d_name, na, nb, off);
        }
        nfiles++;
        free(pa);
        free(pb);
    }
    closedir(d);
    int ngot = 0;
    d = opendir(got);
    while (d && (e = readdir(d)))
        ngot += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    CHECK(ngot == nwant, "%s holds %d entries, expected %d", got, ngot, nwant);
    return nfiles;
}

static int make_temp(char *buf, size_t cap, const char *tag)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, cap, "%s/b2cross_%s_XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
    return mkdtemp(buf) ? 0 : -1;
}

int main(int argc, char **argv)
{
    char a[512], b[512];
    if (argc == 3 && !strcmp(argv[1], "--write")) {
        if (mkdir(argv[2], 0755) != 0 && errno != EEXIST) {
            perror(argv[2]);
            return 1;
        }
        write_set(argv[2]);
        check_values(argv[2]);
        return b2t_summary("test_cross_files --write");
    }
    if (argc == 3 && !strcmp(argv[1], "--check")) {
        CHECK(make_temp(a, sizeof a, "here") == 0, "mkdtemp");
        write_set(a);
        int n = compare_trees(a, argv[2], 1);
        printf("%d files compared with %s (byte for byte but the lz4/lz4hc/zstd chunks)\n", n, argv[2]);
        check_values(argv[2]);
        test_rm_tree(a);
        return b2t_summary("test_cross_files --check");
    }
    if (argc != 1) {
        fprintf(stderr, "usage: %s [--write DIR | --check DIR]\n", argv[0]);
        return 2;
    }
    CHECK(make_temp(a, sizeof a, "a") == 0 && make_temp(b, sizeof b, "b") == 0, "mkdtemp");
    write_set(a);
    write_set(b);
    int n = compare_trees(a, b, 0);
    printf("%d files written twice, identical\n", n);
    check_values(a);
    test_rm_tree(a);
    test_rm_tree(b);
    return b2t_summary("test_cross_files");
}
