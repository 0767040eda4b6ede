/* SPDX-License-Identifier: BSD-3-Clause */
/* kill -9 of a real writer (issue 14).
 *
 * A child process performs the seeded workload (workload.h: appends, inserts,
 * updates, deletes, reorders, metalayer and vlmetalayer changes, compactions)
 * on a file frame or a sparse frame without pause, and reports each completed
 * operation number on a pipe. The parent kills it with SIGKILL after a random
 * delay, so the kill lands anywhere, most often inside an operation. With k the
 * last operation reported, the frame must then open and hold exactly state k or
 * state k+1 (every chunk byte checked), `b2 verify` must pass, and the next
 * writer continues from there. Some epochs fsync (the default), others not.
 *
 * What this shows: the order and size of the writes keep the frame consistent
 * whenever the process stops. A killed process loses nothing it wrote (the page
 * cache keeps it), so this is not a power-loss test; that needs the fsyncs the
 * library does in sync mode, and sector-atomic header writes (test_frame_crash). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "harness.h"
#include "frame_internal.h"
#include "scratch.h"
#include "workload.h"
#include "frame_open.h"

/* The child: open, then operate from state st (after operation j) until killed. */
static void writer(const char *path, int ack, const wl_profile *p, uint64_t seed, int64_t j,
                   wl_state *st, int sync)
{
    b2_schunk *s = NULL;
    int64_t ready = -1;
    char what[160];
    for (int64_t done = 0;; done++) {
        if (!s) { /* reopened now and then: opening is killed too */
            if (t_open(path, B2_OPEN_WRITE, &s) < 0) {
                fprintf(stderr, "writer: open %s: %s\n", path, b2_last_error_message());
                _exit(3);
            }
            b2_schunk_set_sync(s, sync);
            if (done == 0 && write(ack, &ready, sizeof ready) != sizeof ready)
                _exit(4);
        }
        wl_op op;
        wl_next(p, seed, j + 1, st, &op);
        int64_t rc = wl_exec(s, &op);
        if (rc < 0) {
            fprintf(stderr, "writer: operation %lld, %s: %s\n", (long long)(j + 1),
                    wl_describe(&op, what, sizeof what), b2_schunk_last_error(s));
            _exit(3);
        }
        wl_apply(st, &op);
        j++;
        if (write(ack, &j, sizeof j) != sizeof j)
            _exit(4);
        if (done % 8 == 7) {
            b2_schunk_free(s);
            s = NULL;
        }
    }
}

/* Signs that a kill stopped an operation between its writes. */
typedef struct traces {
    long tail;     /* bytes past a file frame's end: data written, header not yet */
    long tmp;      /* a new temporary file: compaction, or a sparse frame's index */
    long orphans;  /* more chunk files than the index names: a new chunk file not
                      yet committed, or an old one not yet removed */
} traces;

typedef struct seen {
    struct stat tmp; /* the temporary file last time (st_ino 0: none) */
    long orphans;
} seen;

static void look(const char *path, int sparse, seen *last, traces *t)
{
    char tmp[4300];
    struct stat st;
    snprintf(tmp, sizeof tmp, "%s%s", path, sparse ? "/chunks.b2frame.b2tmp" : ".b2tmp");
    if (stat(tmp, &st) != 0)
        memset(&st, 0, sizeof st);
    t->tmp += st.st_ino && (st.st_ino != last->tmp.st_ino || st.st_size != last->tmp.st_size ||
                            st.st_mtim.tv_nsec != last->tmp.st_mtim.tv_nsec ||
                            st.st_mtim.tv_sec != last->tmp.st_mtim.tv_sec);
    last->tmp = st;
    b2_schunk *s;
    if (t_open(path, B2_OPEN_READONLY, &s) < 0)
        return;
    if (!sparse) {
        t->tail += stat(path, &st) == 0 && st.st_size > b2_schunk_frame_len(s);
    } else {
        long files = 0, used = 0;
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d)))
            files += strstr(e->d_name, ".chunk") != NULL;
        if (d)
            closedir(d);
        for (int64_t i = 0; i < s->ix.nchunks; i++)
            used += frame_entry(s, i) >= 0;
        /* one unreferenced file may be the kept highest id (sframe.c) */
        t->orphans += files - used > last->orphans;
        last->orphans = files - used;
    }
    b2_schunk_free(s);
}

typedef struct stats {
    long kills, old, neu, verified, ops;
    traces tr;
} stats;

