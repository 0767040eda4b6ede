/* SPDX-License-Identifier: BSD-3-Clause */
/* Crash consistency of file-backed frames (contiguous file and sparse directory).
 *
 * For each modifying operation and each write boundary N, the operation runs with
 * an internal hook that makes write N and every later one fail (the process "dies"
 * there; in the torn variant write N first stores half its bytes). The frame must
 * then open and hold exactly the old or exactly the new content, the new one once
 * every write went through, and the operation must succeed when retried.
 * Assumption: a write that stays inside one 512-byte sector (the header's changing
 * fields, a metalayer update) is atomic, as a sector is on real disks. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "b2_frame_experimental.h"
#include "manifest.h"
#include "frame_open.h"

static int failures, nruns, nold, nnew;
#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); failures++; } while (0)

/* ---- snapshots of a file or a directory ---- */
typedef struct { char name[260]; uint8_t *data; size_t len; } sfile;
typedef struct { int isdir, n; sfile f[64]; } snapshot;

static void spit(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(p, 1, n, f);
    fclose(f);
}

static void rm_rf(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        char p[4500];
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(path);
}

static void take(snapshot *s, const char *path)
{
    struct stat st;
    stat(path, &st);
    s->isdir = S_ISDIR(st.st_mode);
    s->n = 0;
    if (!s->isdir) {
        s->f[0].data = test_read_file(path, &s->f[0].len);
        s->n = 1;
        return;
    }
    DIR *d = opendir(path);
    struct dirent *e;
    while ((e = readdir(d)) && s->n < 64) {
        if (e->d_name[0] == '.')
            continue;
        char p[4500];
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        snprintf(s->f[s->n].name, sizeof s->f[s->n].name, "%s", e->d_name);
        s->f[s->n].data = test_read_file(p, &s->f[s->n].len);
        s->n++;
    }
    closedir(d);
}

static void restore(const snapshot *s, const char *path)
{
    rm_rf(path);
    if (!s->isdir) {
        spit(path, s->f[0].data, s->f[0].len);
        return;
    }
    mkdir(path, 0755);
    for (int i = 0; i < s->n; i++) {
        char p[4500];
        snprintf(p, sizeof p, "%s/%s", path, s->f[i].name);
        spit(p, s->f[i].data, s->f[i].len);
    }
}

static void drop(snapshot *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->f[i].data);
    s->n = 0;
}

/* ---- the logical content: decoded chunks + metalayers + vlmetalayers ---- */
typedef struct { uint8_t *p; size_t n, cap; } blob;
static void add(blob *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static int content(const char *path, blob *b)
{
    b2_schunk *s;
    b->n = 0;
    int rc = t_open(path, B2_OPEN_READONLY, &s);
    if (rc < 0)
        return rc;
    int64_t n = b2_schunk_nchunks(s);
    add(b, &n, sizeof n);
    for (int64_t i = 0; i < n && rc >= 0; i++) {
        int nb = b2_schunk_chunk_nbytes(s, i);
        if (nb < 0) {
            rc = nb;
            break;
        }
        uint8_t *d = calloc((size_t)nb + 1, 1);
        rc = b2_schunk_decompress_chunk(s, i, d, (size_t)nb);
        add(b, d, (size_t)nb);
        free(d);
    }
    for (int i = 0; rc >= 0 && i < b2_schunk_meta_count(s); i++) {
        uint8_t *c;
        int32_t len;
        rc = b2_schunk_meta_get(s, b2_schunk_meta_name(s, i), &c, &len);
        if (rc >= 0) {
            add(b, c, (size_t)len);
            free(c);
        }
    }
    for (int i = 0; rc >= 0 && i < b2_schunk_vlmeta_count(s); i++) {
        uint8_t *c;
        int32_t len;
        const char *name = b2_schunk_vlmeta_name(s, i);
        rc = b2_schunk_vlmeta_get(s, name, &c, &len);
        if (rc >= 0) {
            add(b, name, strlen(name) + 1);
            add(b, c, (size_t)len);
            free(c);
        }
    }
    b2_schunk_free(s);
    return rc < 0 ? rc : 0;
}

/* ---- operations ---- */
enum { OP_APPEND, OP_INSERT, OP_UPDATE, OP_UPDATE_ZEROS, OP_UPDATE_FROM_SPECIAL, OP_DELETE,
       OP_REORDER, OP_VLADD, OP_VLUPDATE, OP_VLDELETE, OP_METAUPDATE, OP_COMPACT, OP_COUNT };
static const char *op_names[] = {"append", "insert", "update", "update->zeros",
                                 "update special->regular", "delete", "reorder", "vlmeta add",
                                 "vlmeta update", "vlmeta delete", "meta update", "compact"};

static int64_t run_op(b2_schunk *s, int op)
{
    int32_t data[1000];
    for (int i = 0; i < 1000; i++)
        data[i] = i * 3 + op;
    uint8_t chunk[4000 + B2_MAX_OVERHEAD];
    b2_cctx *c = b2_cctx_new(b2_schunk_cparams(s));
    int32_t cb = b2_chunk_compress(c, data, sizeof data, chunk, sizeof chunk);
    b2_cctx_free(c);
    int64_t order[16];
    switch (op) {
    case OP_APPEND: return b2_schunk_append_buffer(s, data, sizeof data);
    case OP_INSERT: return b2_schunk_insert_chunk(s, 1, chunk, cb);
    case OP_UPDATE: return b2_schunk_update_chunk(s, 0, chunk, cb);
    case OP_UPDATE_ZEROS:
        cb = b2_chunk_make_special(B2_SPECIAL_ZEROS, 4, 4000, NULL, chunk, sizeof chunk);
        return b2_schunk_update_chunk(s, 1, chunk, cb);
    case OP_UPDATE_FROM_SPECIAL: return b2_schunk_update_chunk(s, 3, chunk, cb);
    case OP_DELETE: return b2_schunk_delete_chunk(s, 0);
    case OP_REORDER:
        for (int64_t i = 0; i < b2_schunk_nchunks(s); i++)
            order[i] = b2_schunk_nchunks(s) - 1 - i;
        return b2_schunk_reorder(s, order);
    case OP_VLADD: return b2_schunk_vlmeta_add(s, "new", "some new vlmeta content", 23);
    case OP_VLUPDATE: return b2_schunk_vlmeta_update(s, "attrs", "changed!", 8);
    case OP_VLDELETE: return b2_schunk_vlmeta_delete(s, "attrs");
    case OP_METAUPDATE: return b2_schunk_meta_update(s, "m", "XYZW", 4);
    case OP_COMPACT: return b2_schunk_compact(s); /* same content, new layout */
    }
    return -1;
}

/* Initial frame: metalayer, 3 regular chunks, a NaN entry, a vlmetalayer. */
static int build(int sparse, const char *path)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    b2_schunk *s;
    rm_rf(path);
    int rc = sparse ? t_create_sparse(path, &cp, &s) : t_create(path, &cp, &s);
    if (rc < 0)
        return rc;
    b2_schunk_meta_add(s, "m", "abcdefgh", 8);
    int32_t data[1000];
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 1000; i++)
            data[i] = c * 7000 + i;
        b2_schunk_append_buffer(s, data, sizeof data);
    }
    uint8_t nan[B2_HEADER_LEN];
    int cb = b2_chunk_make_special(B2_SPECIAL_NAN, 4, 4000, NULL, nan, sizeof nan);
    b2_schunk_append_chunk(s, nan, cb);
    b2_schunk_vlmeta_add(s, "attrs", "{\"a\": 1}", 8);
    rc = b2_schunk_nchunks(s) == 4 ? 0 : -1;
    b2_schunk_free(s);
    return rc;
}

