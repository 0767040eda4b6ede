/* SPDX-License-Identifier: BSD-3-Clause */
/* b2_schunk_refresh and b2_nd_refresh: a read-only handle beside a writer.
 * Without a refresh the reader keeps the view it opened (file frames: every
 * chunk of it still reads right); after one it shows what the writer committed
 * (appends, updates, item writes, deletes, metalayer and vlmetalayer changes, a
 * compaction's new file, a b2nd resize) and says whether anything changed.
 * Then a writer thread and a reader thread that refreshes as it goes (run under
 * ThreadSanitizer too): every state the reader sees holds whole chunks of the
 * writer's, in order, and it ends with all of them. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "b2_frame.h"
#include "b2_nd.h"
#include "check.h"
#include "scratch.h"
#include "frame_open.h"

#define CITEMS 1000

static void chunk_data(int32_t *d, int v)
{
    for (int i = 0; i < CITEMS; i++)
        d[i] = v * 100000 + i;
}

/* chunk i of s holds chunk_data(v)? */
static int holds(b2_schunk *s, int64_t i, int v)
{
    int32_t got[CITEMS], want[CITEMS];
    chunk_data(want, v);
    return b2_schunk_decompress_chunk(s, i, got, sizeof got) == (int)sizeof got &&
           !memcmp(got, want, sizeof got);
}

static int meta_is(b2_schunk *s, const char *name, const char *want, int vl)
{
    uint8_t *c = NULL;
    int32_t len = 0;
    int rc = vl ? b2_schunk_vlmeta_get(s, name, &c, &len) : b2_schunk_meta_get(s, name, &c, &len);
    int ok = rc >= 0 && len == (int32_t)strlen(want) && !memcmp(c, want, (size_t)len);
    free(c);
    return ok;
}

static void beside_writer(const char *path, int sparse)
{
    const char *kind = sparse ? "sparse" : "file";
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    b2_schunk *w, *r;
    int rc = sparse ? t_create_sparse(path, &cp, &w) : t_create(path, &cp, &w);
    CHECK(rc >= 0, "%s: create", kind);
    if (rc < 0)
        return;
    b2_schunk_set_sync(w, 0);
    int32_t d[CITEMS];
    b2_schunk_meta_add(w, "m", "one", 3);
    b2_schunk_vlmeta_add(w, "v", "first", 5);
    for (int k = 0; k < 2; k++) {
        chunk_data(d, k);
        b2_schunk_append_buffer(w, d, sizeof d);
    }
    CHECK(t_open(path, B2_OPEN_READONLY, &r) >= 0, "%s: open the reader", kind);
    CHECK(b2_schunk_refresh(r) == 0, "%s: nothing new yet", kind);

    /* appends, an update, metalayer changes */
    for (int k = 2; k < 5; k++) {
        chunk_data(d, k);
        b2_schunk_append_buffer(w, d, sizeof d);
    }
    chunk_data(d, 10);
    CHECK(b2_schunk_set_items(w, CITEMS, CITEMS, d, sizeof d) == (int64_t)sizeof d,
          "%s: set_items", kind);
    b2_schunk_meta_update(w, "m", "two", 3);
    b2_schunk_vlmeta_update(w, "v", "second!", 7);
    b2_schunk_vlmeta_add(w, "v2", "new", 3);
    /* the old view stays (a sparse frame removed chunk 1's old file) */
    CHECK(b2_schunk_nchunks(r) == 2 && holds(r, 0, 0) && (sparse || holds(r, 1, 1)),
          "%s: the old view changed", kind);
    CHECK(meta_is(r, "m", "one", 0) && meta_is(r, "v", "first", 1), "%s: old metalayers", kind);
    CHECK(b2_schunk_refresh(r) == 1, "%s: refresh sees the commits", kind);
    CHECK(b2_schunk_nchunks(r) == 5 && b2_schunk_nbytes(r) == 5 * (int64_t)sizeof d,
          "%s: %lld chunks after refresh", kind, (long long)b2_schunk_nchunks(r));
    CHECK(holds(r, 0, 0) && holds(r, 1, 10) && holds(r, 2, 2) && holds(r, 4, 4),
          "%s: chunks after refresh", kind);
    CHECK(meta_is(r, "m", "two", 0) && meta_is(r, "v", "second!", 1) && meta_is(r, "v2", "new", 1),
          "%s: metalayers after refresh", kind);
    CHECK(b2_schunk_vlmeta_count(r) == 2, "%s: vlmeta count", kind);
    CHECK(b2_schunk_refresh(r) == 0, "%s: a second refresh finds nothing", kind);

    /* deletes, then a compaction (a new file) */
    b2_schunk_delete_chunk(w, 0);
    b2_schunk_delete_chunk(w, 0);
    CHECK(b2_schunk_refresh(r) == 1 && b2_schunk_nchunks(r) == 3 && holds(r, 0, 2),
          "%s: deletes", kind);
    CHECK(b2_schunk_compact(w) >= 0, "%s: compact", kind);
    chunk_data(d, 7);
    b2_schunk_append_buffer(w, d, sizeof d);
    CHECK(b2_schunk_refresh(r) == 1 && b2_schunk_nchunks(r) == 4 && holds(r, 2, 4) &&
              holds(r, 3, 7),
          "%s: after compaction", kind);
    b2_schunk_free(w);

    /* writable and memory handles have nobody else's commits to take */
    CHECK(t_open(path, B2_OPEN_WRITE, &w) >= 0 && b2_schunk_refresh(w) == 0,
          "%s: a writable handle", kind);
    b2_schunk_free(w);
    b2_schunk_free(r);
    b2_schunk *m = t_new(&cp);
    CHECK(b2_schunk_refresh(m) == 0, "memory handle");
    b2_schunk_free(m);
    CHECK(b2_schunk_refresh(NULL) == B2_ERR_INVALID_PARAM, "NULL");
    test_rm_tree(path);
}

