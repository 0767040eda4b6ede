/* SPDX-License-Identifier: BSD-3-Clause */
/* b2bench --frame: super-chunk, frame and b2nd timings, line for line the
 * scenarios of the reference program ref_bench_frame (c-blosc2 3.3) with the
 * same labels, so the two outputs can be paired by name
 * (bench/bench_frame_compare.py does that, alternating the two programs).
 *
 * What each line measures, as the reference does:
 *  - appends: one warm-up run, then REPS runs of create + N x append + close.
 *    In-memory runs stop the clock before the free; file runs include the close
 *    (and, for "+close+fsync", an open + fsync + close of the file). File and
 *    sparse frames are written with b2_schunk_set_sync(s, 0): the reference never
 *    fsyncs while appending. libb2 has one in-memory form (a contiguous frame),
 *    so "in-memory sparse" times the same thing as "in-memory cframe".
 *  - short operations (open, read one chunk, b2nd slices, one chunk): 5 x REPS
 *    samples, each repeating the operation until 20 ms have passed (sample =
 *    elapsed / repetitions). Chunks are picked by a splitmix64 stream seeded 42.
 *  - from_cbuffer: once per b2nd section; to_cbuffer: REPS single runs.
 *  - ours only, mmap against pread: the same reads through an ordinary open
 *    (pread) and a mapped one (b2_open_options.mmap), in alternating samples
 *    (pread, mmap, pread, mmap, ...; 5 x REPS of each): NPICK random chunks of
 *    the file cframe (one fixed list, seed 7), and each b2nd section's 10x10
 *    slices on the file-backed array. The mmap line adds the median of the
 *    rounds' mmap/pread time ratios; the table ends with a note saying whether
 *    every such ratio was within +-10% (LEVEL).
 * Every measurement checks its result against the source data (outside the
 * clock) and fails with exit status 1 when it differs.
 * "ext load" is the CPU time the rest of the machine used since the previous
 * line, in cores (from /proc/stat minus our own getrusage), to judge noise. */
#define _GNU_SOURCE /* mkdtemp, fsync */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "json.h"
#include "b2_nd_experimental.h" /* b2_nd_blocks_decoded */

#define CMD "b2bench"
#define CHUNK (1 << 20)      /* bytes per appended chunk */
#define MIN_SAMPLE 0.02      /* seconds: short operations repeat until this */
#define SIDE 2000            /* b2nd array: SIDE x SIDE float64 */
#define CSIDE 500            /* chunk shape CSIDE x CSIDE */
#define ND_CHUNK 10          /* the chunk decoded whole: (2, 2), rows 1000..1499 */
#define ND_BYTES ((size_t)SIDE * SIDE * 8)
#define NSEL 100             /* orthogonal selection: indices per dimension */
#define NPICK 64             /* chunks read per sample, mmap against pread */
#define LEVEL 0.10           /* mmap/pread within 1 +- LEVEL counts as level */

typedef struct bench {
    int reps, json, nchunks, parts; /* parts: 1 frame, 2 b2nd */
    char dir[4096];                 /* our private temporary directory ("" = none) */
    char note[200];                 /* said with the next line only (JSON: "note") */
    char frame_path[4200], sframe_path[4200], nd_path[4200];
    b2_cparams cp;
    uint8_t *src;     /* nchunks MiB of source data */
    uint8_t **pre;    /* the chunks compressed once (for append_chunk) */
    int32_t *pre_len;
    uint8_t *out;     /* one decoded chunk */
    b2_dctx *dctx;
    double *t;        /* samples */
    uint64_t rng;
    double last_wall, last_busy, last_own; /* ext load bookkeeping */
    char section[128]; /* b2nd: prefix of the JSON names */
    int64_t pick[NPICK];  /* the chunks read, mmap against pread */
    int npairs, nlevel;   /* mmap/pread comparisons made, and how many were level */
    double rlo, rhi;      /* their lowest and highest median ratio */
    int ext_hold;         /* report: repeat the previous line's ext load */
    double ext_prev;
} bench;

/* ---- small helpers ---- */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int fail(const char *what, int code)
{
    fprintf(stderr, "%s: --frame: %s%s%s\n", CMD, what, code ? ": " : "",
            code ? b2_strerror(code) : "");
    return B2CLI_EXIT_DATA;
}

/* Wall clock, machine busy CPU seconds and our own CPU seconds. */
static void cpu_times(double *wall, double *busy, double *own)
{
    unsigned long long v[8] = {0};
    *wall = b2cli_now();
    *busy = 0;
    FILE *f = fopen("/proc/stat", "r");
    if (f) {
        if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]) == 8)
            *busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / (double)sysconf(_SC_CLK_TCK);
        fclose(f);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *own = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* Print one line: label, median/min/max of n samples (seconds), MB/s of `bytes`
 * per median (0: none), an optional cratio and mmap/pread ratio. Sorts t. */
