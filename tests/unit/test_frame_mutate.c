/* SPDX-License-Identifier: BSD-3-Clause */
/* Hostile frames must give errors, never crashes, hangs or out-of-bounds access:
 * every prefix truncation, random byte flips, extreme values in every header,
 * trailer and index field, on small seed frames (built here, plus a few reference
 * vectors when B2_INTEROP_DIR is set). Each mutated frame that opens is read in
 * every way the API offers. Run under ASan/UBSan to make this meaningful. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "b2_frame.h"
#include "b2_internal.h"
#include "frame_open.h"

#ifdef __SANITIZE_ADDRESS__
/* msgpack-c may be asked for huge containers; let such allocations fail cleanly. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
#endif

static long n_inputs, n_opened, n_chunks_read;
static uint64_t rng = 0x243f6a8885a308d3ull;
static uint32_t rnd(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

/* Read everything a user could ask for; errors are fine. */
static void exercise(b2_schunk *s)
{
    static uint8_t buf[1 << 20];
    int64_t n = b2_schunk_nchunks(s);
    for (int64_t i = 0; i < n && i < 64; i++) {
        int nb = b2_schunk_chunk_nbytes(s, i);
        (void)b2_schunk_chunk_special(s, i);
        if (nb >= 0 && (size_t)nb <= sizeof buf) {
            b2_schunk_decompress_chunk(s, i, buf, sizeof buf);
            n_chunks_read++;
        }
        uint8_t *c;
        int32_t cb;
        if (b2_schunk_get_chunk(s, i, &c, &cb) >= 0)
            free(c);
    }
    int32_t ts = b2_schunk_typesize(s);
    int64_t items = ts > 0 ? b2_schunk_nbytes(s) / ts : 0;
    if (items > 0) {
        int64_t a = rnd() % items, k = 1 + rnd() % 512;
        if (k * ts <= (int64_t)sizeof buf)
            b2_schunk_get_items(s, a, k, buf, sizeof buf);
    }
    for (int i = 0; i < b2_schunk_vlmeta_count(s); i++) {
        uint8_t *c;
        int32_t len;
        if (b2_schunk_vlmeta_get(s, b2_schunk_vlmeta_name(s, i), &c, &len) >= 0)
            free(c);
    }
    for (int i = 0; i < b2_schunk_meta_count(s); i++) {
        uint8_t *c;
        int32_t len;
        if (b2_schunk_meta_get(s, b2_schunk_meta_name(s, i), &c, &len) >= 0)
            free(c);
    }
}

static void try_buffer(const uint8_t *p, size_t n)
{
    b2_schunk *s;
    n_inputs++;
    if (t_open_buffer(p, n, 0, &s) >= 0) {
        n_opened++;
        exercise(s);
        b2_schunk_free(s);
    }
}

static void try_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    fwrite(p, 1, n, f);
    fclose(f);
    b2_schunk *s;
    n_inputs++;
    if (t_open(path, B2_OPEN_READONLY, &s) >= 0) {
        n_opened++;
        exercise(s);
        b2_schunk_free(s);
    }
}

/* Sparse frames: a mutated chunks.b2frame or chunk file in a directory. */
static void try_sparse(const char *dir, const char *file, const uint8_t *p, size_t n)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    fwrite(p, 1, n, f);
    fclose(f);
    b2_schunk *s;
    n_inputs++;
    if (t_open(dir, B2_OPEN_READONLY, &s) >= 0) {
        n_opened++;
        exercise(s);
        b2_schunk_free(s);
    }
}

static int sparse_failed;

/* An index naming one chunk file twice (entry 1 made equal to entry 0) must not
 * open: ids are never shared (doc/format/sframe.md §4). The index chunk of this small frame
 * is stored as plain bytes (memcpyed), so the entry can be patched in place. */
static int repeated_id_refused(const char *dir)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/chunks.b2frame", dir);
    FILE *f = fopen(path, "rb");
    uint8_t orig[8192], m[8192];
    size_t n = f ? fread(orig, 1, sizeof orig, f) : 0;
    if (f)
        fclose(f);
    size_t hl = n > 15 ? (size_t)orig[11] << 24 | (size_t)orig[12] << 16 | orig[13] << 8 | orig[14] : 0;
    if (!hl || hl + 48 > n || !(orig[hl + 2] & 0x02)) {
        fprintf(stderr, "FAIL: no plain index chunk in %s\n", path);
        return 0;
    }
    memcpy(m, orig, n);
    memcpy(m + hl + 40, m + hl + 32, 8);
    f = fopen(path, "wb");
    if (f) {
        fwrite(m, 1, n, f);
        fclose(f);
    }
    b2_schunk *s = NULL;
    int rc = t_open(dir, B2_OPEN_READONLY, &s);
    b2_schunk_free(s);
    try_sparse(dir, "chunks.b2frame", orig, n); /* restore */
    if (rc != B2_ERR_CORRUPT || !strstr(b2_last_error_message(), "twice")) {
        fprintf(stderr, "FAIL: an index naming a chunk file twice opened (%d: %s)\n", rc,
                b2_last_error_message());
        return 0;
    }
    return 1;
}