/* A b2nd array grown by a writer: the reader's shape follows on refresh. */
static void nd_resize(const char *path)
{
    b2_nd_params p;
    memset(&p, 0, sizeof p);
    p.typesize = 8;
    p.ndim = 2;
    p.shape[0] = 10;
    p.shape[1] = 6;
    p.chunkshape[0] = 4;
    p.chunkshape[1] = 6;
    p.blockshape[0] = 2;
    p.blockshape[1] = 3;
    b2_nd_storage st;
    memset(&st, 0, sizeof st);
    st.kind = B2_STORAGE_FILE;
    st.path = path;
    double v[120];
    for (int i = 0; i < 120; i++)
        v[i] = i * 0.5;
    b2_nd_array *w = NULL, *r = NULL;
    int rc = b2_nd_from_cbuffer(&p, &st, v, 60 * sizeof *v, &w);
    CHECK(rc >= 0, "nd: create: %s", b2_last_error_message());
    if (rc < 0)
        return;
    CHECK(b2_nd_open(path, B2_OPEN_READONLY, &r) >= 0, "nd: open reader");
    CHECK(b2_nd_refresh(r) == 0, "nd: nothing new");
    CHECK(b2_nd_append(w, v + 60, 60 * sizeof *v, 0) >= 0, "nd: append: %s", b2_nd_last_error(w));
    CHECK(b2_nd_shape(r)[0] == 10, "nd: the old shape stays");
    CHECK(b2_nd_refresh(r) == 1 && b2_nd_shape(r)[0] == 20 && b2_nd_nitems(r) == 120,
          "nd: refreshed shape %lld", (long long)b2_nd_shape(r)[0]);
    double got[120];
    CHECK(b2_nd_to_cbuffer(r, got, sizeof got) >= 0 && !memcmp(got, v, sizeof got),
          "nd: contents after refresh: %s", b2_nd_last_error(r));
    b2_nd_free(w);
    b2_nd_free(r);
    test_rm_tree(path);
}

/* ---- a writer thread and a refreshing reader thread ---- */