static void report(bench *b, const char *label, double *t, int n, double bytes, double cratio,
                   double ratio)
{
    double wall, busy, own, ext = 0;
    cpu_times(&wall, &busy, &own);
    if (wall > b->last_wall && b->last_busy > 0 && busy > 0)
        ext = ((busy - b->last_busy) - (own - b->last_own)) / (wall - b->last_wall);
    if (ext < 0)
        ext = 0;
    if (b->ext_hold)
        ext = b->ext_prev;
    b->ext_prev = ext;
    b->last_wall = wall;
    b->last_busy = busy;
    b->last_own = own;
    double med = b2cli_median(t, n), lo = t[0], hi = t[n - 1]; /* sorted now */
    double mbps = bytes > 0 && med > 0 ? bytes / 1e6 / med : 0;
    if (b->json) {
        char name[512];
        const char *l = label;
        while (*l == ' ')
            l++;
        snprintf(name, sizeof name, "%s%s%s", b->section, b->section[0] ? ": " : "", l);
        b2cli_json j;
        b2cli_json_begin(&j, stdout);
        b2cli_json_str(&j, "name", name);
        b2cli_json_num(&j, "median_ms", med * 1e3);
        b2cli_json_num(&j, "min_ms", lo * 1e3);
        b2cli_json_num(&j, "max_ms", hi * 1e3);
        b2cli_json_int(&j, "n", n);
        if (bytes > 0)
            b2cli_json_num(&j, "mbps", mbps);
        if (cratio > 0)
            b2cli_json_num(&j, "cratio", cratio);
        if (ratio > 0)
            b2cli_json_num(&j, "mmap_pread_ratio", ratio);
        if (b->note[0])
            b2cli_json_str(&j, "note", b->note);
        b2cli_json_num(&j, "ext_load", ext);
        b2cli_json_end(&j);
    } else {
        printf("%-46s median %10.3f ms  (min %9.3f, max %9.3f, n=%d)", label, med * 1e3, lo * 1e3,
               hi * 1e3, n);
        if (bytes > 0)
            printf("  %8.1f MB/s", mbps);
        if (cratio > 0)
            printf("  cratio %.2f", cratio);
        if (ratio > 0)
            printf("  mmap/pread %.3f", ratio);
        printf("  [ext load %.2f]\n", ext);
        if (b->note[0])
            printf("    (%s)\n", b->note);
    }
    b->note[0] = 0;
    fflush(stdout);
}

/* ---- short operations, repeated until MIN_SAMPLE per sample ---- */

enum { OP_OPEN, OP_OPEN_READ, OP_READ, OP_READ_PICKED, OP_FROM_BUFFER, OP_MEMCPY, OP_SLICE,
       OP_CHUNK, OP_SELECT };

typedef struct op {
    int kind;
    bench *b;
    const char *path;        /* OP_OPEN, OP_OPEN_READ */
    b2_schunk *s;            /* OP_READ, OP_READ_PICKED */
    const uint8_t *buf;      /* OP_FROM_BUFFER, OP_READ of a buffer */
    size_t len;
    int64_t last;            /* chunk read last */
    b2_nd_array *a;          /* OP_SLICE, OP_CHUNK */
    int64_t start[2], stop[2];
    uint8_t *dst;
    size_t cap;
    int32_t expect;          /* OP_CHUNK: nbytes */
    const int64_t *sel[2];   /* OP_SELECT: NSEL indices per dimension */
} op;

static int op_run(op *o)
{
    bench *b = o->b;
    b2_schunk *s = NULL;
    int rc = 0;
    switch (o->kind) {
    case OP_OPEN:
        rc = b2cli_frame_open(o->path, 0, B2_OPEN_READONLY, &s);
        b2_schunk_free(s);
        return rc;
    case OP_OPEN_READ:
        o->last = (int64_t)(splitmix(&b->rng) % (uint64_t)b->nchunks);
        if ((rc = b2cli_frame_open(o->path, 0, B2_OPEN_READONLY, &s)) >= 0)
            rc = b2_schunk_decompress_chunk(s, o->last, b->out, CHUNK);
        b2_schunk_free(s);
        return rc < 0 ? rc : rc == CHUNK ? 0 : B2_ERR_CORRUPT;
    case OP_READ:
        o->last = (int64_t)(splitmix(&b->rng) % (uint64_t)b->nchunks);
        rc = b2_schunk_decompress_chunk(o->s, o->last, b->out, CHUNK);
        return rc < 0 ? rc : rc == CHUNK ? 0 : B2_ERR_CORRUPT;
    case OP_READ_PICKED:
        for (int i = 0; i < NPICK; i++) {
            o->last = b->pick[i];
            rc = b2_schunk_decompress_chunk(o->s, o->last, b->out, CHUNK);
            if (rc != CHUNK)
                return rc < 0 ? rc : B2_ERR_CORRUPT;
        }
        return 0;
    case OP_FROM_BUFFER:
        rc = b2cli_frame_open_buffer(o->buf, o->len, &s);
        b2_schunk_free(s);
        return rc;
    case OP_MEMCPY:
        o->last = (int64_t)(splitmix(&b->rng) % (uint64_t)b->nchunks);
        memcpy(b->out, b->src + o->last * CHUNK, CHUNK);
        __asm__ volatile("" ::"r"(b->out) : "memory"); /* keep the copy */
        return 0;
    case OP_SLICE:
        return b2_nd_get_slice_cbuffer(o->a, o->start, o->stop, o->dst, o->cap);
    case OP_CHUNK:
        rc = b2_schunk_decompress_chunk(b2_nd_schunk(o->a), ND_CHUNK, o->dst, o->cap);
        return rc < 0 ? rc : rc == o->expect ? 0 : B2_ERR_CORRUPT;
    case OP_SELECT: {
        const int64_t n[2] = {NSEL, NSEL};
        return b2_nd_get_orthogonal_selection(o->a, o->sel, n, o->dst, o->cap);
    }
    }
    return B2_ERR_INVALID_PARAM;
}

static int nd_check_slice(const op *o, const double *data);
static int nd_check_chunk(const op *o, const double *data);
static int nd_check_select(const op *o, const double *data);

