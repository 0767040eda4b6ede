/* SPDX-License-Identifier: BSD-3-Clause */
/* Deferred commits (b2_schunk_set_defer_commit): appends to a file frame are
 * written at once and committed later. Checked: the handle itself reads every
 * appended chunk; another handle and a process that dies before the commit see
 * the last committed frame, which opens and reads right; after the commit (by
 * set_defer_commit(s, 0), by another committing operation, or by free) the file
 * holds every chunk, with less dead space than committing each append; memory
 * frames ignore the setting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "b2_frame.h"
#include "b2_frame_experimental.h"
#include "check.h"
#include "frame_open.h"

#define NITEMS 4096
#define NAPPEND 40

static void fill(int32_t *v, int k)
{
    for (int i = 0; i < NITEMS; i++)
        v[i] = k * 100003 + i * (k % 5 + 1);
}

static b2_cparams params(void)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    cp.codec = B2_CODEC_LZ4;
    cp.clevel = 5;
    return cp;
}

/* Chunks [0, n) of the frame at path read back as fill(k) for chunk k. */
static void expect_file(const char *path, int64_t n, const char *what)
{
    b2_schunk *r = NULL;
    int rc = t_open(path, B2_OPEN_READONLY, &r);
    CHECK(rc >= 0, "%s: open: %s", what, b2_last_error_message());
    if (rc < 0)
        return;
    CHECK(b2_schunk_nchunks(r) == n, "%s: %lld chunks, want %lld", what,
          (long long)b2_schunk_nchunks(r), (long long)n);
    int32_t want[NITEMS], got[NITEMS];
    for (int64_t k = 0; k < b2_schunk_nchunks(r) && k < n; k++) {
        fill(want, (int)k);
        int g = b2_schunk_decompress_chunk(r, k, got, sizeof got);
        CHECK(g == (int)sizeof got && !memcmp(got, want, sizeof got), "%s: chunk %lld", what,
              (long long)k);
    }
    b2_schunk_free(r);
}

static int64_t append_n(b2_schunk *s, int from, int to)
{
    int32_t v[NITEMS];
    int64_t rc = 0;
    for (int k = from; k < to && rc >= 0; k++) {
        fill(v, k);
        rc = b2_schunk_append_buffer(s, v, sizeof v);
    }
    return rc;
}