#define NCHUNKS 60
typedef struct shared {
    const char *path;
    int sparse;
    int fail;
    atomic_int writer_done; /* set when the writer has closed the file */
} shared;

static void *writer(void *arg)
{
    shared *sh = arg;
    b2_schunk *w;
    if (t_open(sh->path, B2_OPEN_WRITE, &w) < 0) {
        sh->fail = 1;
        return NULL;
    }
    b2_schunk_set_sync(w, 0);
    int32_t d[CITEMS];
    for (int k = 1; k < NCHUNKS && !sh->fail; k++) {
        chunk_data(d, k);
        if (b2_schunk_append_buffer(w, d, sizeof d) != k + 1)
            sh->fail = 2;
        /* rewrite items of an earlier chunk with the same values: a new index */
        chunk_data(d, k / 2);
        if (b2_schunk_set_items(w, (int64_t)(k / 2) * CITEMS + 100, 300, d + 100,
                                300 * sizeof *d) < 0)
            sh->fail = 3;
    }
    b2_schunk_free(w);
    atomic_store(&sh->writer_done, 1);
    return NULL;
}

static void *reader(void *arg)
{
    shared *sh = arg;
    b2_schunk *r;
    if (t_open(sh->path, B2_OPEN_READONLY, &r) < 0) {
        sh->fail = 4;
        return NULL;
    }
    /* Refresh until all chunks are seen. The reader may spin much faster than a
     * starved writer (a loaded CI machine), so the end is the writer's: once it
     * has closed the file, one more refresh must show every chunk. */
    int64_t last = 0;
    while (last < NCHUNKS && !sh->fail) {
        int finished = atomic_load(&sh->writer_done);
        int rc = b2_schunk_refresh(r);
        if (rc < 0) {
            printf("refresh: %s\n", b2_schunk_last_error(r));
            sh->fail = 5;
            break;
        }
        int64_t n = b2_schunk_nchunks(r);
        if (n < last)
            sh->fail = 6;
        last = n;
        /* a sparse writer removes replaced chunk files: only the newest chunk is safe */
        for (int64_t i = sh->sparse ? n - 1 : 0; i < n && !sh->fail; i++)
            if (!holds(r, i, (int)i) && (!sh->sparse || b2_schunk_refresh(r) < 0)) {
                printf("chunk %lld of %lld\n", (long long)i, (long long)n);
                sh->fail = 7;
            }
        if (finished && last != NCHUNKS && !sh->fail)
            sh->fail = 8; /* the writer had finished: this refresh saw all it wrote */
    }
    b2_schunk_free(r);
    return NULL;
}

static void concurrent(const char *path, int sparse)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    b2_schunk *w;
    int rc = sparse ? t_create_sparse(path, &cp, &w) : t_create(path, &cp, &w);
    CHECK(rc >= 0, "create");
    if (rc < 0)
        return;
    int32_t d[CITEMS];
    chunk_data(d, 0);
    b2_schunk_append_buffer(w, d, sizeof d);
    b2_schunk_free(w);
    shared sh = {path, sparse, 0, 0};
    pthread_t tw, tr;
    pthread_create(&tr, NULL, reader, &sh);
    pthread_create(&tw, NULL, writer, &sh);
    pthread_join(tw, NULL);
    pthread_join(tr, NULL);
    CHECK(sh.fail == 0, "%s: concurrent refresh: failure %d", sparse ? "sparse" : "file", sh.fail);
    test_rm_tree(path);
}

int main(void)
{
    char path[64];
    snprintf(path, sizeof path, "test_schunk_refresh_%d.b2frame", (int)getpid());
    beside_writer(path, 0);
    beside_writer(path, 1);
    nd_resize(path);
    int rounds = getenv("B2_STRESS_ROUNDS") ? atoi(getenv("B2_STRESS_ROUNDS")) : 1;
    for (int i = 0; i < rounds; i++) {
        concurrent(path, 0);
        concurrent(path, 1);
    }
    return b2t_summary("refresh");
}