/* Is the last result right? */
static int op_check(const op *o, const double *nd_data)
{
    switch (o->kind) {
    case OP_OPEN_READ:
    case OP_READ:
    case OP_READ_PICKED:
    case OP_MEMCPY:
        return memcmp(o->b->out, o->b->src + o->last * CHUNK, CHUNK) ? -1 : 0;
    case OP_SLICE:
        return nd_check_slice(o, nd_data);
    case OP_CHUNK:
        return nd_check_chunk(o, nd_data);
    case OP_SELECT:
        return nd_check_select(o, nd_data);
    }
    return 0;
}

/* One sample of o: repeat it until MIN_SAMPLE has passed; *secs per run. */
static int sample_op(op *o, const char *label, const double *nd_data, double *secs)
{
    int iters = 0, rc;
    double t0 = b2cli_now(), el;
    do {
        if ((rc = op_run(o)) < 0)
            return fail(label, rc);
        iters++;
        el = b2cli_now() - t0;
    } while (el < MIN_SAMPLE);
    *secs = el / iters;
    return op_check(o, nd_data) < 0 ? fail(label, B2_ERR_CORRUPT) : B2CLI_OK;
}

/* 5 x reps samples of o, then the line. */
static int time_op(bench *b, op *o, const char *label, double bytes, const double *nd_data)
{
    int n = 5 * b->reps, rc;
    for (int i = 0; i < n; i++)
        if ((rc = sample_op(o, label, nd_data, &b->t[i])) != B2CLI_OK)
            return rc;
    report(b, label, b->t, n, bytes, 0, 0);
    return B2CLI_OK;
}

/* The same operation on a pread-backed (pr) and an mmap-backed (mm) handle:
 * 5 x reps rounds of one sample each, pread first; a line for each, labelled
 * "<label>, pread" and "<label>, mmap", the second with the median of the
 * rounds' mmap/pread ratios, which also goes into the closing note. */
static int time_pread_mmap(bench *b, op *pr, op *mm, const char *label, double bytes,
                           const double *nd_data)
{
    int n = 5 * b->reps, rc = B2CLI_OK;
    double *tm = malloc(sizeof(double) * 2 * (size_t)n), *ratio = tm + n;
    char lp[200], lm[200];
    if (!tm)
        return fail(label, B2_ERR_NOMEM);
    snprintf(lp, sizeof lp, "%s, pread", label);
    snprintf(lm, sizeof lm, "%s, mmap", label);
    for (int i = 0; i < n && rc == B2CLI_OK; i++)
        if ((rc = sample_op(pr, lp, nd_data, &b->t[i])) == B2CLI_OK &&
            (rc = sample_op(mm, lm, nd_data, &tm[i])) == B2CLI_OK)
            ratio[i] = tm[i] / b->t[i];
    if (rc == B2CLI_OK) {
        double r = b2cli_median(ratio, n);
        report(b, lp, b->t, n, bytes, 0, 0);
        b->ext_hold = 1; /* the two lines share one stretch of time */
        report(b, lm, tm, n, bytes, 0, r);
        b->ext_hold = 0;
        b->rlo = b->npairs == 0 || r < b->rlo ? r : b->rlo;
        b->rhi = b->npairs == 0 || r > b->rhi ? r : b->rhi;
        b->npairs++;
        b->nlevel += fabs(r - 1) <= LEVEL;
    }
    free(tm);
    return rc;
}

/* Open the frame file at path read-only and mapped. */
static int open_mapped(const char *path, b2_schunk **out)
{
    b2_open_options oo;
    b2_open_options_init(&oo);
    oo.path = path;
    oo.mmap = 1;
    return b2_schunk_open_with(&oo, out);
}

/* ---- super-chunks and frames ---- */

/* Every chunk of s equal to the source? */
static int check_schunk(bench *b, b2_schunk *s)
{
    if (b2_schunk_nchunks(s) != b->nchunks)
        return B2_ERR_CORRUPT;
    for (int i = 0; i < b->nchunks; i++) {
        int rc = b2_schunk_decompress_chunk(s, i, b->out, CHUNK);
        if (rc != CHUNK || memcmp(b->out, b->src + (size_t)i * CHUNK, CHUNK))
            return rc < 0 ? rc : B2_ERR_CORRUPT;
    }
    return B2_OK;
}

enum { W_MEM, W_FILE, W_FILE_FSYNC, W_SFRAME };

/* One run of create + appends + close; *secs as the reference clocks it. */
static int append_once(bench *b, int where, int precomp, int sync, double *secs)
{
    const char *path = where == W_SFRAME ? b->sframe_path : b->frame_path;
    b2_schunk *s = NULL;
    int rc;
    if (where != W_MEM)
        b2cli_temp_remove(path);
    double t0 = b2cli_now(), t1;
    rc = b2cli_frame_create(where == W_MEM ? NULL : path, where == W_SFRAME, &b->cp, &s);
    if (rc >= 0 && !sync)
        rc = b2_schunk_set_sync(s, 0);
    for (int i = 0; i < b->nchunks && rc >= 0; i++) {
        int64_t r = precomp ? b2_schunk_append_chunk(s, b->pre[i], b->pre_len[i])
                            : b2_schunk_append_buffer(s, b->src + (size_t)i * CHUNK, CHUNK);
        rc = r < 0 ? (int)r : r == i + 1 ? B2_OK : B2_ERR_CORRUPT;
    }
    if (rc < 0) {
        b2_schunk_free(s);
        return rc;
    }
    if (where == W_MEM) {
        t1 = b2cli_now();
        rc = check_schunk(b, s);
        b2_schunk_free(s);
    } else {
        b2_schunk_free(s);
        if (where == W_FILE_FSYNC) {
            int fd = open(path, O_RDONLY);
            if (fd < 0 || fsync(fd) != 0)
                rc = B2_ERR_IO;
            if (fd >= 0)
                close(fd);
        }
        t1 = b2cli_now();
        s = NULL;
        if (rc >= 0 && (rc = b2cli_frame_open(path, 0, B2_OPEN_READONLY, &s)) >= 0)
            rc = check_schunk(b, s);
        b2_schunk_free(s);
    }
    *secs = t1 - t0;
    return rc;
}

