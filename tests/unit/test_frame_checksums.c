/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-chunk checksums (doc/format/checksums.md): kept current through every kind
 * of write on memory, file, sparse and user-I/O frames and across reopening; a
 * flipped byte in a stored chunk is named by index (b2_schunk_checksum_state,
 * verifying reads); a frame changed by a writer that keeps no checksums reads as
 * stale where it changed; a damaged table is reported, not trusted; and the
 * cost of keeping them on appends is printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "b2_frame.h"
#include "check.h"
#include "scratch.h"
#include "frame_open.h"
#include "b2_frame_experimental.h"

#define N 2000 /* int32 items per chunk */

static void fill(int32_t *d, int c)
{
    for (int i = 0; i < N; i++)
        d[i] = c * 7919 + (i % 97) * (c + 1);
}

static b2_schunk *create(const char *path, int sparse, int policy)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    cp.codec = B2_CODEC_LZ4;
    b2_open_options o;
    b2_open_options_init(&o);
    o.flags = B2_OPEN_CREATE;
    o.path = path;
    o.sparse = sparse;
    o.cparams = &cp;
    o.checksums = policy;
    b2_schunk *s = NULL;
    int rc = b2_schunk_open_with(&o, &s);
    CHECK(rc == B2_OK, "create %s: %d %s", path ? path : "memory", rc, b2_last_error_message());
    return s;
}

static b2_schunk *reopen(const char *path, int flags, int policy, int verify)
{
    b2_open_options o;
    b2_open_options_init(&o);
    o.path = path;
    o.flags = flags;
    o.checksums = policy;
    o.verify = verify;
    b2_schunk *s = NULL;
    int rc = b2_schunk_open_with(&o, &s);
    CHECK(rc == B2_OK, "open %s: %d %s", path, rc, b2_last_error_message());
    return s;
}

/* Every state equals want (or the list in wants, when given). */
static void states(b2_schunk *s, int want, const int *wants, const char *what)
{
    for (int64_t i = 0; i < b2_schunk_nchunks(s); i++) {
        int w = wants ? wants[i] : want, st = b2_schunk_checksum_state(s, i);
        CHECK(st == w, "%s: chunk %lld state %d, want %d (%s)", what, (long long)i, st, w,
              b2_schunk_last_error(s));
    }
}

/* Chunk c of the test data, compressed into chunk (N * 4 + 64 bytes). */
static int make_chunk(int c, uint8_t *chunk)
{
    int32_t d[N];
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    b2_cctx *cc = b2_cctx_new(&cp);
    fill(d, c);
    int cb = b2_chunk_compress(cc, d, sizeof d, chunk, N * 4 + 64);
    b2_cctx_free(cc);
    return cb;
}

/* Append 6 chunks, insert, update, delete, reorder and a zeros chunk. */
static void writes(b2_schunk *s)
{
    int32_t d[N];
    for (int c = 0; c < 6; c++) {
        fill(d, c);
        CHECK(b2_schunk_append_buffer(s, d, sizeof d) == c + 1, "append %d", c);
    }
    uint8_t chunk[N * 4 + 64];
    int cb = make_chunk(40, chunk);
    CHECK(b2_schunk_insert_chunk(s, 2, chunk, cb) == 7, "insert");
    cb = make_chunk(41, chunk);
    CHECK(b2_schunk_update_chunk(s, 4, chunk, cb) == 7, "update");
    CHECK(b2_schunk_delete_chunk(s, 0) == 6, "delete");
    int64_t order[6] = {5, 0, 4, 1, 3, 2};
    CHECK(b2_schunk_reorder(s, order) == 6, "reorder");
    cb = b2_chunk_make_special(B2_SPECIAL_ZEROS, 4, N * 4, NULL, chunk, sizeof chunk);
    CHECK(b2_schunk_update_chunk(s, 3, chunk, cb) == 6, "zeros");
}

/* Where chunk i's stored bytes start in a contiguous frame file. */
static int64_t chunk_pos(b2_schunk *s, int64_t i)
{
    b2_frame_entry e;
    b2_frame_info fi;
    CHECK(b2_schunk_frame_entry(s, i, &e) == B2_OK && e.kind == B2_ENTRY_OFFSET, "entry %lld",
          (long long)i);
    b2_schunk_frame_info(s, &fi);
    return fi.header_len + e.offset;
}

static void flip(const char *path, int64_t pos)
{
    FILE *f = fopen(path, "r+b");
    int c;
    fseek(f, (long)pos, SEEK_SET);
    c = fgetc(f);
    fseek(f, (long)pos, SEEK_SET);
    fputc(c ^ 0x10, f);
    fclose(f);
}