int main(void)
{
    char path[64], path2[64];
    snprintf(path, sizeof path, "test_frame_defer_%d.b2frame", (int)getpid());
    snprintf(path2, sizeof path2, "test_frame_defer_%d_b.b2frame", (int)getpid());
    b2_cparams cp = params();

    /* appends seen by the handle, not by the file, until the commit */
    b2_schunk *s = NULL;
    CHECK(t_create(path, &cp, &s) >= 0, "create");
    CHECK(append_n(s, 0, 5) == 5, "5 committed appends");
    CHECK(b2_schunk_set_defer_commit(s, 1) == 0, "defer on");
    CHECK(append_n(s, 5, NAPPEND) == NAPPEND, "deferred appends");
    CHECK(b2_schunk_nchunks(s) == NAPPEND, "the handle sees %lld chunks",
          (long long)b2_schunk_nchunks(s));
    int32_t want[NITEMS], got[NITEMS];
    fill(want, NAPPEND - 1);
    CHECK(b2_schunk_decompress_chunk(s, NAPPEND - 1, got, sizeof got) == (int)sizeof got &&
              !memcmp(got, want, sizeof got), "the handle reads a deferred chunk");
    expect_file(path, 5, "before the commit");
    CHECK(b2_schunk_set_defer_commit(s, 0) == 0, "commit: %s", b2_last_error_message());
    expect_file(path, NAPPEND, "after set_defer_commit(0)");
    int64_t dead_deferred = b2_schunk_dead_bytes(s);
    b2_schunk_free(s);

    /* the same appends committed one by one leave more dead space */
    b2_schunk *e = NULL;
    CHECK(t_create(path2, &cp, &e) >= 0, "create 2");
    CHECK(append_n(e, 0, NAPPEND) == NAPPEND, "committed appends");
    CHECK(b2_schunk_dead_bytes(e) > dead_deferred, "dead bytes: %lld committing each append, "
          "%lld deferred", (long long)b2_schunk_dead_bytes(e), (long long)dead_deferred);
    b2_schunk_free(e);
    remove(path2);

    /* another committing operation commits the deferred appends too; free does */
    CHECK(t_open(path, B2_OPEN_WRITE, &s) >= 0, "reopen");
    b2_schunk_set_defer_commit(s, 1);
    CHECK(append_n(s, NAPPEND, NAPPEND + 3) == NAPPEND + 3, "deferred appends 2");
    uint8_t meta[3] = {1, 2, 3};
    CHECK(b2_schunk_vlmeta_add(s, "note", meta, sizeof meta) >= 0, "vlmeta: %s",
          b2_last_error_message());
    expect_file(path, NAPPEND + 3, "after a metalayer change");
    CHECK(append_n(s, NAPPEND + 3, NAPPEND + 6) == NAPPEND + 6, "deferred appends 3");
    b2_schunk_free(s);
    expect_file(path, NAPPEND + 6, "after free");

    /* a process that dies with appends pending leaves the committed frame */
    pid_t pid = fork();
    if (pid == 0) {
        b2_schunk *c = NULL;
        if (t_open(path, B2_OPEN_WRITE, &c) < 0)
            _exit(2);
        b2_schunk_set_defer_commit(c, 1);
        _exit(append_n(c, NAPPEND + 6, NAPPEND + 20) == NAPPEND + 20 ? 0 : 3); /* no free */
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: status %d", status);
    expect_file(path, NAPPEND + 6, "after a crash with appends pending");
    /* and appending after that crash works: the orphaned bytes are dead space */
    CHECK(t_open(path, B2_OPEN_WRITE, &s) >= 0, "reopen after the crash");
    CHECK(append_n(s, NAPPEND + 6, NAPPEND + 8) == NAPPEND + 8, "appends after the crash");
    b2_schunk_free(s);
    expect_file(path, NAPPEND + 8, "appends after the crash");

    /* to_buffer and compact show the handle's frame: pending appends included */
    CHECK(t_open(path, B2_OPEN_WRITE, &s) >= 0, "reopen for to_buffer");
    b2_schunk_set_defer_commit(s, 1);
    CHECK(append_n(s, NAPPEND + 8, NAPPEND + 10) == NAPPEND + 10, "deferred before to_buffer");
    uint8_t *fb = NULL;
    size_t fl = 0;
    b2_schunk *fr = NULL;
    CHECK(b2_schunk_to_buffer(s, &fb, &fl) >= 0 && t_open_buffer(fb, fl, 0, &fr) >= 0 &&
              b2_schunk_nchunks(fr) == NAPPEND + 10,
          "to_buffer holds the deferred appends: %lld chunks", fr ? (long long)b2_schunk_nchunks(fr) : -1LL);
    b2_schunk_free(fr);
    free(fb);
    expect_file(path, NAPPEND + 10, "to_buffer committed the deferred appends");
    CHECK(append_n(s, NAPPEND + 10, NAPPEND + 12) == NAPPEND + 12, "deferred before compact");
    CHECK(b2_schunk_compact(s) == 0, "compact: %s", b2_last_error_message());
    expect_file(path, NAPPEND + 12, "compact wrote the deferred appends");
    b2_schunk_free(s);
    expect_file(path, NAPPEND + 12, "after free");
    remove(path);

    /* memory frames commit every append whatever the setting */
    b2_schunk *m = t_new(&cp);
    CHECK(m && b2_schunk_set_defer_commit(m, 1) == 0, "memory frame");
    CHECK(append_n(m, 0, 3) == 3, "memory appends");
    uint8_t *buf = NULL;
    size_t len = 0;
    CHECK(b2_schunk_to_buffer(m, &buf, &len) >= 0, "to_buffer");
    b2_schunk *m2 = NULL;
    CHECK(buf && t_open_buffer(buf, len, 1, &m2) >= 0 && b2_schunk_nchunks(m2) == 3,
          "the memory frame's buffer holds 3 chunks");
    b2_schunk_free(m2);
    free(buf);
    b2_schunk_free(m);
    CHECK(b2_schunk_set_defer_commit(NULL, 1) == B2_ERR_INVALID_PARAM, "NULL handle");
    return b2t_summary("test_frame_defer");
}