static int append_line(bench *b, const char *what, int where, int precomp, int sync)
{
    char label[128];
    snprintf(label, sizeof label, "%s x%d -> %s", precomp ? "append_chunk(precomp)" : "append_buffer",
             b->nchunks, what);
    for (int i = -1; i < b->reps; i++) { /* -1: warm-up */
        double secs;
        int rc = append_once(b, where, precomp, sync, &secs);
        if (rc < 0)
            return fail(label, rc);
        if (i >= 0)
            b->t[i] = secs;
    }
    report(b, label, b->t, b->reps, (double)b->nchunks * CHUNK, 0, 0);
    return B2CLI_OK;
}

/* NPICK random chunks (a fixed list) of the file cframe, open as pr through
 * pread, against the same file mapped. */
static int pread_mmap_chunks(bench *b, b2_schunk *pr)
{
    uint64_t seed = 7;
    for (int i = 0; i < NPICK; i++)
        b->pick[i] = (int64_t)(splitmix(&seed) % (uint64_t)b->nchunks);
    b2_schunk *mm = NULL;
    int rc = open_mapped(b->frame_path, &mm);
    if (rc < 0 || (rc = check_schunk(b, mm)) < 0) {
        b2_schunk_free(mm);
        return fail("mmap open of the file cframe", rc);
    }
    op a = {.kind = OP_READ_PICKED, .b = b, .s = pr}, m = a;
    m.s = mm;
    char label[64];
    snprintf(label, sizeof label, "read %d random chunks, file cframe", NPICK);
    rc = time_pread_mmap(b, &a, &m, label, (double)NPICK * CHUNK, NULL);
    b2_schunk_free(mm);
    return rc;
}

static int run_frames(bench *b)
{
    int n = b->nchunks, rc = B2CLI_OK;
    char label[128];
    if (!b->json)
        printf("## super-chunk / frame\n");
    /* compress N chunks with one context; the last round's chunks are kept */
    b2_cctx *cc = b2_cctx_new(&b->cp);
    size_t cap = b2_chunk_compress_bound(CHUNK);
    if (!cc)
        return fail("compression context", B2_ERR_NOMEM);
    int64_t ctot = 0;
    for (int r = -1; r < b->reps && rc == B2CLI_OK; r++) {
        double t0 = b2cli_now();
        ctot = 0;
        for (int i = 0; i < n; i++) {
            int c = b2_chunk_compress(cc, b->src + (size_t)i * CHUNK, CHUNK, b->pre[i], cap);
            if (c < 0) {
                rc = fail("compress", c);
                break;
            }
            b->pre_len[i] = c;
            ctot += c;
        }
        if (r >= 0)
            b->t[r] = b2cli_now() - t0;
    }
    b2_cctx_free(cc);
    for (int i = 0; i < n && rc == B2CLI_OK; i++) {
        int d = b2_chunk_decompress(b->dctx, b->pre[i], (size_t)b->pre_len[i], b->out, CHUNK);
        if (d != CHUNK || memcmp(b->out, b->src + (size_t)i * CHUNK, CHUNK))
            rc = fail("compress: round trip", d < 0 ? d : B2_ERR_CORRUPT);
    }
    if (rc != B2CLI_OK)
        return rc;
    snprintf(label, sizeof label, "compress %d chunks, no container (ctx)", n);
    report(b, label, b->t, b->reps, (double)n * CHUNK, (double)n * CHUNK / (double)ctot, 0);

    static const struct {
        const char *what;
        int where, precomp;
    } runs[] = {
        {"in-memory cframe", W_MEM, 0},
        {"in-memory sparse", W_MEM, 0},
        {"file cframe (+close)", W_FILE, 0},
        {"file cframe (+close+fsync)", W_FILE_FSYNC, 0},
        {"sframe dir (+close)", W_SFRAME, 0},
        {"in-memory cframe", W_MEM, 1},
        {"file cframe(+close)", W_FILE, 1},
    };
    for (size_t i = 0; i < sizeof runs / sizeof *runs && rc == B2CLI_OK; i++)
        rc = append_line(b, runs[i].what, runs[i].where, runs[i].precomp, 0);
    /* ours only: libb2's default for files, fsync before and after each append */
    if (rc == B2CLI_OK)
        rc = append_line(b, "file cframe (+close, sync on)", W_FILE, 0, 1);
    if (rc != B2CLI_OK)
        return rc;

    /* the file the reads use */
    double secs;
    if ((rc = append_once(b, W_FILE, 0, 0, &secs)) < 0)
        return fail("writing the frame file", rc);
    struct stat st;
    if (stat(b->frame_path, &st) != 0)
        return fail("stat of the frame file", B2_ERR_IO);
    if (!b->json)
        printf("file cframe size %lld bytes\n", (long long)st.st_size);

    op o = {.b = b, .path = b->frame_path};
    o.kind = OP_OPEN;
    if ((rc = time_op(b, &o, "open file cframe + free", 0, NULL)) != B2CLI_OK)
        return rc;
    o.kind = OP_OPEN_READ;
    if ((rc = time_op(b, &o, "open file cframe + read 1 random chunk + free", CHUNK, NULL)))
        return rc;
    b2_schunk *s = NULL;
    uint8_t *buf = NULL;
    size_t len = 0;
    if ((rc = b2cli_frame_open(b->frame_path, 0, B2_OPEN_READONLY, &s)) < 0)
        return fail("open file cframe", rc);
    o.kind = OP_READ;
    o.s = s;
    rc = time_op(b, &o, "read 1 random chunk, file cframe already open", CHUNK, NULL);
    int r2 = rc == B2CLI_OK ? b2_schunk_to_buffer(s, &buf, &len) : B2_OK;
    if (rc == B2CLI_OK && r2 >= 0)
        rc = pread_mmap_chunks(b, s);
    b2_schunk_free(s);
    if (rc != B2CLI_OK) {
        free(buf);
        return rc;
    }
    if (r2 < 0)
        return fail("schunk_to_buffer", r2);
    o.kind = OP_FROM_BUFFER;
    o.buf = buf;
    o.len = len;
    rc = time_op(b, &o, "schunk_from_buffer(copy=false) of cframe + free", 0, NULL);
    s = NULL;
    if (rc == B2CLI_OK && (r2 = b2cli_frame_open_buffer(buf, len, &s)) < 0)
        rc = fail("open_buffer", r2);
    if (rc == B2CLI_OK) {
        o.kind = OP_READ;
        o.s = s;
        rc = time_op(b, &o, "read 1 random chunk, in-memory cframe", CHUNK, NULL);
    }
    b2_schunk_free(s);
    free(buf);
    if (rc == B2CLI_OK) {
        o.kind = OP_MEMCPY;
        rc = time_op(b, &o, "memcpy 1 MiB (reference)", CHUNK, NULL);
    }
    b2cli_temp_remove(b->frame_path);
    b2cli_temp_remove(b->sframe_path);
    return rc;
}

