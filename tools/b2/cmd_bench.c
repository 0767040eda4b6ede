/* SPDX-License-Identifier: BSD-3-Clause */
/* b2 bench: our codecs on the user's files, like `zstd -b`. Each file is
 * compressed as one chunk with an automatic blocksize; after one warm-up, every
 * round times a memcpy of the buffer, a compression and a decompression (the
 * round trip is checked). Speeds are medians in decimal MB/s. Several values per
 * option (comma-separated) run every combination. The comparisons with other
 * programs (--frame, --hdf5, --hdf5-parallel) are the source tree's b2bench
 * program (bench/). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "b2cli.h"
#include "json.h"

static const char bench_help[] =
    "usage: b2 bench [options] FILE...\n"
    "Measure compression ratio and speed on raw files, one chunk per file: one\n"
    "warm-up, then REPS rounds of memcpy + compress + decompress; the median of each\n"
    "is reported.\n"
    "Options take one value or a comma-separated list; every combination runs.\n"
    "  --codec LIST        blosclz, lz4, lz4hc, zlib, zstd (default lz4)\n"
    "  --clevel LIST       0..9 (default 5)\n"
    "  --filter LIST       none, shuffle, bitshuffle: the filter in the last slot (default shuffle)\n"
    "  --threads LIST      compression and decompression threads (default 1)\n"
    "  --typesize LIST     item size; default: taken from a file name starting with\n"
    "                      f64/i64/u64 (8), f32/i32/u32 (4), i16/u16 (2), i8/u8 (1), else 8\n"
    "  --reps N            rounds per measurement (default 5)\n"
    "  --json              one JSON object per line instead of a table\n"
    "Speeds are uncompressed bytes per second in decimal MB/s; ratio = nbytes / cbytes.\n"
    "Exit status: 0 success, 1 unreadable input or a failed round trip, 2 bad command line.\n";

#define CMD "bench"
#define MAXV 16

typedef struct list {
    int n;
    int v[MAXV];
} list;

/* Parse "a,b,c" with a per-item parser returning a value >= 0 or -1. */
static int parse_list(const char *opt, const char *s, int (*one)(const char *), list *out)
{
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return b2cli_usage_error(CMD, "%s: value too long", opt);
    strcpy(buf, s);
    out->n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int v = one(tok);
        if (v < 0)
            return b2cli_usage_error(CMD, "%s: bad value '%s'", opt, tok);
        if (out->n == MAXV)
            return b2cli_usage_error(CMD, "%s: at most %d values", opt, MAXV);
        out->v[out->n++] = v;
    }
    return out->n ? 0 : b2cli_usage_error(CMD, "%s: empty list", opt);
}