static void mutate_sparse(const char *tmpdir)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s.sf", tmpdir);
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    b2_schunk *s;
    if (t_create_sparse(dir, &cp, &s) < 0)
        return;
    b2_schunk_set_sync(s, 0);
    b2_schunk_meta_add(s, "m", "abcd", 4);
    int32_t d[300];
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 300; i++)
            d[i] = i * (c + 1);
        b2_schunk_append_buffer(s, d, sizeof d);
    }
    uint8_t z[64];
    int cb = b2_chunk_make_special(B2_SPECIAL_ZEROS, 4, 1200, NULL, z, sizeof z);
    b2_schunk_append_chunk(s, z, cb);
    b2_schunk_vlmeta_add(s, "v", "vl content", 10);
    b2_schunk_free(s);
    static const char *files[] = {"chunks.b2frame", "00000000.chunk", "00000002.chunk"};
    for (int k = 0; k < 3; k++) {
        char path[4300];
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        uint8_t orig[8192], m[8192];
        size_t n = fread(orig, 1, sizeof orig, f);
        fclose(f);
        for (int t = 0; t < 600; t++) {
            memcpy(m, orig, n);
            size_t len = t < 100 ? rnd() % n : n;
            if (t >= 100)
                for (int j = 0; j < 1 + (int)(rnd() % 3); j++)
                    m[rnd() % n] ^= (uint8_t)(1 + rnd() % 255);
            try_sparse(dir, files[k], m, len);
        }
        try_sparse(dir, files[k], orig, n); /* restore */
    }
    if (!repeated_id_refused(dir))
        sparse_failed = 1;
    char cmd[4400];
    for (int k = 0; k < 3; k++) {
        snprintf(cmd, sizeof cmd, "%s/%s", dir, files[k]);
        unlink(cmd);
    }
    snprintf(cmd, sizeof cmd, "%s/00000001.chunk", dir);
    unlink(cmd);
    rmdir(dir);
}

static const uint64_t extremes[] = {
    0, 1, 2, 7, 8, 31, 32, 86, 87, 88, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
    0x7fffffff, 0x80000000, 0xffffffff, 0x7fffffffffffffffull, 0x8000000000000000ull,
    0xffffffffffffffffull, 0x100000000ull,
};
#define NEXT (sizeof extremes / sizeof extremes[0])

/* Overwrite width bytes at off with v (big-endian, or little-endian if le). */
static void put(uint8_t *p, size_t n, size_t off, int width, uint64_t v, int le)
{
    for (int b = 0; b < width && off + (size_t)b < n; b++) {
        int shift = le ? 8 * b : 8 * (width - 1 - b);
        p[off + b] = (uint8_t)(v >> shift);
    }
}

static void mutate_seed(const uint8_t *seed, size_t n, int flips, const char *tmpfile)
{
    uint8_t *m = malloc(n + 64);
    /* 1. truncations: every length of small seeds; for big ones the header and
     * trailer regions plus a random sample */
    for (size_t len = 0; len < n; len++)
        if (n <= 8192 || len < 512 || len + 512 > n || rnd() % 64 == 0)
            try_buffer(seed, len);
    /* 2. random byte flips, 1-4 bytes at a time */
    for (int t = 0; t < flips; t++) {
        memcpy(m, seed, n);
        int k = 1 + rnd() % 4;
        for (int j = 0; j < k; j++)
            m[rnd() % n] ^= (uint8_t)(1 + rnd() % 255);
        try_buffer(m, n);
    }
    /* 3. extreme values in every fixed header field */
    static const struct { int off, width; } fields[] = {
        {11, 4}, {16, 8}, {30, 8}, {39, 8}, {48, 4}, {53, 4}, {58, 4}, {63, 2}, {66, 2},
        {25, 1}, {26, 1}, {27, 1}, {28, 1}, {70, 1}, {71, 6}, {87, 1}, {88, 2}, {91, 3},
    };
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
        for (size_t e = 0; e < NEXT; e++) {
            memcpy(m, seed, n);
            put(m, n, (size_t)fields[f].off, fields[f].width, extremes[e], 0);
            try_buffer(m, n);
        }
    /* 4. extreme values at every offset of the last 200 bytes (trailer, index chunk
     * header, index entries), both byte orders, widths 1, 4 and 8 */
    size_t from = n > 200 ? n - 200 : 0;
    for (size_t off = from; off < n; off++)
        for (int w = 1; w <= 8; w *= 2) {
            if (w == 2)
                continue;
            memcpy(m, seed, n);
            put(m, n, off, w, extremes[rnd() % NEXT], rnd() & 1);
            try_buffer(m, n);
        }
    /* 5. the file reader on a sample of mutations */
    for (int t = 0; t < 200; t++) {
        memcpy(m, seed, n);
        size_t len = t < 50 ? rnd() % n : n;
        for (int j = 0; j < 2; j++)
            m[rnd() % n] ^= (uint8_t)(1 + rnd() % 255);
        try_file(tmpfile, m, len);
    }
    free(m);
}