/* ---- b2nd ---- */

static const int64_t slice_start[2] = {1200, 995};
static const char *const slice_label[2] = {"[1200:1210,1200:1210] (1 chunk)",
                                           "[995:1005,995:1005] (4 chunks)"};

static int nd_check_slice(const op *o, const double *data)
{
    const double *got = (const double *)o->dst;
    int64_t w = o->stop[1] - o->start[1];
    for (int64_t i = o->start[0]; i < o->stop[0]; i++, got += w)
        if (memcmp(got, data + i * SIDE + o->start[1], (size_t)w * 8))
            return -1;
    return 0;
}

static int nd_check_select(const op *o, const double *data)
{
    const double *got = (const double *)o->dst;
    for (int i = 0; i < NSEL; i++)
        for (int j = 0; j < NSEL; j++)
            if (got[i * NSEL + j] != data[o->sel[0][i] * SIDE + o->sel[1][j]])
                return -1;
    return 0;
}

/* The orthogonal selection line: NSEL scattered indices per dimension (one
 * fixed list, seed 11), with the blocks one read decodes against the blocks
 * the indices touch (counted here: the product of the distinct block rows and
 * block columns, since every chunk's share is such a product). */
static int nd_select_line(bench *b, op *o, const int32_t *bs, const double *data)
{
    static int64_t idx[2][NSEL];
    uint64_t seed = 11;
    int64_t distinct[2] = {0, 0};
    for (int d = 0; d < 2; d++) {
        uint8_t seen[SIDE] = {0};
        for (int k = 0; k < NSEL; k++) {
            idx[d][k] = (int64_t)(splitmix(&seed) % SIDE);
            int64_t blk = idx[d][k] / CSIDE * ((CSIDE + bs[d] - 1) / bs[d]) + idx[d][k] % CSIDE / bs[d];
            distinct[d] += !seen[blk];
            seen[blk] = 1;
        }
        o->sel[d] = idx[d];
    }
    o->kind = OP_SELECT;
    int64_t before = b2_nd_blocks_decoded(o->a);
    int rc = op_run(o);
    int64_t used = b2_nd_blocks_decoded(o->a) - before;
    if (rc < 0)
        return fail("orthogonal selection", rc);
    if (used != distinct[0] * distinct[1])
        return fail("orthogonal selection: blocks decoded", B2_ERR_CORRUPT);
    char label[160];
    snprintf(label, sizeof label, "  orthogonal selection %dx%d scattered indices", NSEL, NSEL);
    snprintf(b->note, sizeof b->note, "%lld blocks decoded: exactly those the indices touch",
             (long long)used);
    return time_op(b, o, label, (double)NSEL * NSEL * 8, data);
}

/* Chunk ND_CHUNK decoded whole: blocks one after the other in C order over the
 * block grid, each block C-order over the blockshape; padding is not compared. */
static int nd_check_chunk(const op *o, const double *data)
{
    const int32_t *bs = b2_nd_blockshape(o->a);
    int64_t nb0 = (CSIDE + bs[0] - 1) / bs[0], nb1 = (CSIDE + bs[1] - 1) / bs[1];
    int64_t r0 = (ND_CHUNK / (SIDE / CSIDE)) * CSIDE, c0 = (ND_CHUNK % (SIDE / CSIDE)) * CSIDE;
    const double *got = (const double *)o->dst;
    for (int64_t bi = 0; bi < nb0; bi++)
        for (int64_t bj = 0; bj < nb1; bj++, got += (size_t)bs[0] * bs[1]) {
            int64_t run = CSIDE - bj * bs[1];
            run = run < bs[1] ? run : bs[1];
            for (int64_t i = 0; i < bs[0] && bi * bs[0] + i < CSIDE; i++)
                if (memcmp(got + i * bs[1], data + (r0 + bi * bs[0] + i) * SIDE + c0 + bj * bs[1],
                           (size_t)run * 8))
                    return -1;
        }
    return 0;
}

/* The reference's default blockshape: grow from 2 (1 where the chunk is 1)
 * doubling dimensions from the last while the block stays within `items`. */