/* One epoch: a fresh frame, then rounds of writer-and-kill. */
static void epoch(const char *path, int sparse, const wl_profile *p, uint64_t seed, int sync,
                  int rounds, stats *t)
{
    wl_state cur, next, got;
    wl_init(&cur);
    wl_init(&next);
    wl_init(&got);
    b2_schunk *s;
    test_rm_tree(path);
    int rc = wl_create(path, sparse, &s);
    CHECK(rc >= 0, "create %s: %s", path, b2_last_error_message());
    if (rc < 0)
        return;
    b2_schunk_free(s);
    int64_t j = 0; /* the frame holds state j */
    seen prev;
    memset(&prev, 0, sizeof prev);
    char msg[2048], what[160];
    uint64_t r = seed;
    for (int round = 0; round < rounds; round++) {
        int pfd[2];
        if (pipe(pfd) != 0) {
            CHECK(0, "pipe: %s", strerror(errno));
            break;
        }
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            close(pfd[0]);
            writer(path, pfd[1], p, seed, j, &cur, sync);
        }
        close(pfd[1]);
        int64_t ack = 0, last = j;
        ssize_t n = read(pfd[0], &ack, sizeof ack); /* the writer has opened the frame */
        r = r * 6364136223846793005u + 1442695040888963407u;
        usleep((useconds_t)((r >> 33) % 12000));
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        while (read(pfd[0], &ack, sizeof ack) == sizeof ack)
            last = ack;
        close(pfd[0]);
        CHECK(n == sizeof ack && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
              "%s round %d: the writer stopped by itself (status %d)", path, round, status);
        if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
            break;
        t->kills++;
        t->ops += last - j;
        /* the model: state `last`, and the one after it */
        wl_op op;
        for (; j < last; j++) {
            wl_next(p, seed, j + 1, &cur, &op);
            wl_apply(&cur, &op);
        }
        wl_copy(&next, &cur);
        wl_next(p, seed, j + 1, &cur, &op);
        wl_apply(&next, &op);
        rc = wl_observe_path(path, &got, msg, sizeof msg);
        int is_old = rc == 0 && wl_equal(&got, &cur), is_new = rc == 0 && wl_equal(&got, &next);
        CHECK(rc == 0, "%s: killed after operation %lld, during %s: the frame does not read: %s",
              path, (long long)j, wl_describe(&op, what, sizeof what), msg);
        CHECK(rc != 0 || is_old || is_new,
              "%s: killed after operation %lld, during %s: neither state %lld nor %lld "
              "(%lld chunks)", path, (long long)j, wl_describe(&op, what, sizeof what),
              (long long)j, (long long)j + 1, (long long)got.n);
        if (!is_old && !is_new) {
            if (rc == 0) {
                wl_print(stdout, "  read", &got);
                wl_print(stdout, "  state before", &cur);
                wl_print(stdout, "  state after", &next);
            }
            break;
        }
        t->old += is_old;
        t->neu += !is_old;
        if (!is_old) {
            wl_copy(&cur, &next);
            j++;
        }
        look(path, sparse, &prev, &t->tr);
        int v = fu_b2_verify(path, msg, sizeof msg);
        CHECK(v <= 0, "%s: b2 verify after the kill during %s: %s", path,
              wl_describe(&op, what, sizeof what), msg);
        t->verified += v == 0;
    }
    wl_free(&cur);
    wl_free(&next);
    wl_free(&got);
}

int main(void)
{
    uint64_t seed = fu_seed("fault_kill");
    int rounds = (int)fu_env_long("B2_FAULT_ROUNDS", 50); /* per epoch */
    char *dir = fu_scratch("b2_fault_kill");
    char path[4200];
    int64_t t0 = fu_now_us();
    for (int sparse = 0; sparse < 2; sparse++) {
        stats t = {0};
        snprintf(path, sizeof path, "%s/%s", dir, sparse ? "sf.b2frame" : "cf.b2frame");
        /* epochs: fixed chunk sizes (special index entries); varying sizes
         * (chunksize 0); fixed sizes with fsync (the default mode) */
        for (int e = 0; e < 3; e++) {
            wl_profile p = wl_all_ops;
            p.varsize = e == 1;
            epoch(path, sparse, &p, seed + (uint64_t)e * 7919 + (uint64_t)sparse, e == 2, rounds, &t);
        }
        printf("%s frames: %ld kills during %ld operations; the frame held the last reported "
               "state %ld times, the next one %ld times; b2 verify passed %ld times. Kills "
               "inside an operation, after some of its writes: %ld left bytes past the frame, "
               "%ld a new temporary file, %ld new unreferenced chunk files\n",
               sparse ? "sparse" : "file", t.kills, t.ops, t.old, t.neu, t.verified, t.tr.tail,
               t.tr.tmp, t.tr.orphans);
        CHECK(t.kills == 3L * rounds, "%ld kills of %d", t.kills, 3 * rounds);
        /* the kills must land inside operations, not only between them */
        CHECK(t.tr.tail + t.tr.tmp + t.tr.orphans > 0 && t.old > 0 && t.neu > 0,
              "kills never interrupted an operation midway");
        if (!getenv("B2_BIN") || !*getenv("B2_BIN"))
            printf("b2 program not built (B2_BIN unset): frames checked by reading them back only\n");
        else
            CHECK(t.verified == t.kills, "b2 verify ran %ld times for %ld kills", t.verified, t.kills);
    }
    test_rm_tree(dir);
    free(dir);
    printf("%.1f s\n", (double)(fu_now_us() - t0) / 1e6);
    return b2t_summary("fault_kill");
}
