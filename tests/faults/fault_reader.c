/* SPDX-License-Identifier: BSD-3-Clause */
/* A reader process beside a writer process (issue 14).
 *
 * A child writes the seeded workload (workload.h) to a file frame or a sparse
 * frame for a few seconds; the parent meanwhile opens the frame read-only in a
 * loop, reads every chunk, the metalayer and the vlmetalayers, checks every
 * byte against its tag, and requires the result to be one of the states the
 * writer passed through, never an earlier one than it saw before. Each handle
 * is also read a second time later, while the writer has gone on: what a handle
 * shows must not change under it.
 *
 * Two workloads: appends with metalayer and vlmetalayer updates (the case the
 * issue names), where no read may fail at all; and every operation (updates,
 * deletes, reorders, compactions too). In a file frame nothing a state uses is
 * ever overwritten, so that also never fails. A sparse frame removes a chunk's
 * file once the new index no longer names it, so a reader holding an older
 * index may find it gone: that read fails cleanly (B2_ERR_NOT_FOUND), counted
 * as a retry; wrong content is never accepted. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "harness.h"
#include "scratch.h"
#include "workload.h"
#include "frame_open.h"

/* Shared with the writer: the last operation it completed, and its end. */
typedef struct shared {
    int64_t done;
    int finished;
} shared;

/* Appends only: the frame grows with every operation, so the writer does this
 * many, spread over its time. */
#define APPEND_OPS 3000

static void writer(const char *path, const wl_profile *p, uint64_t seed, shared *sh, int64_t us)
{
    wl_state st;
    wl_init(&st);
    b2_schunk *s = NULL;
    int64_t start = fu_now_us(), end = start + us;
    int paced = p->weight[WL_DELETE] == 0;
    char what[160];
    for (int64_t j = 0; fu_now_us() < end && (!paced || j < APPEND_OPS); j++) {
        int64_t ahead = start + j * us / APPEND_OPS - fu_now_us();
        if (paced && ahead > 0)
            usleep((useconds_t)ahead);
        if (!s && t_open(path, B2_OPEN_WRITE, &s) < 0) {
            fprintf(stderr, "writer: open: %s\n", b2_last_error_message());
            _exit(3);
        }
        b2_schunk_set_sync(s, 0); /* what readers see does not depend on fsync */
        wl_op op;
        wl_next(p, seed, j + 1, &st, &op);
        if (wl_exec(s, &op) < 0) {
            fprintf(stderr, "writer: operation %lld, %s: %s\n", (long long)(j + 1),
                    wl_describe(&op, what, sizeof what), b2_schunk_last_error(s));
            _exit(3);
        }
        wl_apply(&st, &op);
        __atomic_store_n(&sh->done, j + 1, __ATOMIC_SEQ_CST);
        if (j % 50 == 49) {
            b2_schunk_free(s);
            s = NULL;
        }
    }
    b2_schunk_free(s);
    __atomic_store_n(&sh->finished, 1, __ATOMIC_SEQ_CST);
    _exit(0);
}

typedef struct reader {
    const wl_profile *p;
    uint64_t seed;
    wl_state model; /* state number j of the workload */
    int64_t j;
    long reads, rereads, retries, states;
} reader;

/* Advance the model to the first state >= j equal to got; at most to state
 * `bound` (the writer cannot be further). Returns 1 when found. */
static int match(reader *r, const wl_state *got, int64_t bound)
{
    int64_t j0 = r->j;
    while (!wl_equal(got, &r->model)) {
        if (r->j >= bound)
            return 0;
        wl_op op;
        wl_next(r->p, r->seed, r->j + 1, &r->model, &op);
        wl_apply(&r->model, &op);
        r->j++;
    }
    r->states += r->j != j0;
    return 1;
}

/* After a mismatch: what was read, and the writer's states closest to it. */
static void explain(const wl_profile *p, uint64_t seed, const wl_state *got, int64_t bound)
{
    wl_state m;
    wl_init(&m);
    int64_t best = -1, best_diff = INT64_MAX;
    for (int64_t k = 0; k <= bound; k++) {
        int64_t diff = llabs(m.n - got->n) + (m.meta != got->meta);
        for (int64_t i = 0; i < m.n && i < got->n; i++)
            diff += m.c[i].tag != got->c[i].tag || m.c[i].nbytes != got->c[i].nbytes;
        for (int v = 0; v < WL_NVL; v++)
            diff += m.vl[v] != got->vl[v];
        if (diff <= best_diff) {
            best = k;
            best_diff = diff;
        }
        wl_op op;
        wl_next(p, seed, k + 1, &m, &op);
        wl_apply(&m, &op);
    }
    wl_print(stdout, "  read", got);
    wl_free(&m);
    wl_init(&m); /* replay to the closest state */
    for (int64_t k = 0; k < best; k++) {
        wl_op op;
        wl_next(p, seed, k + 1, &m, &op);
        wl_apply(&m, &op);
    }
    char what[40];
    snprintf(what, sizeof what, "  closest: state %lld", (long long)best);
    wl_print(stdout, what, &m);
    wl_free(&m);
}