static void default_blockshape(int64_t items, int32_t bs[2])
{
    const int32_t ch[2] = {CSIDE, CSIDE};
    int64_t prod = 1;
    for (int d = 0; d < 2; d++) {
        bs[d] = ch[d] == 1 ? 1 : 2;
        prod *= bs[d];
    }
    while (prod < items) {
        int64_t before = prod;
        for (int d = 1; d >= 0; d--) {
            if (2 * bs[d] <= ch[d]) {
                if (2 * prod <= items) {
                    bs[d] *= 2;
                    prod *= 2;
                }
            } else if (bs[d] < ch[d] && prod / bs[d] * ch[d] <= items) {
                prod = prod / bs[d] * ch[d];
                bs[d] = ch[d];
            }
        }
        if (prod == before)
            break;
    }
}

/* The 10x10 slices on the file-backed array of o (opened through pread) and on
 * the same file mapped, wrapped with b2_nd_from_schunk. */
static int pread_mmap_slices(bench *b, op *o, const double *data)
{
    b2_schunk *s = NULL;
    b2_nd_array *am = NULL;
    int rc = open_mapped(b->nd_path, &s);
    if (rc >= 0 && (rc = b2_nd_from_schunk(s, &am)) < 0)
        b2_schunk_free(s);
    if (rc < 0)
        return fail("b2nd mmap open", rc);
    op m = *o;
    m.a = am;
    char label[160];
    for (int k = 0; k < 2 && rc == B2CLI_OK; k++) {
        o->kind = m.kind = OP_SLICE;
        o->start[0] = o->start[1] = m.start[0] = m.start[1] = slice_start[k];
        o->stop[0] = o->stop[1] = m.stop[0] = m.stop[1] = slice_start[k] + 10;
        snprintf(label, sizeof label, "  get_slice 10x10 %s", slice_label[k]);
        rc = time_pread_mmap(b, o, &m, label, 0, data);
    }
    b2_nd_free(am);
    return rc;
}

/* One section: blockshape bs, in memory (file 0) or file-backed (file 1). */
static int nd_section(bench *b, const char *bname, const int32_t bs[2], int file,
                      const double *data, uint8_t *whole, uint8_t *chunkbuf, size_t chunkcap)
{
    const char *where = file ? "file-backed cframe (page cache warm)" : "in-memory cframe";
    b2_nd_params np = {.ndim = 2, .shape = {SIDE, SIDE}, .chunkshape = {CSIDE, CSIDE},
                       .blockshape = {bs[0], bs[1]}, .typesize = 8, .dtype = "<f8",
                       .cparams = &b->cp};
    b2_nd_storage mem = {B2_STORAGE_MEMORY, NULL}, fst = {B2_STORAGE_FILE, b->nd_path};
    b2_nd_array *a = NULL;
    char label[160];
    double t0 = b2cli_now();
    int rc = b2_nd_from_cbuffer(&np, &mem, data, ND_BYTES, &a);
    double tfrom = b2cli_now() - t0;
    if (rc < 0)
        return fail("b2nd from_cbuffer", rc);
    if (file) {
        b2cli_temp_remove(b->nd_path);
        rc = b2_nd_save(a, &fst);
        b2_nd_free(a);
        a = NULL;
        if (rc < 0 || (rc = b2_nd_open(b->nd_path, B2_OPEN_READONLY, &a)) < 0)
            return fail("b2nd save + open", rc);
    }
    b2_schunk *s = b2_nd_schunk(a);
    double cratio = (double)b2_schunk_nbytes(s) / (double)b2_schunk_cbytes(s);
    snprintf(b->section, sizeof b->section, "blockshape %s, %s", bname, where);
    if (b->json) {
        b->t[0] = tfrom;
        report(b, "from_cbuffer", b->t, 1, ND_BYTES, cratio, 0);
    } else {
        printf("\nblockshape %s = %dx%d, %s: from_cbuffer %.1f ms, cratio %.2f\n", bname, bs[0],
               bs[1], where, tfrom * 1e3, cratio);
    }
    op o = {.b = b, .a = a, .dst = chunkbuf, .cap = chunkcap};
    for (int k = 0; k < 2 && rc >= 0; k++) {
        o.kind = OP_SLICE;
        o.start[0] = o.start[1] = slice_start[k];
        o.stop[0] = o.stop[1] = slice_start[k] + 10;
        memset(chunkbuf, 0xa5, 800);
        snprintf(label, sizeof label, "  get_slice 10x10 %s", slice_label[k]);
        rc = time_op(b, &o, label, 0, data) == B2CLI_OK ? 0 : -1;
    }
    if (rc >= 0)
        rc = nd_select_line(b, &o, bs, data) == B2CLI_OK ? 0 : -1;
    if (file && rc >= 0)
        rc = pread_mmap_slices(b, &o, data) == B2CLI_OK ? 0 : -1;
    int64_t e0 = (CSIDE + bs[0] - 1) / bs[0] * bs[0], e1 = (CSIDE + bs[1] - 1) / bs[1] * bs[1];
    if (rc >= 0) {
        o.kind = OP_CHUNK;
        o.expect = (int32_t)(e0 * e1 * 8);
        snprintf(label, sizeof label, "  decompress whole chunk (%lldx%lld padded, %.2f MB)",
                 (long long)e0, (long long)e1, (double)o.expect / 1e6);
        rc = time_op(b, &o, label, (double)o.expect, data) == B2CLI_OK ? 0 : -1;
    }
    for (int r = 0; r < b->reps && rc >= 0; r++) {
        memset(whole, 0xa5, ND_BYTES); /* poisoned; also keeps page faults out */
        t0 = b2cli_now();
        int r2 = b2_nd_to_cbuffer(a, whole, ND_BYTES);
        b->t[r] = b2cli_now() - t0;
        if (r2 < 0 || memcmp(whole, data, ND_BYTES)) {
            fail("b2nd to_cbuffer", r2 < 0 ? r2 : B2_ERR_CORRUPT);
            rc = -1;
        }
    }
    if (rc >= 0)
        report(b, "  b2nd_to_cbuffer whole array (32 MB)", b->t, b->reps, ND_BYTES, 0, 0);
    b2_nd_free(a);
    if (file)
        b2cli_temp_remove(b->nd_path);
    b->section[0] = 0;
    return rc >= 0 ? B2CLI_OK : B2CLI_EXIT_DATA;
}