/* A small seed frame exercising every structure: metalayers, vlmetalayers,
 * regular, repeated-value and special chunks, a short last chunk. */
static uint8_t *make_seed(int variant, size_t *len)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    cp.codec = variant ? B2_CODEC_LZ4 : B2_CODEC_BLOSCLZ;
    b2_schunk *s = t_new(&cp);
    if (!s)
        return NULL;
    b2_schunk_meta_add(s, "meta", "\xa3" "abc", 4);
    b2_schunk_meta_add(s, "second", "0123456789", 10);
    int32_t data[500];
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 500; i++)
            data[i] = c * 1000 + i * (variant + 1);
        b2_schunk_append_buffer(s, data, sizeof data);
    }
    uint8_t sp[64];
    int32_t v = 42;
    int cb = b2_chunk_make_special(B2_SPECIAL_ZEROS, 4, 2000, NULL, sp, sizeof sp);
    b2_schunk_append_chunk(s, sp, cb);
    cb = b2_chunk_make_special(B2_SPECIAL_NAN, 4, 2000, NULL, sp, sizeof sp);
    b2_schunk_append_chunk(s, sp, cb);
    cb = b2_chunk_make_special(B2_SPECIAL_VALUE, 4, 2000, &v, sp, sizeof sp);
    b2_schunk_append_chunk(s, sp, cb);
    b2_schunk_append_buffer(s, data, 400);
    b2_schunk_vlmeta_add(s, "vl", "hello vlmeta", 12);
    uint8_t *out = NULL;
    if (b2_schunk_to_buffer(s, &out, len) < 0)
        out = NULL;
    b2_schunk_free(s);
    return out;
}

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return p;
}

int main(void)
{
    char tmpfile[] = "/tmp/b2_frame_mutate_XXXXXX";
    int fd = mkstemp(tmpfile);
    if (fd < 0)
        return 1;
    close(fd);
    int nseeds = 0;
    for (int variant = 0; variant < 2; variant++) {
        size_t n;
        uint8_t *seed = make_seed(variant, &n);
        if (!seed) {
            fprintf(stderr, "FAIL: could not build seed frame %d\n", variant);
            unlink(tmpfile);
            return 1;
        }
        b2_schunk *s;
        if (t_open_buffer(seed, n, 0, &s) < 0) {
            fprintf(stderr, "FAIL: seed frame %d does not open\n", variant);
            return 1;
        }
        b2_schunk_free(s);
        mutate_seed(seed, n, 3000, tmpfile);
        free(seed);
        nseeds++;
    }
    /* A few reference frames: specials, metalayers, variable chunks, many chunks,
     * VL blocks, an empty frame. */
    const char *dir = getenv("B2_INTEROP_DIR");
    static const char *ref[] = {"f11_specials_mixed", "f13_metalayers", "f15_empty_with_meta",
                                "f23_variable_chunks", "f25_many_small_chunks", "f29_vlblocks"};
    for (size_t i = 0; dir && i < sizeof ref / sizeof ref[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/frames/%s.b2frame", dir, ref[i]);
        size_t n;
        uint8_t *seed = read_all(path, &n);
        if (!seed)
            continue;
        mutate_seed(seed, n, 400, tmpfile);
        free(seed);
        nseeds++;
    }
    mutate_sparse(tmpfile);
    nseeds++;
    unlink(tmpfile);
    printf("frame mutation: %d seeds, %ld mutated inputs, %ld opened, %ld chunk reads\n",
           nseeds, n_inputs, n_opened, n_chunks_read);
    if (sparse_failed)
        return 1;
    if (n_inputs < 10000) {
        fprintf(stderr, "FAIL: only %ld inputs\n", n_inputs);
        return 1;
    }
    return 0;
}