static void kinds(const char *dir)
{
    char path[512], spath[512];
    snprintf(path, sizeof path, "%s/f.b2frame", dir);
    snprintf(spath, sizeof spath, "%s/s.b2frame", dir);
    /* memory */
    b2_schunk *s = create(NULL, 0, B2_CHECKSUMS_ON);
    writes(s);
    CHECK(b2_schunk_has_checksums(s), "memory frame has checksums");
    states(s, B2_CHECKSUM_OK, NULL, "memory");
    uint8_t *buf;
    size_t len;
    CHECK(b2_schunk_to_buffer(s, &buf, &len) == B2_OK, "to_buffer");
    b2_schunk_free(s);
    CHECK(t_open_buffer(buf, len, 0, &s) == B2_OK && b2_schunk_has_checksums(s),
          "buffer reopened with checksums");
    states(s, B2_CHECKSUM_OK, NULL, "memory reopened");
    b2_schunk_free(s);
    free(buf);
    /* file and sparse, reopened with verification */
    for (int sparse = 0; sparse < 2; sparse++) {
        const char *p = sparse ? spath : path;
        s = create(p, sparse, B2_CHECKSUMS_ON);
        writes(s);
        states(s, B2_CHECKSUM_OK, NULL, sparse ? "sparse" : "file");
        b2_schunk_free(s);
        s = reopen(p, B2_OPEN_READONLY, B2_CHECKSUMS_KEEP, 1);
        states(s, B2_CHECKSUM_OK, NULL, sparse ? "sparse reopened" : "file reopened");
        int32_t d[N * 6];
        CHECK(b2_schunk_get_items(s, 0, N * 6, d, sizeof d) == (int64_t)sizeof d,
              "verified read of every item");
        b2_schunk_free(s);
    }
    /* no checksums */
    s = create(NULL, 0, B2_CHECKSUMS_KEEP);
    writes(s);
    CHECK(!b2_schunk_has_checksums(s), "no checksums unless asked");
    states(s, B2_CHECKSUM_NONE, NULL, "without checksums");
    /* added later, then removed */
    CHECK(b2_schunk_set_checksums(s, B2_CHECKSUMS_ON) == B2_OK, "added later");
    states(s, B2_CHECKSUM_OK, NULL, "added later");
    CHECK(b2_schunk_set_checksums(s, B2_CHECKSUMS_OFF) == B2_OK && !b2_schunk_has_checksums(s) &&
              b2_schunk_vlmeta_count(s) == 0, "removed");
    b2_schunk_free(s);
    /* a frame of special entries only */
    s = create(NULL, 0, B2_CHECKSUMS_ON);
    CHECK(b2_schunk_fill_special(s, 10 * N, B2_SPECIAL_ZEROS, N * 4) == 10, "fill_special");
    states(s, B2_CHECKSUM_OK, NULL, "special entries");
    b2_schunk_free(s);
}

static void damage(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/d.b2frame", dir);
    b2_schunk *s = create(path, 0, B2_CHECKSUMS_ON);
    writes(s);
    int64_t pos = chunk_pos(s, 2);
    int32_t cb = b2_schunk_chunk_cbytes(s, 2);
    b2_schunk_free(s);
    flip(path, pos + cb - 3); /* the last stored bytes of chunk 2 */
    s = reopen(path, B2_OPEN_READONLY, B2_CHECKSUMS_KEEP, 0);
    int want[6] = {0, 0, B2_ERR_CHECKSUM, 0, 0, 0};
    states(s, 0, want, "damaged");
    CHECK(strstr(b2_schunk_last_error(s), "chunk 2"), "message names chunk 2: %s",
          b2_schunk_last_error(s));
    b2_schunk_free(s);
    s = reopen(path, B2_OPEN_READONLY, B2_CHECKSUMS_KEEP, 1);
    int32_t d[N];
    CHECK(b2_schunk_decompress_chunk(s, 1, d, sizeof d) == (int)sizeof d, "chunk 1 reads");
    CHECK(b2_schunk_decompress_chunk(s, 2, d, sizeof d) == B2_ERR_CHECKSUM,
          "a verifying read of chunk 2 fails");
    CHECK(b2_schunk_get_items(s, 2 * N + 10, 5, d, 20) == B2_ERR_CHECKSUM,
          "a verifying partial read of chunk 2 fails too");
    b2_schunk_free(s);
}