/* concatenate and rechunk of the default-blockshape array (bench_nd_ops.c). */
static int nd_ops_section(bench *b, const double *data, const int32_t *bs)
{
    b2_nd_params np = {.ndim = 2, .shape = {SIDE, SIDE}, .chunkshape = {CSIDE, CSIDE},
                       .blockshape = {bs[0], bs[1]}, .typesize = 8, .dtype = "<f8",
                       .cparams = &b->cp};
    b2_nd_array *a = NULL;
    int reps = b->reps < 64 ? b->reps : 64;
    b2bench_nd_ops_result *r = malloc(sizeof *r);
    int rc = r ? b2_nd_from_cbuffer(&np, NULL, data, ND_BYTES, &a) : B2_ERR_NOMEM;
    if (rc >= 0)
        rc = b2bench_nd_ops(b->dir, a, reps, r);
    b2_nd_free(a);
    if (rc < 0) {
        free(r);
        return fail("b2nd concatenate/rechunk", rc);
    }
    snprintf(b->section, sizeof b->section, "b2nd operations, file-backed, blockshape default");
    if (!b->json)
        printf("\n## b2nd operations on the file-backed array (chunks %dx%d, blocks %dx%d; %.2f MB file)\n",
               CSIDE, CSIDE, bs[0], bs[1], (double)r->file_bytes / 1e6);
    report(b, "  copy the two files (read + write + fsync)", r->t_copy, reps, 2.0 * ND_BYTES, 0, 0);
    snprintf(b->note, sizeof b->note, "%lld chunks, %lld blocks decoded", (long long)r->concat_chunks,
             (long long)r->concat_blocks_decoded);
    report(b, "  concatenate the two, axis 0, into a new file", r->t_concat, reps, 2.0 * ND_BYTES, 0, 0);
    snprintf(b->note, sizeof b->note,
             "b2 rechunk: peak memory %.1f MiB, %.1f MiB before the copy; a source chunk %.1f MiB",
             r->rechunk_maxrss_kib / 1024.0, r->info_maxrss_kib / 1024.0, r->src_chunk_bytes / 1048576.0);
    report(b, "  rechunk to 250x1000 into a new file", r->t_rechunk, reps, ND_BYTES, 0, 0);
    b->section[0] = 0;
    free(r);
    return B2CLI_OK;
}

static int run_b2nd(bench *b)
{
    double *data = malloc(ND_BYTES);
    uint8_t *whole = malloc(ND_BYTES);
    size_t chunkcap = (size_t)2 * CSIDE * 2 * CSIDE * 8; /* ample for any padding */
    uint8_t *chunkbuf = malloc(chunkcap);
    int rc = B2CLI_OK;
    if (!data || !whole || !chunkbuf) {
        rc = fail("b2nd buffers", B2_ERR_NOMEM);
        goto done;
    }
    /* 100 sin(r/150) cos(c/110) + 0.001 r, as the reference generates it */
    for (int r = 0; r < SIDE; r++) {
        double sr = 100.0 * sin(r / 150.0), br = 0.001 * r;
        for (int c = 0; c < SIDE; c++)
            data[(size_t)r * SIDE + c] = cos(c / 110.0) * sr + br;
    }
    b2_cparams p = b->cp;
    int32_t bsz = b2_chunk_blocksize_for(&p, CSIDE * CSIDE * 8);
    int32_t def[2];
    default_blockshape(bsz / 8, def);
    if (!b->json) {
        printf("\n## b2nd %dx%d float64, chunks %dx%d, %s clevel %d shuffle, nthreads 1\n", SIDE,
               SIDE, CSIDE, CSIDE, b2_codec_name(p.codec), p.clevel);
        printf("auto blocksize for a 2 MB chunk = %d bytes -> default blockshape %dx%d\n", bsz,
               def[0], def[1]);
    }
    static const struct {
        const char *name;
        int32_t side;
    } shapes[] = {{"default", 0}, {"100x100", 100}, {"50x50", 50}, {"500x500(1 block/chunk)", 500}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes && rc == B2CLI_OK; i++) {
        int32_t bs[2] = {shapes[i].side, shapes[i].side};
        if (i == 0) {
            bs[0] = def[0];
            bs[1] = def[1];
        } else if (bs[0] == def[0] && bs[1] == def[1]) {
            continue; /* the same as the default: as the reference, not twice */
        }
        for (int file = 0; file < 2 && rc == B2CLI_OK; file++)
            rc = nd_section(b, shapes[i].name, bs, file, data, whole, chunkbuf, chunkcap);
    }
    if (rc == B2CLI_OK)
        rc = nd_ops_section(b, data, def);
done:
    free(data);
    free(whole);
    free(chunkbuf);
    return rc;
}

/* ---- command line ---- */

