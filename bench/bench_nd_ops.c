/* SPDX-License-Identifier: BSD-3-Clause */
/* b2bench --frame, the b2nd operations c-blosc2 also has (measured here,
 * reported by bench_frame.c): concatenate of two file copies whose grids line
 * up against copying the two files, and a rechunk into a new file with the peak
 * memory of a separate `b2 rechunk --report` process, before and after its
 * copy. Runs alternate: file copy, concatenate, file copy, ... */
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "b2_nd_experimental.h" /* b2_nd_blocks_decoded */

extern char **environ;

/* Copy the file `from` to `to` with read/write and fsync it, as a user would
 * (cp + sync). */
static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644), rc = 0;
    char buf[1 << 16];
    ssize_t n;
    while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n)
            rc = -1;
    if (in < 0 || out < 0 || fsync(out) != 0)
        rc = -1;
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
    return rc;
}

/* The b2 program the rechunk child runs: $B2_BIN, else tools/b2 of the build
 * tree this program sits in (bench/../tools/b2), else "b2" on the PATH. */
static void b2_program(char *path, size_t cap)
{
    const char *env = getenv("B2_BIN");
    char *exe = realpath("/proc/self/exe", NULL);
    snprintf(path, cap, "b2");
    if (env && *env) {
        snprintf(path, cap, "%s", env);
    } else if (exe && strrchr(exe, '/')) {
        *strrchr(exe, '/') = '\0';
        snprintf(path, cap, "%s/../tools/b2", exe);
        if (access(path, X_OK) != 0)
            snprintf(path, cap, "b2");
    }
    free(exe);
}

/* Run `b2 rechunk ... --report` as a child and read the peak memory it reports
 * of its own (VmHWM: a new process's own, unlike the rusage of a child, which
 * keeps the parent's high-water mark across exec). 0, or -1 on failure. */
static int child_rechunk_peak(char *const argv[], const char *log, long *peak, long *before)
{
    pid_t pid;
    int status, rc = -1;
    char b2[4200];
    b2_program(b2, sizeof b2);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (posix_spawnp(&pid, b2, &fa, NULL, argv, environ) == 0 &&
        waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        FILE *f = fopen(log, "r");
        char line[1024];
        while (f && fgets(line, sizeof line, f)) {
            const char *p = strstr(line, "peak memory ");
            if (p && sscanf(p, "peak memory %ld KiB (%ld KiB", peak, before) == 2)
                rc = 0;
        }
        if (f)
            fclose(f);
    }
    posix_spawn_file_actions_destroy(&fa);
    unlink(log);
    return rc;
}

int b2bench_nd_ops(const char *dir, b2_nd_array *src, int reps, b2bench_nd_ops_result *r)
{
    char a[4200], b[4200], ca[4200], cb[4200], out[4200];
    snprintf(a, sizeof a, "%s/ops_a.b2nd", dir);
    snprintf(b, sizeof b, "%s/ops_b.b2nd", dir);
    snprintf(ca, sizeof ca, "%s/ops_a.copy", dir);
    snprintf(cb, sizeof cb, "%s/ops_b.copy", dir);
    snprintf(out, sizeof out, "%s/ops_out.b2nd", dir);
    b2_nd_storage sa = {B2_STORAGE_FILE, a}, sb = {B2_STORAGE_FILE, b}, so = {B2_STORAGE_FILE, out};
    b2_nd_array *x = NULL, *y = NULL;
    memset(r, 0, sizeof *r);
    int rc = b2_nd_save(src, &sa);
    if (rc >= 0)
        rc = b2_nd_save(src, &sb);
    if (rc >= 0)
        rc = b2_nd_open(a, B2_OPEN_READONLY, &x);
    if (rc >= 0)
        rc = b2_nd_open(b, B2_OPEN_READONLY, &y);
    int64_t decoded = rc >= 0 ? b2_nd_blocks_decoded(x) + b2_nd_blocks_decoded(y) : 0;
    for (int i = 0; i < reps && rc >= 0; i++) {
        double t0 = b2cli_now();
        if (copy_file(a, ca) < 0 || copy_file(b, cb) < 0)
            rc = B2_ERR_IO;
        double t1 = b2cli_now();
        b2_nd_array *c = NULL;
        unlink(out);
        if (rc >= 0)
            rc = b2_nd_concatenate(x, y, 0, &so, &c);
        r->t_concat[i] = b2cli_now() - t1;
        r->t_copy[i] = t1 - t0;
        if (c)
            r->concat_chunks = b2_nd_nitems(c) ? b2_schunk_nchunks(b2_nd_schunk(c)) : 0;
        b2_nd_free(c);
    }
    if (rc >= 0)
        r->concat_blocks_decoded = b2_nd_blocks_decoded(x) + b2_nd_blocks_decoded(y) - decoded;
    /* rechunk in this process (time), then in a child (memory) */
    const int32_t cs[2] = {250, 1000}, bs[2] = {0, 0}; /* blocks: the default rule */
    for (int i = 0; i < reps && rc >= 0; i++) {
        b2_nd_array *c = NULL;
        unlink(out);
        double t0 = b2cli_now();
        rc = b2_nd_copy(x, cs, bs, &so, &c);
        r->t_rechunk[i] = b2cli_now() - t0;
        b2_nd_free(c);
    }
    if (rc >= 0) {
        unlink(out);
        char log[4200];
        snprintf(log, sizeof log, "%s/ops_rechunk.log", dir);
        char *re[] = {"b2", "rechunk", a, "--chunks", "250,1000", "--report", "-o", out, NULL};
        if (child_rechunk_peak(re, log, &r->rechunk_maxrss_kib, &r->info_maxrss_kib) < 0)
            r->rechunk_maxrss_kib = r->info_maxrss_kib = -1;
    }
    r->src_chunk_bytes = (int64_t)b2_nd_chunkshape(src)[0] * b2_nd_chunkshape(src)[1] * 8;
    r->file_bytes = 0;
    b2_nd_free(x);
    b2_nd_free(y);
    int fd = open(a, O_RDONLY);
    if (fd >= 0) {
        r->file_bytes = lseek(fd, 0, SEEK_END);
        close(fd);
    }
    unlink(a);
    unlink(b);
    unlink(ca);
    unlink(cb);
    unlink(out);
    return rc;
}
