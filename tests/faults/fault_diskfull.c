/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes on a full disk (issue 14).
 *
 * Each modifying operation (append, insert, update, delete, reorder, metalayer
 * update, vlmetalayer add/update/delete, compaction) runs on a copy of a file
 * frame and of a sparse frame with less and less room, from none up to enough:
 *   - RLIMIT_FSIZE (always): no file may grow past a limit, so writes fail with
 *     EFBIG (SIGXFSZ ignored); limits sweep from 0 to past the frame's size;
 *   - a real 1 MiB tmpfs, when this process may mount one (root in a mount
 *     namespace of its own; containers often forbid it): a filler file takes
 *     all but a few pages, so writes fail with ENOSPC.
 * Whenever the operation fails, it must say so (B2_ERR_IO, with the system's
 * reason in the message), the frame must still open with exactly its old
 * content (and pass `b2 verify`, run for the first two failures of each
 * operation), and, room made, the operation must succeed on the reopened
 * frame. With enough room it must succeed the first time. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "harness.h"
#include "scratch.h"
#include "workload.h"
#include "frame_open.h"

/* The operations tried: each made from the base state (make_op). */
static const int op_kinds[] = {WL_APPEND, WL_INSERT, WL_UPDATE, WL_UPDATE_ZEROS, WL_DELETE,
                               WL_REORDER, WL_META, WL_VLSET, WL_VLSET, WL_VLDEL, WL_COMPACT};
#define NOPS ((int)(sizeof op_kinds / sizeof op_kinds[0]))

static void make_op(const wl_state *base, int i, wl_op *op)
{
    memset(op, 0, sizeof *op);
    op->kind = op_kinds[i];
    op->tag = op->kind == WL_UPDATE_ZEROS ? 0 : 900000 + (uint32_t)i;
    op->nbytes = WL_CHUNK;
    op->pos = op->kind == WL_REORDER ? 1 : base->n / 2;
    /* the first vlmetalayer set updates one that exists, the second (i == 8)
     * adds one; the delete removes one that exists */
    int want_present = !(op->kind == WL_VLSET && i == 8);
    for (int v = WL_NVL - 1; v >= 0; v--)
        if ((base->vl[v] != 0) == want_present)
            op->vl = v;
}

/* How the room runs out. */
typedef struct method {
    const char *name, *errtext; /* the system's message for the failure */
    int by_page; /* room counts in pages: a write into the last page of a file needs none */
    int sync;    /* fsync as by default (cheap on tmpfs; RLIMIT_FSIZE runs on a real disk) */
    /* the number of steps for the base frame just built */
    int (*steps)(void);
    /* give the room of a step (0 = least, then more and more); 0 or -1 */
    int (*limit)(int step);
    void (*unlimit)(void);
} method;

/* ---- RLIMIT_FSIZE: limits from 0 up to well past the frame's size ---- */
static int64_t base_size; /* of the frame file, or of the largest file in a sparse frame */
static int64_t fsize_list[32];
static int nfsize;

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int fsize_steps(void)
{
    static const int64_t absolute[] = {0, 64, 200, 500, 1000, 2000, 4000, 8000, 16000, 32000, 1 << 20};
    static const int64_t relative[] = {-4000, -1000, -100, -1, 0, 100, 1000, 4000, 8000, 16000, 32000, 64000};
    int n = 0;
    for (size_t i = 0; i < sizeof absolute / sizeof absolute[0]; i++)
        fsize_list[n++] = absolute[i];
    for (size_t i = 0; i < sizeof relative / sizeof relative[0]; i++)
        if (base_size + relative[i] > 0)
            fsize_list[n++] = base_size + relative[i];
    qsort(fsize_list, (size_t)n, sizeof fsize_list[0], cmp64);
    nfsize = 0;
    for (int i = 0; i < n; i++)
        if (nfsize == 0 || fsize_list[i] != fsize_list[nfsize - 1])
            fsize_list[nfsize++] = fsize_list[i];
    return nfsize;
}

static int fsize_limit(int step)
{
    struct rlimit rl;
    getrlimit(RLIMIT_FSIZE, &rl);
    rl.rlim_cur = (rlim_t)fsize_list[step];
    return setrlimit(RLIMIT_FSIZE, &rl);
}

static void fsize_unlimit(void)
{
    struct rlimit rl;
    getrlimit(RLIMIT_FSIZE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_FSIZE, &rl);
}

/* ---- a full tmpfs: a filler leaves a number of free pages ---- */
static char filler[4300];
static const int tmpfs_pages[] = {0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32, 48, 64, 96};

static int tmpfs_steps(void) { return (int)(sizeof tmpfs_pages / sizeof tmpfs_pages[0]); }