static int one_codec(const char *s) { return b2_codec_from_name(s) < 0 ? -1 : b2_codec_from_name(s); }
static int one_int(const char *s, int lo, int hi)
{
    int64_t v;
    return b2cli_parse_int(s, lo, hi, 0, &v) < 0 ? -1 : (int)v;
}
static int one_clevel(const char *s) { return one_int(s, 0, 9); }
static int one_threads(const char *s) { return one_int(s, 1, 256); }
static int one_typesize(const char *s) { return one_int(s, 1, B2_MAX_TYPESIZE); }
static int one_filter(const char *s)
{
    static const char *const names[] = {"none", "shuffle", "bitshuffle"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

/* Item size implied by a dataset name such as "f64_sin.bin" (8 otherwise). */
static int typesize_from_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if ((base[0] == 'f' || base[0] == 'i' || base[0] == 'u') && isdigit((unsigned char)base[1])) {
        int bits = atoi(base + 1);
        if (bits == 8 || bits == 16 || bits == 32 || bits == 64)
            return bits / 8;
    }
    return 8;
}

static double median_mbps(double *secs, int n, size_t nbytes)
{
    double m = b2cli_median(secs, n);
    return m > 0 ? (double)nbytes / m / 1e6 : 0;
}

typedef struct result {
    size_t nbytes;
    int cbytes;
    double comp, decomp, mem; /* MB/s */
} result;

/* One measurement; returns 0, or an exit code after printing the problem. */
static int measure(const char *file, const uint8_t *src, size_t n, const b2_cparams *p, int reps,
                   result *r)
{
    size_t cap = b2_chunk_compress_bound(n);
    uint8_t *chunk = malloc(cap), *out = malloc(n ? n : 1), *copy = malloc(n ? n : 1);
    double *t = malloc(3 * sizeof(double) * (size_t)reps);
    b2_cctx *c = b2_cctx_new(p);
    b2_dctx *d = b2_dctx_new(p->nthreads);
    int rc = B2CLI_OK;
    if (!chunk || !out || !copy || !t || !c || !d) {
        rc = b2cli_data_error(file, "out of memory or bad parameters");
        goto done;
    }
    for (int i = -1; i < reps; i++) { /* round -1 is the warm-up */
        double t0 = b2cli_now();
        memcpy(copy, src, n);
        double t1 = b2cli_now();
        int cb = b2_chunk_compress(c, src, n, chunk, cap);
        double t2 = b2cli_now();
        int db = cb > 0 ? b2_chunk_decompress(d, chunk, (size_t)cb, out, n) : cb;
        double t3 = b2cli_now();
        if (cb < 0 || db != (int)n || memcmp(out, src, n)) {
            rc = b2cli_data_error(file, "round trip failed (%s)",
                                  b2cli_err(cb < 0 ? cb : db < 0 ? db : B2_ERR_CORRUPT));
            goto done;
        }
        r->cbytes = cb;
        if (i >= 0) {
            t[i] = t1 - t0;
            t[reps + i] = t2 - t1;
            t[2 * reps + i] = t3 - t2;
        }
    }
    r->nbytes = n;
    r->mem = median_mbps(t, reps, n);
    r->comp = median_mbps(t + reps, reps, n);
    r->decomp = median_mbps(t + 2 * reps, reps, n);
done:
    b2_cctx_free(c);
    b2_dctx_free(d);
    free(chunk);
    free(out);
    free(copy);
    free(t);
    return rc;
}

/* The command line: value lists, files (pointers into argv). */
typedef struct bench_opts {
    list codecs, clevels, filters, threads, typesizes; /* typesizes.n == 0: from the name */
    int reps, json, nfiles;
    char **files;
} bench_opts;

/* Parse the options after argv[0] into o (o->files allocated by the caller).
 * 0 or a usage exit code (message printed). */
static int parse_opts(int argc, char **argv, bench_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int64_t n;
        int rc = 0;
        if (a[0] != '-' || !strcmp(a, "-")) {
            o->files[o->nfiles++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--json")) {
            o->json = 1;
            continue;
        }
        if (!strcmp(a, "--frame") || !strcmp(a, "--hdf5") || !strcmp(a, "--hdf5-parallel"))
            return b2cli_usage_error(CMD, "%s is a benchmark of the source tree's b2bench program "
                                          "(bench/, built with -DB2_BUILD_BENCH=ON)", a);
        static const char *const opts[] = {"--codec", "--clevel", "--filter", "--threads",
                                           "--typesize", "--reps"};
        int k = 0;
        while (k < 6 && !b2cli_opt_is(a, opts[k]))
            k++;
        if (k == 6)
            return b2cli_usage_error(CMD, "unknown option '%s'", a);
        if (!(v = b2cli_opt_value(CMD, argc, argv, &i, opts[k])))
            return B2CLI_EXIT_USAGE;
        switch (k) {
        case 0: rc = parse_list("--codec", v, one_codec, &o->codecs); break;
        case 1: rc = parse_list("--clevel", v, one_clevel, &o->clevels); break;
        case 2: rc = parse_list("--filter", v, one_filter, &o->filters); break;
        case 3: rc = parse_list("--threads", v, one_threads, &o->threads); break;
        case 4: rc = parse_list("--typesize", v, one_typesize, &o->typesizes); break;
        default:
            if (b2cli_parse_int(v, 1, 1000, 0, &n) < 0)
                rc = b2cli_usage_error(CMD, "--reps wants 1..1000, not '%s'", v);
            o->reps = (int)n;
        }
        if (rc)
            return rc;
    }
    return o->nfiles ? 0 : b2cli_usage_error(CMD, "no input file");
}

static const char *const filter_names[] = {"none", "shuffle", "bitshuffle"};

/* One result, as a JSON line or a table row. */
static void print_result(const bench_opts *o, const char *base, const b2_cparams *p, int filter,
                         size_t n, const result *r)
{
    double ratio = r->cbytes ? (double)n / r->cbytes : 0;
    if (o->json) {
        b2cli_json j;
        b2cli_json_begin(&j, stdout);
        b2cli_json_str(&j, "file", base);
        b2cli_json_str(&j, "codec", b2_codec_name(p->codec));
        b2cli_json_int(&j, "clevel", p->clevel);
        b2cli_json_str(&j, "filter", filter_names[filter]);
        b2cli_json_int(&j, "threads", p->nthreads);
        b2cli_json_int(&j, "typesize", p->typesize);
        b2cli_json_int(&j, "nbytes", (int64_t)n);
        b2cli_json_int(&j, "cbytes", r->cbytes);
        b2cli_json_num(&j, "ratio", ratio);
        b2cli_json_num(&j, "compress_mbps", r->comp);
        b2cli_json_num(&j, "decompress_mbps", r->decomp);
        b2cli_json_num(&j, "memcpy_mbps", r->mem);
        b2cli_json_end(&j);
    } else {
        printf("%-22s %-8s %2d %-10s %3d %3d %8.3f %12.1f %12.1f %12.1f\n", base,
               b2_codec_name(p->codec), p->clevel, filter_names[filter], p->nthreads, p->typesize,
               ratio, r->comp, r->decomp, r->mem);
    }
    fflush(stdout);
}

/* Every combination of the option lists on one file. B2CLI_OK or an exit code. */
static int bench_file(const bench_opts *o, const char *file)
{
    uint8_t *src;
    size_t n;
    if (b2cli_read_file(file, &src, &n) < 0)
        return B2CLI_EXIT_DATA; /* the reader said why */
    if (n > (size_t)B2_MAX_BUFFERSIZE) {
        free(src);
        return b2cli_data_error(file, "larger than one chunk can hold (2 GiB - 32 bytes)");
    }
    list ts = o->typesizes.n ? o->typesizes : (list){1, {typesize_from_name(file)}};
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    int rc = B2CLI_OK;
    for (int a = 0; a < o->codecs.n && rc == B2CLI_OK; a++)
        for (int b = 0; b < o->clevels.n && rc == B2CLI_OK; b++)
            for (int c = 0; c < o->filters.n && rc == B2CLI_OK; c++)
                for (int t = 0; t < o->threads.n && rc == B2CLI_OK; t++)
                    for (int s = 0; s < ts.n && rc == B2CLI_OK; s++) {
                        b2_cparams p;
                        b2_cparams_init(&p);
                        p.codec = o->codecs.v[a];
                        p.clevel = o->clevels.v[b];
                        memset(p.filters, 0, sizeof p.filters);
                        p.filters[5] = (uint8_t)o->filters.v[c];
                        p.nthreads = o->threads.v[t];
                        p.typesize = ts.v[s];
                        result r = {0};
                        if ((rc = measure(file, src, n, &p, o->reps, &r)) == B2CLI_OK)
                            print_result(o, base, &p, o->filters.v[c], n, &r);
                    }
    free(src);
    return rc;
}

int b2cli_cmd_bench(int argc, char **argv)
{
    bench_opts o = {.codecs = {1, {B2_CODEC_LZ4}}, .clevels = {1, {5}}, .filters = {1, {1}},
                    .threads = {1, {1}}, .typesizes = {0, {0}}, .reps = 5};
    for (int i = 1; i < argc; i++)
        if (b2cli_is_help(argv[i])) {
            fputs(bench_help, stdout);
            return B2CLI_OK;
        }
    if (!(o.files = calloc((size_t)argc, sizeof *o.files)))
        return B2CLI_EXIT_DATA;
    int rc = parse_opts(argc, argv, &o);
    if (rc) {
        free(o.files);
        return rc;
    }
    if (!o.json)
        printf("SIMD kernels: %s\n%-22s %-8s %2s %-10s %3s %3s %8s %12s %12s %12s\n", b2_simd_name(),
               "file", "codec", "cl",
               "filter", "thr", "ts", "ratio", "comp MB/s", "decomp MB/s", "memcpy MB/s");
    for (int f = 0; f < o.nfiles && rc == B2CLI_OK; f++)
        rc = bench_file(&o, o.files[f]);
    free(o.files);
    return rc;
}