static void crash_op(int sparse, const char *path, int op, int tear)
{
    snapshot snap;
    blob old = {0}, neu = {0}, got = {0};
    if (build(sparse, path) < 0 || content(path, &old) < 0) {
        FAIL("setup");
        return;
    }
    take(&snap, path);
    /* the expected new content: the operation without faults */
    b2_schunk *s;
    t_open(path, B2_OPEN_WRITE, &s);
    int64_t rc = run_op(s, op);
    b2_schunk_free(s);
    if (rc < 0 || content(path, &neu) < 0) {
        FAIL("%s: reference run: %lld", op_names[op], (long long)rc);
        return;
    }
    for (int64_t n = 0; n < 100; n++) {
        restore(&snap, path);
        if (t_open(path, B2_OPEN_WRITE, &s) < 0) {
            FAIL("%s: open", op_names[op]);
            break;
        }
        b2_schunk_inject_write_faults(s, n, tear);
        rc = run_op(s, op);
        if (rc < 0 && op != OP_COMPACT) {
            /* a handle whose modification failed must refuse further ones */
            int32_t z[4] = {0};
            b2_schunk_inject_write_faults(s, -1, 0);
            if (b2_schunk_append_buffer(s, z, sizeof z) >= 0)
                FAIL("%s: handle still writable after a failed write", op_names[op]);
        }
        b2_schunk_free(s);
        nruns++;
        int r = content(path, &got);
        const char *kind = sparse ? "sparse" : "file";
        if (r < 0) {
            FAIL("%s %s: crash at write %lld (tear %d): frame does not open/read: %s", kind,
                 op_names[op], (long long)n, tear, b2_strerror(r));
            break;
        }
        int is_old = got.n == old.n && !memcmp(got.p, old.p, old.n);
        int is_new = got.n == neu.n && !memcmp(got.p, neu.p, neu.n);
        if (rc >= 0) {
            if (!is_new)
                FAIL("%s %s: completed but content is not the new one", kind, op_names[op]);
            nnew++;
            break;
        }
        if (!is_old && !is_new) {
            FAIL("%s %s: crash at write %lld (tear %d): neither old nor new content", kind,
                 op_names[op], (long long)n, tear);
            break;
        }
        nold += is_old;
        nnew += is_new;
        /* recovery: the operation works on the crashed frame */
        if (t_open(path, B2_OPEN_WRITE, &s) < 0) {
            FAIL("%s %s: reopen after crash", kind, op_names[op]);
            break;
        }
        if (is_old) {
            rc = run_op(s, op);
            b2_schunk_free(s);
            if (rc < 0 || content(path, &got) < 0 || got.n != neu.n || memcmp(got.p, neu.p, neu.n))
                FAIL("%s %s: retry after crash at %lld failed", kind, op_names[op], (long long)n);
        } else {
            b2_schunk_free(s);
        }
    }
    drop(&snap);
    free(old.p);
    free(neu.p);
    free(got.p);
}

int main(void)
{
    char tmp[] = "/tmp/b2_frame_crashXXXXXX";
    char *d = mkdtemp(tmp);
    char path[4200];
    for (int sparse = 0; sparse < 2; sparse++) {
        snprintf(path, sizeof path, "%s/%s", d, sparse ? "sf.b2frame" : "cf.b2frame");
        for (int op = 0; op < OP_COUNT; op++)
            for (int tear = 0; tear < 2; tear++)
                crash_op(sparse, path, op, tear);
        rm_rf(path);
    }
    rmdir(d);
    printf("crash consistency: %d simulated crashes over %d operations x 2 storages; "
           "%d left old content, %d new; %d failures\n", nruns, OP_COUNT, nold, nnew, failures);
    return failures ? 1 : 0;
}
