/* SPDX-License-Identifier: BSD-3-Clause */
/* b2_schunk_set_items against a plain byte array: random frames (memory, file,
 * sparse; typesizes 1..16; chunk and block sizes with partial last chunks and
 * blocks; codecs, filters, dictionaries; special chunks; 1 and 2 threads) take
 * random item writes, after each of which get_items over everything equals the
 * oracle, and the file reopened equals it too. Then the errors, one commit per
 * call (a write across three chunks takes two chunk writes more than one across
 * one), and crash safety through the fault-injecting store: a write failing at
 * any point leaves the old or the new contents and a handle that refuses
 * further writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "b2_chunk_experimental.h"
#include "b2_frame.h"
#include "b2_frame_experimental.h"
#include "check.h"
#include "frame_internal.h" /* the handle's idle reader, to count the blocks it decoded */
#include "scratch.h"
#include "test_rng.h"
#include "frame_open.h"

/* Compressible bytes, sometimes zeros (so that chunks turn special). */
static void pattern(uint8_t *p, int64_t n, int ts)
{
    int kind = (int)rnd_in(0, 5);
    uint32_t base = rnd();
    for (int64_t i = 0; i < n; i++) {
        if (kind == 0)
            p[i] = 0;
        else if (kind == 1)
            p[i] = (uint8_t)rnd();
        else
            p[i] = (uint8_t)(base + (i / ts) * (uint32_t)kind + (i % ts == 0 ? i >> 9 : 0));
    }
}

static b2_cparams random_params(int ts)
{
    static const int codecs[] = {B2_CODEC_BLOSCLZ, B2_CODEC_LZ4, B2_CODEC_LZ4HC, B2_CODEC_ZLIB,
                                 B2_CODEC_ZSTD};
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = ts;
    cp.codec = codecs[rnd_in(0, 4)];
    cp.clevel = (int)rnd_in(0, 9);
    cp.nthreads = (int)rnd_in(1, 2);
    int f = (int)rnd_in(0, 4);
    cp.filters[B2_MAX_FILTERS - 1] = f == 0   ? B2_FILTER_NONE
                                     : f == 1 ? B2_FILTER_BITSHUFFLE
                                     : f == 2 ? B2_FILTER_DELTA
                                              : B2_FILTER_SHUFFLE;
    if (rnd_in(0, 2))
        cp.blocksize = (int32_t)(rnd_in(1, 40) * ts * 8);
    cp.use_dict = (cp.codec == B2_CODEC_ZSTD || cp.codec == B2_CODEC_LZ4) && !rnd_in(0, 3);
    return cp;
}

/* All items of s equal the oracle. */
static int same(b2_schunk *s, const uint8_t *want, int64_t nbytes)
{
    uint8_t *got = malloc((size_t)nbytes + 1);
    int ts = b2_schunk_typesize(s);
    int64_t rc = b2_schunk_get_items(s, 0, nbytes / ts, got, (size_t)nbytes);
    int ok = rc == nbytes && !memcmp(got, want, (size_t)nbytes);
    if (!ok && rc == nbytes)
        for (int64_t i = 0; i < nbytes; i++)
            if (got[i] != want[i]) {
                printf("  first difference at byte %lld: %d, want %d\n", (long long)i, got[i],
                       want[i]);
                break;
            }
    free(got);
    return ok;
}

static int reopened_same(const char *path, const uint8_t *want, int64_t nbytes)
{
    b2_schunk *r;
    if (t_open(path, B2_OPEN_READONLY, &r) < 0)
        return 0;
    int ok = b2_schunk_nbytes(r) == nbytes && same(r, want, nbytes);
    b2_schunk_free(r);
    return ok;
}

