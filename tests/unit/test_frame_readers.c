/* SPDX-License-Identifier: BSD-3-Clause */
/* Readers of a frame that a writer goes on modifying: the two ways a reader went
 * wrong, replayed step by step (tests/faults/fault_reader.c found them with
 * real processes).
 *
 * 1. A file frame grows while a reader opens it: the reader took the file's
 *    size, then read a header a writer had committed since, which describes
 *    more bytes than that size. Opening failed ("frame_len ... but ... bytes
 *    available") although every byte was there.
 * 2. A sparse frame gave the id of a removed chunk file to a new chunk: a reader
 *    holding the older index read the new chunk as the old one. Ids are now
 *    never reused, also by a later writer. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "frame_internal.h"
#include "scratch.h"
#include "frame_open.h"

static void chunk_data(int32_t *d, int n, int v)
{
    for (int i = 0; i < n; i++)
        d[i] = v * 100000 + i;
}

/* chunk i of s holds chunk_data(v)? */
static int holds(b2_schunk *s, int64_t i, int v)
{
    int32_t got[1000], want[1000];
    chunk_data(want, 1000, v);
    return b2_schunk_decompress_chunk(s, i, got, sizeof got) == (int)sizeof got &&
           !memcmp(got, want, sizeof got);
}

static void stale_size(const char *path)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    b2_schunk *w, *r;
    int32_t d[1000];
    CHECK(t_create(path, &cp, &w) >= 0, "create %s", path);
    chunk_data(d, 1000, 1);
    b2_schunk_append_buffer(w, d, sizeof d);
    struct stat st;
    stat(path, &st);
    /* the reader has taken the size; the writer commits an append */
    chunk_data(d, 1000, 2);
    CHECK(b2_schunk_append_buffer(w, d, sizeof d) == 2, "append");
    r = b2_schunk_alloc(NULL);
    r->io.storage = B2_STORAGE_FILE;
    r->io.place = b2_frame_place_for(B2_STORAGE_FILE); /* as b2_schunk_open_with sets it */
    r->io.path = strdup(path);
    int rc = b2_store_file(path, 0, 0, 0, &r->io.store);
    if (rc >= 0)
        rc = b2_frame_load(r, (int64_t)st.st_size);
    CHECK(rc == 0, "opening with the size from before the commit: %s", b2_last_error_message());
    CHECK(rc < 0 || (b2_schunk_nchunks(r) == 2 && holds(r, 0, 1) && holds(r, 1, 2)),
          "the frame read is not the committed one");
    b2_schunk_free(r);
    b2_schunk_free(w);
    unlink(path);
}

static int count_files(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, ".chunk") != NULL;
    if (d)
        closedir(d);
    return n;
}

static void sparse_ids(const char *dir)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    b2_schunk *w, *r;
    int32_t d[1000];
    CHECK(t_create_sparse(dir, &cp, &w) >= 0, "create %s", dir);
    for (int v = 0; v < 3; v++) {
        chunk_data(d, 1000, v);
        b2_schunk_append_buffer(w, d, sizeof d);
    }
    b2_schunk_free(w);
    /* a reader loads the index of chunks 0 1 2 */
    CHECK(t_open(dir, B2_OPEN_READONLY, &r) >= 0, "open reader");
    /* one writer updates the last chunk, then deletes it; a later writer appends */
    uint8_t c[4000 + B2_MAX_OVERHEAD];
    b2_cctx *cc = b2_cctx_new(&cp);
    chunk_data(d, 1000, 7);
    int cb = b2_chunk_compress(cc, d, sizeof d, c, sizeof c);
    t_open(dir, B2_OPEN_WRITE, &w);
    CHECK(b2_schunk_update_chunk(w, 2, c, cb) == 3, "update");
    CHECK(b2_schunk_delete_chunk(w, 2) == 2, "delete");
    b2_schunk_free(w);
    /* one file stays: the highest id, unreferenced */
    CHECK(count_files(dir) == 3, "%d chunk files after the delete, not 2 + the kept one",
          count_files(dir));
    for (int k = 0; k < 2; k++) {
        t_open(dir, B2_OPEN_WRITE, &w);
        chunk_data(d, 1000, 8 + k);
        CHECK(b2_schunk_append_buffer(w, d, sizeof d) == 3, "append");
        b2_schunk_free(w);
        /* the reader's chunk 2 is still the original, or missing: never the new one */
        for (int64_t i = 0; i < 3; i++) {
            int32_t got[1000];
            int rc = b2_schunk_decompress_chunk(r, i, got, sizeof got);
            CHECK(rc == B2_ERR_NOT_FOUND || holds(r, i, (int)i),
                  "round %d: the reader's chunk %lld reads as another chunk (rc %d)", k,
                  (long long)i, rc);
        }
        t_open(dir, B2_OPEN_WRITE, &w);
        CHECK(b2_schunk_delete_chunk(w, 2) == 2, "delete");
        b2_schunk_free(w);
    }
    b2_schunk_free(r);
    /* the kept file goes once a higher id is committed */
    t_open(dir, B2_OPEN_WRITE, &w);
    chunk_data(d, 1000, 20);
    b2_schunk_append_buffer(w, d, sizeof d);
    CHECK(count_files(dir) == 3, "%d chunk files for 3 chunks", count_files(dir));
    CHECK(holds(w, 0, 0) && holds(w, 1, 1) && holds(w, 2, 20), "final content");
    b2_schunk_free(w);
    b2_cctx_free(cc);
    test_rm_tree(dir);
}

int main(void)
{
    char tmp[] = "/tmp/b2_frame_readersXXXXXX";
    char *d = mkdtemp(tmp);
    char path[4200];
    snprintf(path, sizeof path, "%s/cf.b2frame", d);
    stale_size(path);
    snprintf(path, sizeof path, "%s/sf.b2frame", d);
    sparse_ids(path);
    rmdir(d);
    return b2t_summary("frame readers");
}