static int tmpfs_limit(int step)
{
    int fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    static char page[4096];
    int64_t size = 0;
    for (;;) { /* all the room there is */
        ssize_t w = write(fd, page, sizeof page);
        if (w <= 0)
            break;
        size += w;
    }
    int64_t keep = size - 4096 * (int64_t)tmpfs_pages[step];
    int rc = ftruncate(fd, keep < 0 ? 0 : keep);
    close(fd);

    return rc;
}

static void tmpfs_unlimit(void) { unlink(filler); }

/* ---- one method over every operation and both storages ---- */

typedef struct tally {
    long failed, recovered, succeeded, verified;
} tally;

static void check_frame(const char *work, const wl_state *want, const char *what)
{
    wl_state got;
    wl_init(&got);
    char msg[1024];
    int rc = wl_observe_path(work, &got, msg, sizeof msg);
    CHECK(rc == 0, "%s: the frame does not read: %s", what, msg);
    CHECK(rc != 0 || wl_equal(&got, want), "%s: not the expected content", what);
    wl_free(&got);
}

/* Does op fail for want of room at the least room of method m? A sparse
 * frame's compaction writes nothing. A sparse frame's other operations write a
 * new chunks.b2frame; a file frame's write chunk bytes, new index and trailer
 * past its end, or (compaction) a new file. Where room counts in pages only the
 * writes of a chunk or a file surely need a new page: a metalayer update is
 * written in place, and a new index and trailer may fit in the last page. */
static int must_fail(const method *m, const wl_op *op, int sparse)
{
    if (op->kind == WL_COMPACT)
        return !sparse;
    if (sparse || !m->by_page)
        return 1;
    return op->kind == WL_APPEND || op->kind == WL_INSERT || op->kind == WL_UPDATE;
}

static void run_method(const method *m, const char *base_path, const wl_state *base, int sparse,
                       const char *work, tally *t)
{
    char what[300], desc[160], msg[2048];
    for (int i = 0; i < NOPS; i++) {
        wl_op op;
        make_op(base, i, &op);
        wl_state neu;
        wl_init(&neu);
        wl_copy(&neu, base);
        wl_apply(&neu, &op);
        int done = 0;
        long fails = 0;
        int nsteps = m->steps();
        for (int step = 0; step < nsteps && !done; step++) {
            snprintf(what, sizeof what, "%s, %s frame, %s, step %d", m->name,
                     sparse ? "sparse" : "file", wl_describe(&op, desc, sizeof desc), step);
            test_rm_tree(work);
            if (fu_copy(base_path, work) != 0) {
                CHECK(0, "%s: copying the frame", what);
                break;
            }
            b2_schunk *s;
            if (t_open(work, B2_OPEN_WRITE, &s) < 0) {
                CHECK(0, "%s: open: %s", what, b2_last_error_message());
                break;
            }
            b2_schunk_set_sync(s, m->sync);
            if (m->limit(step) != 0) {
                CHECK(0, "%s: cannot limit the room: %s", what, strerror(errno));
                b2_schunk_free(s);
                m->unlimit();
                break;
            }
            int64_t rc = wl_exec(s, &op);
            snprintf(msg, sizeof msg, "%s", b2_schunk_last_error(s));
            b2_schunk_free(s);
            if (rc >= 0) { /* enough room: the new content, and done */
                m->unlimit();
                check_frame(work, &neu, what);
                t->succeeded++;
                done = 1;
                break;
            }
            if (!t->failed)
                printf("%s, %s frame, %s: \"%s\"\n", m->name, sparse ? "sparse" : "file",
                       wl_kind_names[op.kind], msg);
            fails++;
            t->failed++;
            CHECK(rc == B2_ERR_IO && strstr(msg, m->errtext),
                  "%s: fails with %lld, \"%s\": not an I/O error saying \"%s\"", what,
                  (long long)rc, msg, m->errtext);
            /* still full: the old content reads back, and b2 verify agrees (run
             * for the first two failures of each operation: it takes a while) */
            check_frame(work, base, what);
            int v = fails <= 2 ? fu_b2_verify(work, msg, sizeof msg) : -1;
            CHECK(v <= 0, "%s: b2 verify on the full disk: %s", what, msg);
            t->verified += v == 0;
            /* room again: the operation works on the reopened frame */
            m->unlimit();
            rc = t_open(work, B2_OPEN_WRITE, &s);
            if (rc >= 0) {
                rc = wl_exec(s, &op);
                CHECK(rc >= 0, "%s: retry with room: %s", what, b2_schunk_last_error(s));
                b2_schunk_free(s);
            } else {
                CHECK(0, "%s: reopen with room: %s", what, b2_last_error_message());
            }
            if (rc >= 0) {
                check_frame(work, &neu, what);
                t->recovered++;
            }
        }
        CHECK(done, "%s, %s frame, %s: never succeeded, even with room", m->name,
              sparse ? "sparse" : "file", wl_kind_names[op.kind]);
        CHECK(fails > 0 || !must_fail(m, &op, sparse), "%s, %s frame, %s: never failed, even "
              "without room", m->name, sparse ? "sparse" : "file", wl_kind_names[op.kind]);
        wl_free(&neu);
    }
    test_rm_tree(work);
}