static void model_case(int storage, int round, const char *path)
{
    int ts = (int)rnd_in(1, 16);
    b2_cparams cp = random_params(ts);
    int64_t citems = rnd_in(1, 3000), nchunks = rnd_in(1, 7);
    int64_t nitems = (nchunks - 1) * citems + rnd_in(1, citems); /* a partial last chunk */
    int64_t cbytes = citems * ts, nbytes = nitems * ts;
    b2_schunk *s = NULL;
    int rc = storage == B2_STORAGE_MEMORY ? ((s = t_new(&cp)) ? 0 : -1)
             : storage == B2_STORAGE_FILE ? t_create(path, &cp, &s)
                                          : t_create_sparse(path, &cp, &s);
    CHECK(rc >= 0, "round %d: create: %s", round, b2_last_error_message());
    if (rc < 0)
        return;
    b2_schunk_set_sync(s, 0); /* consistency, not durability, is checked here */
    uint8_t *oracle = malloc((size_t)nbytes);
    int fill_zero = !rnd_in(0, 5);
    if (fill_zero) { /* a frame of special entries, materialised by partial writes */
        memset(oracle, 0, (size_t)nbytes);
        CHECK(b2_schunk_fill_special(s, nitems, B2_SPECIAL_ZEROS, (int32_t)cbytes) >= 0,
              "round %d: fill_special", round);
    } else {
        for (int64_t off = 0; off < nbytes; off += cbytes) {
            int64_t n = nbytes - off < cbytes ? nbytes - off : cbytes;
            pattern(oracle + off, n, ts);
            CHECK(b2_schunk_append_buffer(s, oracle + off, (int32_t)n) >= 0,
                  "round %d: append: %s", round, b2_schunk_last_error(s));
        }
    }
    uint8_t *src = malloc((size_t)nbytes);
    int nwrites = (int)rnd_in(3, 10);
    for (int w = 0; w < nwrites; w++) {
        int64_t start, n;
        int shape = (int)rnd_in(0, 3);
        if (shape == 0) { /* whole chunks */
            int64_t c0 = rnd_in(0, nchunks - 1), c1 = rnd_in(c0, nchunks - 1);
            start = c0 * citems;
            n = (c1 + 1) * citems < nitems ? (c1 + 1) * citems - start : nitems - start;
        } else if (shape == 1) { /* a few items */
            start = rnd_in(0, nitems - 1);
            n = rnd_in(0, nitems - start < 5 ? nitems - start : 5);
        } else {
            start = rnd_in(0, nitems - 1);
            n = rnd_in(0, nitems - start);
        }
        pattern(src, n * ts, ts);
        int64_t got = b2_schunk_set_items(s, start, n, src, (size_t)(n * ts));
        CHECK(got == n * ts, "round %d write %d: items %lld+%lld (ts %d, chunk %lld, codec %d): "
              "%lld %s", round, w, (long long)start, (long long)n, ts, (long long)citems,
              cp.codec, (long long)got, b2_schunk_last_error(s));
        if (got < 0)
            break;
        memcpy(oracle + start * ts, src, (size_t)(n * ts));
        CHECK(b2_schunk_nbytes(s) == nbytes, "round %d: nbytes changed", round);
        CHECK(same(s, oracle, nbytes), "round %d write %d: items %lld+%lld (ts %d, chunk %lld, "
              "codec %d, dict %d, filter %d, zero fill %d): contents differ", round, w,
              (long long)start, (long long)n, ts, (long long)citems, cp.codec, cp.use_dict,
              cp.filters[B2_MAX_FILTERS - 1], fill_zero);
        if (storage != B2_STORAGE_MEMORY && (w == 0 || w == nwrites - 1))
            CHECK(reopened_same(path, oracle, nbytes), "round %d write %d: reopened differs",
                  round, w);
    }
    if (storage == B2_STORAGE_MEMORY) { /* the frame serialised and opened again */
        uint8_t *buf;
        size_t len;
        b2_schunk *r;
        CHECK(b2_schunk_to_buffer(s, &buf, &len) >= 0, "to_buffer");
        CHECK(t_open_buffer(buf, len, 0, &r) >= 0 && same(r, oracle, nbytes),
              "round %d: serialised frame differs", round);
        b2_schunk_free(r);
        free(buf);
    }
    b2_schunk_free(s);
    free(src);
    free(oracle);
    if (storage != B2_STORAGE_MEMORY)
        test_rm_tree(path);
}

static void errors(const char *path)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    b2_schunk *s;
    CHECK(t_create(path, &cp, &s) >= 0, "create");
    int32_t v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = i;
    b2_schunk_append_buffer(s, v, sizeof v);
    b2_schunk_append_buffer(s, v, 400);
    CHECK(b2_schunk_set_items(s, 1000, 101, v, sizeof v) == B2_ERR_RANGE, "past the end");
    CHECK(b2_schunk_set_items(s, 1101, 0, v, 0) == B2_ERR_RANGE, "start past the end");
    CHECK(b2_schunk_set_items(s, -1, 2, v, sizeof v) == B2_ERR_RANGE, "negative start");
    CHECK(b2_schunk_set_items(s, 0, -1, v, sizeof v) == B2_ERR_RANGE, "negative count");
    CHECK(b2_schunk_set_items(s, 0, 10, v, 39) == B2_ERR_INVALID_PARAM, "src too short");
    CHECK(b2_schunk_set_items(s, 0, 10, NULL, 40) == B2_ERR_INVALID_PARAM, "NULL src");
    CHECK(b2_schunk_set_items(NULL, 0, 1, v, 4) == B2_ERR_INVALID_PARAM, "NULL handle");
    CHECK(b2_schunk_set_items(s, 1100, 0, NULL, 0) == 0, "an empty write at the end");
    CHECK(b2_schunk_set_items(s, 998, 4, v, 16) == 16, "a write across the boundary");
    CHECK(strstr(b2_schunk_last_error(s), "") != NULL, "message");
    b2_schunk_free(s);
    CHECK(t_open(path, B2_OPEN_READONLY, &s) >= 0, "open read-only");
    CHECK(b2_schunk_set_items(s, 0, 1, v, 4) == B2_ERR_READ_ONLY, "read-only handle");
    int32_t got[4];
    CHECK(b2_schunk_get_items(s, 998, 4, got, sizeof got) == 16 && got[0] == 0 && got[3] == 3,
          "the write across the boundary reads back");
    b2_schunk_free(s);
    test_rm_tree(path);
}