int b2bench_frame(int argc, char **argv)
{
    bench b = {.reps = 7, .nchunks = 100, .parts = 3, .rng = 42};
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int64_t n;
        if (!strcmp(a, "--frame"))
            continue;
        if (!strcmp(a, "--json")) {
            b.json = 1;
            continue;
        }
        if (a[0] != '-' || !strcmp(a, "-"))
            return b2cli_usage_error(CMD, "--frame takes no file ('%s')", a);
        if (b2cli_opt_is(a, "--reps")) {
            if (!(v = b2cli_opt_value(CMD, argc, argv, &i, "--reps")))
                return B2CLI_EXIT_USAGE;
            if (b2cli_parse_int(v, 1, 1000, 0, &n) < 0)
                return b2cli_usage_error(CMD, "--reps wants 1..1000, not '%s'", v);
            b.reps = (int)n;
        } else if (b2cli_opt_is(a, "--chunks")) {
            if (!(v = b2cli_opt_value(CMD, argc, argv, &i, "--chunks")))
                return B2CLI_EXIT_USAGE;
            if (b2cli_parse_int(v, 1, 1000, 0, &n) < 0)
                return b2cli_usage_error(CMD, "--chunks wants 1..1000, not '%s'", v);
            b.nchunks = (int)n;
        } else if (b2cli_opt_is(a, "--dir")) {
            if (!(dir = b2cli_opt_value(CMD, argc, argv, &i, "--dir")))
                return B2CLI_EXIT_USAGE;
        } else if (b2cli_opt_is(a, "--only")) {
            if (!(v = b2cli_opt_value(CMD, argc, argv, &i, "--only")))
                return B2CLI_EXIT_USAGE;
            if (strcmp(v, "frame") && strcmp(v, "b2nd"))
                return b2cli_usage_error(CMD, "--only wants frame or b2nd, not '%s'", v);
            b.parts = !strcmp(v, "frame") ? 1 : 2;
        } else {
            return b2cli_usage_error(CMD, "--frame: unknown option '%s'", a);
        }
    }
    if (!dir) {
        dir = getenv("TMPDIR");
        dir = dir && *dir ? dir : "/tmp";
    }
    if (strlen(dir) > 4000)
        return b2cli_usage_error(CMD, "--dir: path too long");
    snprintf(b.dir, sizeof b.dir, "%s/b2bench-frame-XXXXXX", dir);
    if (!mkdtemp(b.dir)) {
        fprintf(stderr, "%s: --frame: cannot create a directory in %s\n", CMD, dir);
        return B2CLI_EXIT_DATA;
    }
    snprintf(b.frame_path, sizeof b.frame_path, "%s/frame.b2frame", b.dir);
    snprintf(b.sframe_path, sizeof b.sframe_path, "%s/frame.b2sframe", b.dir);
    snprintf(b.nd_path, sizeof b.nd_path, "%s/array.b2nd", b.dir);

    b2_cparams_init(&b.cp);
    b.cp.codec = B2_CODEC_LZ4;
    b.cp.clevel = 5;
    b.cp.typesize = 8;
    b.cp.nthreads = 1;
    memset(b.cp.filters, 0, sizeof b.cp.filters);
    b.cp.filters[B2_MAX_FILTERS - 1] = B2_FILTER_SHUFFLE;
    size_t total = (size_t)b.nchunks * CHUNK, cap = b2_chunk_compress_bound(CHUNK);
    int rc = B2CLI_OK;
    b.src = malloc(total);
    b.out = malloc(CHUNK);
    b.pre = calloc((size_t)b.nchunks, sizeof *b.pre);
    b.pre_len = calloc((size_t)b.nchunks, sizeof *b.pre_len);
    b.t = malloc(sizeof(double) * 5 * (size_t)b.reps);
    b.dctx = b2_dctx_new(1);
    if (!b.src || !b.out || !b.pre || !b.pre_len || !b.t || !b.dctx)
        rc = fail("allocating buffers", B2_ERR_NOMEM);
    for (int i = 0; i < b.nchunks && rc == B2CLI_OK; i++)
        if (!(b.pre[i] = malloc(cap)))
            rc = fail("allocating buffers", B2_ERR_NOMEM);
    if (rc == B2CLI_OK) {
        /* float64 1000 sin(linspace(0, 16 pi, N)), the reference's a2_f64_sin */
        size_t items = total / 8;
        double *x = (double *)b.src;
        for (size_t i = 0; i < items; i++)
            x[i] = sin((double)i / (double)(items - 1) * 50.26548245743669) * 1000.0;
        cpu_times(&b.last_wall, &b.last_busy, &b.last_own);
        if (!b.json)
            printf("# libb2 %s; %d chunks x %d bytes of float64 1000*sin(linspace(0, 16*pi, N)); "
                   "lz4 clevel 5 shuffle typesize 8 nthreads 1; reps %d\n",
                   b2_version(), b.nchunks, CHUNK, b.reps);
        if (b.parts & 1)
            rc = run_frames(&b);
        if (rc == B2CLI_OK && (b.parts & 2))
            rc = run_b2nd(&b);
        if (rc == B2CLI_OK && !b.json && b.npairs > 0)
            printf("\nmmap against pread: %s (%d of %d median mmap/pread ratios within 1 +- %.2f; "
                   "range %.3f..%.3f)\n",
                   b.nlevel == b.npairs ? "level" : "not level", b.nlevel, b.npairs, LEVEL,
                   b.rlo, b.rhi);
    }
    for (int i = 0; b.pre && i < b.nchunks; i++)
        free(b.pre[i]);
    free(b.pre);
    free(b.pre_len);
    free(b.src);
    free(b.out);
    free(b.t);
    b2_dctx_free(b.dctx);
    b2cli_temp_remove(b.frame_path);
    b2cli_temp_remove(b.sframe_path);
    b2cli_temp_remove(b.nd_path);
    rmdir(b.dir);
    return rc;
}