/* The base frame: a deterministic workload prefix with chunks, specials,
 * vlmetalayers and dead space. */
static int build_base(const char *path, int sparse, wl_state *st)
{
    wl_init(st);
    b2_schunk *s;
    if (wl_create(path, sparse, &s) < 0)
        return -1;
    wl_profile p = wl_all_ops;
    p.varsize = 0;
    p.target_chunks = 10;
    int64_t j = 1;
    for (; j <= 40 || st->n < 4 || !st->vl[0] || !st->vl[1] || st->vl[2]; j++) {
        wl_op op;
        wl_next(&p, 42, j, st, &op);
        if (op.kind == WL_VLSET && op.vl == 2)
            op.vl = j % 2; /* keep vlmetalayer "vc" free, for the add */
        if (op.kind == WL_VLDEL || wl_exec(s, &op) < 0)
            continue;
        wl_apply(st, &op);
    }
    b2_schunk_free(s);
    /* the largest file: a frame file, or a sparse frame's largest chunk file */
    struct stat sb;
    base_size = 0;
    if (!sparse && stat(path, &sb) == 0)
        base_size = sb.st_size;
    for (int64_t id = 0; sparse && id < 4 * j; id++) {
        char f[4300];
        snprintf(f, sizeof f, "%s/%08X.chunk", path, (unsigned)id);
        if (stat(f, &sb) == 0 && sb.st_size > base_size)
            base_size = sb.st_size;
    }
    return 0;
}

static void run_all(const method *m, const char *tmpl_dir, const char *work_dir)
{
    for (int sparse = 0; sparse < 2; sparse++) {
        char base_path[4200], work[4200];
        snprintf(base_path, sizeof base_path, "%s/base%d.b2frame", tmpl_dir, sparse);
        snprintf(work, sizeof work, "%s/work.b2frame", work_dir);
        wl_state base;
        test_rm_tree(base_path);
        if (build_base(base_path, sparse, &base) < 0) {
            CHECK(0, "building the base frame: %s", b2_last_error_message());
            continue;
        }
        tally t = {0};
        run_method(m, base_path, &base, sparse, work, &t);
        printf("%s, %s frames: %d operations; %ld attempts failed for lack of room, each "
               "leaving the old content intact (b2 verify run on %ld of them), and the retry "
               "with room succeeded %ld times; %ld succeeded at once\n", m->name,
               sparse ? "sparse" : "file", NOPS, t.failed, t.verified, t.recovered, t.succeeded);
        CHECK(t.recovered == t.failed, "retries");
        wl_free(&base);
        test_rm_tree(base_path);
    }
}

/* In a child: a private mount namespace with a 1 MiB tmpfs. Exit 0 when the
 * checks there passed, 1 when some failed, 77 when no tmpfs could be mounted. */
static void tmpfs_child(const char *tmpl_dir, const char *mnt)
{
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("b2faults", mnt, "tmpfs", 0, "size=1m") != 0) {
        printf("tmpfs: cannot mount one here (%s); RLIMIT_FSIZE alone tested the full disk\n",
               strerror(errno));
        fflush(stdout);
        _exit(77);
    }
    snprintf(filler, sizeof filler, "%s/filler", mnt);
    method m = {"tmpfs of 1 MiB", strerror(ENOSPC), 1, 1, tmpfs_steps, tmpfs_limit, tmpfs_unlimit};
    run_all(&m, tmpl_dir, mnt);
    umount(mnt);
    fflush(stdout);
    _exit(b2t_failures ? 1 : 0);
}

int main(void)
{
    signal(SIGXFSZ, SIG_IGN); /* a write past RLIMIT_FSIZE then fails with EFBIG */
    char *dir = fu_scratch("b2_fault_diskfull");
    char work_dir[4200], mnt[4200];
    snprintf(work_dir, sizeof work_dir, "%s/w", dir);
    snprintf(mnt, sizeof mnt, "%s/mnt", dir);
    mkdir(work_dir, 0755);
    mkdir(mnt, 0755);
    method fs = {"RLIMIT_FSIZE", strerror(EFBIG), 0, 0, fsize_steps, fsize_limit, fsize_unlimit};
    run_all(&fs, dir, work_dir);

    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        tmpfs_child(dir, mnt);
    int status = 0;
    waitpid(pid, &status, 0);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    CHECK(code == 0 || code == 77, "the tmpfs checks failed (status %d)", status);
    printf("disk full tested with: RLIMIT_FSIZE%s\n", code == 0 ? " and a real tmpfs" : "");
    test_rm_tree(dir);
    free(dir);
    return b2t_summary("fault_diskfull");
}