/* Under b2_schunk_set_defer_commit the write waits for the commit, like appends;
 * a partly written uninit chunk keeps the written items. */
static void deferred_and_uninit(const char *path)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    b2_schunk *s, *r;
    CHECK(t_create(path, &cp, &s) >= 0, "create");
    int32_t v[3000], got[3000];
    for (int i = 0; i < 3000; i++)
        v[i] = i + 1;
    for (int c = 0; c < 3; c++)
        b2_schunk_append_buffer(s, v + 1000 * c, 4000);
    b2_schunk_set_defer_commit(s, 1);
    int32_t w[1500];
    for (int i = 0; i < 1500; i++)
        w[i] = -i;
    CHECK(b2_schunk_set_items(s, 700, 1500, w, sizeof w) == (int64_t)sizeof w, "deferred write");
    CHECK(b2_schunk_get_items(s, 700, 1500, got, sizeof got) == (int64_t)sizeof w &&
              !memcmp(got, w, sizeof w), "the writer sees its deferred write");
    CHECK(t_open(path, B2_OPEN_READONLY, &r) >= 0 &&
              b2_schunk_get_items(r, 0, 3000, got, sizeof got) == (int64_t)sizeof v &&
              !memcmp(got, v, sizeof v), "others see the last commit");
    CHECK(b2_schunk_set_defer_commit(s, 0) >= 0, "commit");
    memcpy(v + 700, w, sizeof w);
    CHECK(b2_schunk_refresh(r) == 1 && b2_schunk_get_items(r, 0, 3000, got, sizeof got) ==
              (int64_t)sizeof v && !memcmp(got, v, sizeof v), "committed");
    b2_schunk_free(r);
    b2_schunk_free(s);
    test_rm_tree(path);

    s = t_new(&cp);
    CHECK(b2_schunk_fill_special(s, 3000, B2_SPECIAL_UNINIT, 4000) == 3, "uninit frame");
    CHECK(b2_schunk_set_items(s, 500, 1000, w, sizeof w) == 4000, "write into uninit chunks");
    CHECK(b2_schunk_get_items(s, 500, 1000, got, sizeof got) == 4000 && !memcmp(got, w, 4000),
          "written items of uninit chunks");
    b2_schunk_free(s);
}

/* Blocks decoded by s's idle reader so far. */
static int64_t decoded(b2_schunk *s)
{
    return s->readers.idle ? b2_dctx_blocks_decoded(s->readers.idle->dctx) : 0;
}

/* A partly written chunk decodes only the blocks the write leaves (partly)
 * unwritten; a wholly written one none; untouched chunks none. */
static void blocks_decoded(void)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    cp.blocksize = 4000; /* 8 blocks of 1000 items per chunk */
    b2_schunk *s = t_new(&cp);
    static int32_t v[32000], w[32000], got[32000];
    for (int i = 0; i < 32000; i++) {
        v[i] = i * 3;
        w[i] = -i;
    }
    for (int c = 0; c < 4; c++)
        b2_schunk_append_buffer(s, v + 8000 * c, 32000);
    int32_t one;
    b2_schunk_get_items(s, 0, 1, &one, sizeof one); /* make the reader */
    int64_t d0 = decoded(s);
    /* chunk 1 from item 500 of block 0 to item 500 of block 7: blocks 0 and 7 */
    CHECK(b2_schunk_set_items(s, 8500, 7000, w, sizeof w) == 28000, "write");
    int64_t d1 = decoded(s);
    CHECK(d1 - d0 == 2, "%lld blocks decoded, want 2", (long long)(d1 - d0));
    /* chunks 2 whole and 3 from its start to item 10 of block 2: blocks 2..7 */
    CHECK(b2_schunk_set_items(s, 16000, 10010, w, sizeof w) == 40040, "write");
    CHECK(decoded(s) - d1 == 6, "%lld blocks decoded, want 6", (long long)(decoded(s) - d1));
    memcpy(v + 8500, w, 28000);
    memcpy(v + 16000, w, 40040);
    CHECK(b2_schunk_get_items(s, 0, 32000, got, sizeof got) == (int64_t)sizeof got &&
              !memcmp(got, v, sizeof v), "contents");
    b2_schunk_free(s);
}