/* A failed read is acceptable only as a sparse frame's chunk file removed
 * under an old index, when the workload removes chunks. */
static int clean_retry(int rc, int sparse, const wl_profile *p)
{
    return rc == B2_ERR_NOT_FOUND && sparse && p->weight[WL_DELETE] > 0;
}

static void run(const char *path, int sparse, const wl_profile *p, const char *pname,
                uint64_t seed, int64_t us)
{
    test_rm_tree(path);
    b2_schunk *s;
    int rc = wl_create(path, sparse, &s);
    CHECK(rc >= 0, "create %s: %s", path, b2_last_error_message());
    if (rc < 0)
        return;
    b2_schunk_free(s);
    shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        CHECK(0, "mmap: %s", strerror(errno));
        return;
    }
    memset(sh, 0, sizeof *sh);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        writer(path, p, seed, sh, us);
    reader r = {p, seed, {0}, 0, 0, 0, 0, 0};
    wl_init(&r.model);
    wl_state got;
    wl_init(&got);
    char msg[1024];
    const char *kind = sparse ? "sparse" : "file";
    int ok = 1;
    b2_schunk *held = NULL; /* a handle read again at the next round */
    wl_state held_state;
    wl_init(&held_state);
    while (ok && !__atomic_load_n(&sh->finished, __ATOMIC_SEQ_CST)) {
        if (held) {
            rc = wl_observe(held, &got, msg, sizeof msg);
            if (rc == 0) {
                CHECK(wl_equal(&got, &held_state), "%s %s: a handle's content changed under it",
                      kind, pname);
                r.rereads++;
            } else if (clean_retry(rc, sparse, p)) {
                r.retries++;
            } else {
                CHECK(0, "%s %s: reading an open handle again: %s", kind, pname, msg);
                ok = 0;
            }
            b2_schunk_free(held);
            held = NULL;
        }
        if (t_open(path, B2_OPEN_READONLY, &s) < 0) {
            CHECK(0, "%s %s: open while writing: %s", kind, pname, b2_last_error_message());
            break;
        }
        rc = wl_observe(s, &got, msg, sizeof msg);
        int64_t bound = __atomic_load_n(&sh->done, __ATOMIC_SEQ_CST) + 1;
        if (rc == 0) {
            r.reads++;
            ok = match(&r, &got, bound);
            CHECK(ok, "%s %s: read a state (%lld chunks) the writer never had, or an older one "
                  "than before (writer at operation %lld)", kind, pname, (long long)got.n,
                  (long long)bound - 1);
            if (!ok)
                explain(p, seed, &got, bound);
            wl_copy(&held_state, &got);
            held = s;
            continue;
        }
        if (clean_retry(rc, sparse, p))
            r.retries++;
        else {
            CHECK(0, "%s %s: reading while writing: %s", kind, pname, msg);
            ok = 0;
        }
        b2_schunk_free(s);
    }
    b2_schunk_free(held);
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s %s: writer failed (status %d)", kind,
          pname, status);
    /* after the writer: exactly its last state (which may equal earlier ones,
     * after a compaction, so the model goes there first) */
    rc = wl_observe_path(path, &got, msg, sizeof msg);
    int64_t done = sh->done;
    for (; r.j < done; r.j++) {
        wl_op op;
        wl_next(p, seed, r.j + 1, &r.model, &op);
        wl_apply(&r.model, &op);
    }
    CHECK(rc == 0 && r.j == done && wl_equal(&got, &r.model),
          "%s %s: the final frame is not the writer's last state %lld: %s", kind, pname,
          (long long)done, msg);
    printf("%s frame, %s: writer did %lld operations; the reader read %ld frames (%ld distinct "
           "states) and %ld held handles again, %ld clean retries\n",
           kind, pname, (long long)done, r.reads, r.states, r.rereads, r.retries);
    CHECK(r.reads > 20 && r.states > 10, "%s %s: too few reads to mean anything", kind, pname);
    if (!clean_retry(B2_ERR_NOT_FOUND, sparse, p))
        CHECK(r.retries == 0, "retries where none may happen");
    munmap(sh, sizeof *sh);
    wl_free(&r.model);
    wl_free(&got);
    wl_free(&held_state);
}

int main(void)
{
    uint64_t seed = fu_seed("fault_reader");
    int64_t us = fu_env_long("B2_FAULT_SECONDS", 3) * 1000000;
    char *dir = fu_scratch("b2_fault_reader");
    char path[4200];
    for (int sparse = 0; sparse < 2; sparse++) {
        snprintf(path, sizeof path, "%s/%s", dir, sparse ? "sf.b2frame" : "cf.b2frame");
        run(path, sparse, &wl_append_only, "appends", seed + (uint64_t)sparse, us);
        run(path, sparse, &wl_all_ops, "every operation", seed + 2 + (uint64_t)sparse, us);
    }
    test_rm_tree(dir);
    free(dir);
    return b2t_summary("fault_reader");
}