static void stale(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/st.b2frame", dir);
    b2_schunk *s = create(path, 0, B2_CHECKSUMS_ON);
    writes(s);
    b2_schunk_free(s);
    /* a writer that keeps no checksums: updates chunk 1, deletes chunk 0, appends */
    s = reopen(path, B2_OPEN_WRITE, B2_CHECKSUMS_IGNORE, 0);
    int32_t d[N];
    uint8_t chunk[N * 4 + 64];
    int cb = make_chunk(77, chunk);
    CHECK(b2_schunk_update_chunk(s, 1, chunk, cb) == 6, "foreign update");
    CHECK(b2_schunk_delete_chunk(s, 0) == 5, "foreign delete");
    CHECK(b2_schunk_append_chunk(s, chunk, cb) == 6, "foreign append");
    b2_schunk_free(s);
    s = reopen(path, B2_OPEN_READONLY, B2_CHECKSUMS_KEEP, 1);
    /* old 1 (now 0) changed, old 2..5 moved up by one, a new last chunk */
    int want[6] = {B2_CHECKSUM_STALE, 0, 0, 0, 0, B2_CHECKSUM_STALE};
    states(s, 0, want, "after a writer without checksums");
    CHECK(b2_schunk_decompress_chunk(s, 0, d, sizeof d) == (int)sizeof d,
          "a stale chunk still reads when verifying");
    b2_schunk_free(s);
    /* a writer that keeps them covers the new bytes */
    s = reopen(path, B2_OPEN_WRITE, B2_CHECKSUMS_ON, 0);
    states(s, B2_CHECKSUM_OK, NULL, "covered again");
    b2_schunk_free(s);
    /* a damaged table: reported by every check, reads without verification go on */
    s = reopen(path, B2_OPEN_WRITE, B2_CHECKSUMS_IGNORE, 0);
    CHECK(b2_schunk_vlmeta_update(s, "b2.checksums", "junk", 4) >= 0, "table overwritten");
    b2_schunk_free(s);
    s = reopen(path, B2_OPEN_READONLY, B2_CHECKSUMS_KEEP, 0);
    states(s, B2_ERR_CHECKSUM, NULL, "damaged table");
    CHECK(strstr(b2_schunk_last_error(s), "table"), "message says the table: %s",
          b2_schunk_last_error(s));
    CHECK(b2_schunk_decompress_chunk(s, 0, d, sizeof d) == (int)sizeof d, "reads go on");
    b2_schunk_free(s);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* What keeping checksums costs per append (printed; speed is not asserted):
 * 1000 appends of small chunks (the table dominates what a commit writes)
 * and 1000 of 256 KiB ones. */
static void append_cost(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cost.b2frame", dir);
    enum { BIG = 65536 };
    int32_t *d = malloc(BIG * sizeof *d);
    uint32_t x = 12345;
    for (int i = 0; i < BIG; i++)
        d[i] = i / 7 + (int32_t)((x = x * 1103515245u + 12345u) >> 26);
    for (int big = 0; big < 2; big++) {
        double t[2];
        int64_t len[2];
        for (int on = 0; on < 2; on++) {
            remove(path);
            b2_schunk *s = create(path, 0, on ? B2_CHECKSUMS_ON : B2_CHECKSUMS_KEEP);
            b2_schunk_set_sync(s, 0);
            double t0 = now();
            for (int c = 0; c < 1000; c++) {
                d[c % BIG] = c;
                b2_schunk_append_buffer(s, d, (big ? BIG : N) * 4);
            }
            t[on] = now() - t0;
            len[on] = b2_schunk_frame_len(s);
            CHECK(b2_schunk_nchunks(s) == 1000, "1000 appends");
            if (on && big)
                states(s, B2_CHECKSUM_OK, NULL, "1000 appends");
            b2_schunk_free(s);
        }
        printf("1000 appends of %d KiB to a file frame: %.1f ms without checksums, %.1f ms "
               "with (x%.2f); frame %lld -> %lld bytes\n",
               (big ? BIG : N) * 4 / 1024, t[0] * 1e3, t[1] * 1e3, t[1] / t[0], (long long)len[0],
               (long long)len[1]);
    }
    free(d);
}

int main(void)
{
    char dir[] = "/tmp/b2sumXXXXXX";
    if (!mkdtemp(dir))
        return 1;
    kinds(dir);
    damage(dir);
    stale(dir);
    append_cost(dir);
    test_rm_tree(dir);
    return b2t_summary("frame checksums");
}