/* A file frame of 6 chunks of 1000 int32. */
static b2_schunk *six_chunks(const char *path, int sparse)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    cp.codec = B2_CODEC_LZ4;
    b2_schunk *s = NULL;
    if ((sparse ? t_create_sparse(path, &cp, &s) : t_create(path, &cp, &s)) < 0)
        return NULL;
    b2_schunk_set_sync(s, 0); /* building is not under test */
    int32_t v[1000];
    for (int c = 0; c < 6; c++) {
        for (int i = 0; i < 1000; i++)
            v[i] = c * 1000 + i;
        b2_schunk_append_buffer(s, v, sizeof v);
    }
    b2_schunk_set_sync(s, 1);
    return s;
}

/* Write-like operations a set_items over n items from item 500 takes. */
static int64_t writes_needed(const char *path, int64_t n)
{
    static int32_t src[6000];
    for (int i = 0; i < 6000; i++)
        src[i] = i * 7; /* not zeros: those would become special entries, not writes */
    for (int64_t f = 0; f < 200; f++) {
        b2_schunk *s = six_chunks(path, 0);
        if (!s)
            return -1;
        b2_schunk_inject_write_faults(s, f, 0);
        int64_t rc = b2_schunk_set_items(s, 500, n, src, sizeof src);
        b2_schunk_free(s);
        test_rm_tree(path);
        if (rc >= 0)
            return f;
    }
    return -1;
}

static void crash(const char *path, int sparse)
{
    int32_t old[6000], neu[6000], got[6000], src[2500];
    for (int i = 0; i < 6000; i++)
        old[i] = neu[i] = i;
    for (int i = 0; i < 2500; i++)
        src[i] = neu[700 + i] = -1 - i * 3;
    int nold = 0, nnew = 0;
    for (int64_t f = 0; f < 200; f++) {
        b2_schunk *s = six_chunks(path, sparse);
        CHECK(s != NULL, "build");
        if (!s)
            return;
        b2_schunk_inject_write_faults(s, f, (int)(f & 1));
        int64_t rc = b2_schunk_set_items(s, 700, 2500, src, sizeof src);
        if (rc < 0) {
            b2_schunk_inject_write_faults(s, -1, 0);
            CHECK(b2_schunk_append_buffer(s, src, 400) < 0,
                  "crash at %lld: handle still writable", (long long)f);
        }
        b2_schunk_free(s);
        b2_schunk *r;
        int orc = t_open(path, B2_OPEN_READONLY, &r);
        CHECK(orc >= 0, "%s crash at %lld: the frame does not open", sparse ? "sparse" : "file",
              (long long)f);
        if (orc >= 0) {
            int g = b2_schunk_get_items(r, 0, 6000, got, sizeof got) == (int64_t)sizeof got;
            int is_old = g && !memcmp(got, old, sizeof got);
            int is_new = g && !memcmp(got, neu, sizeof got);
            CHECK(is_old || is_new, "%s crash at %lld: neither old nor new contents",
                  sparse ? "sparse" : "file", (long long)f);
            CHECK(rc < 0 || is_new, "completed but not new");
            nold += is_old;
            nnew += is_new;
            b2_schunk_free(r);
        }
        test_rm_tree(path);
        if (rc >= 0)
            break;
    }
    CHECK(nold > 2 && nnew >= 1, "crash runs: %d old, %d new", nold, nnew);
}

int main(void)
{
    char path[64];
    snprintf(path, sizeof path, "test_schunk_set_items_%d.b2frame", (int)getpid());
    test_rng_seed(0x5e71735ULL);
    int rounds = getenv("B2_STRESS_ROUNDS") ? 40 * atoi(getenv("B2_STRESS_ROUNDS")) : 40;
    for (int round = 0; round < rounds; round++)
        for (int st = B2_STORAGE_MEMORY; st <= B2_STORAGE_SPARSE; st++)
            model_case(st, round, path);
    errors(path);
    deferred_and_uninit(path);
    blocks_decoded();
    /* one commit per call: each further chunk costs one chunk write */
    int64_t w1 = writes_needed(path, 100), w3 = writes_needed(path, 2100);
    CHECK(w1 > 0 && w3 == w1 + 2, "writes: %lld for one chunk, %lld for three", (long long)w1,
          (long long)w3);
    crash(path, 0);
    crash(path, 1);
    return b2t_summary("set_items");
}
