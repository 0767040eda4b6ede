/* SPDX-License-Identifier: BSD-3-Clause */
/* b2 bench: the benchmark protocol of shared/bench (README there). Each file is
 * compressed as one chunk with an automatic blocksize; after one warm-up, every
 * round times a memcpy of the buffer, a compression and a decompression (the
 * round trip is checked). Speeds are medians in decimal MB/s. Several values per
 * option (comma-separated) run every combination. `--hdf5` selects the HDF5
 * filter benchmark instead (bench_h5.c), `--frame` the frame and b2nd one
 * (bench_frame.c). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "b2cli.h"

static const char bench_help[] =
    "usage: b2 bench [options] FILE...\n"
    "Measure compression ratio and speed on raw files, one chunk per file, following\n"
    "the shared benchmark protocol (shared/bench/README.md): one warm-up, then REPS\n"
    "rounds of memcpy + compress + decompress; the median of each is reported.\n"
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
    "Exit status: 0 success, 1 unreadable input or a failed round trip, 2 bad command line.\n"
    "\n"
    "usage: b2 bench --hdf5 [--mib N] [--chunks LIST] [--codec LIST] [--threads LIST]\n"
    "                       [--reps N] [--json] [--plugin-dir DIR]\n"
    "Compare HDF5 filters through the HDF5 C API: our Blosc2 filter 32026, Blosc1's\n"
    "32001 (when HDF5 can load its plugin, e.g. Debian's hdf5-filter-plugin-blosc-serial)\n"
    "and gzip level 4. Two deterministic N x 512 x 512 datasets (N MiB each): a float32\n"
    "smooth field with noise and an int32 ramp with noise. Each case writes a whole file\n"
    "(create + H5Dwrite + close) and reads the dataset back (open + H5Dread + close, checked\n"
    "identical); filters alternate round by round and medians are reported. Blosc filters\n"
    "use shuffle; each thread count runs in its own process with B2_H5_NTHREADS and\n"
    "BLOSC_NTHREADS set. Temporary files go to $TMPDIR (else /tmp).\n"
    "  --mib N             dataset size in MiB, i.e. N (default 64)\n"
    "  --chunks LIST       chunk shapes ZxYxX (default 1x64x512,1x512x512,8x512x512:\n"
    "                      128 KiB, 1 MiB, 8 MiB)\n"
    "  --codec LIST        NAME[:CLEVEL] for both Blosc filters (default lz4:5,zstd:1;\n"
    "                      CLEVEL defaults to 1 for zstd, else 5)\n"
    "  --threads LIST      thread counts (default 1,2); gzip runs once, single-threaded\n"
    "  --reps N            rounds (default 3)\n"
    "  --json              one JSON object per filter and case instead of a table\n"
    "  --plugin-dir DIR    where libH5Zb2.so is (default ../h5plugin next to the directory\n"
    "                      of this program when present, else HDF5_PLUGIN_PATH)\n"
    "The table gives write MB/s, read MB/s and ratio per filter, then ours over Blosc1's\n"
    "speed (> 1: ours faster). Our plugin is searched first, system plugin directories\n"
    "last (for Blosc1).\n"
    "\n"
    "usage: b2 bench --hdf5-parallel [FILE.h5:/DATASET] [--mib N] [--chunks ZxYxX]\n"
    "                                [--codec NAME[:CLEVEL]] [--threads N] [--reps N] [--json]\n"
    "Time whole-dataset reads and writes of one dataset of filter 32026 (FILE.h5:/DATASET,\n"
    "else a generated N x 512 x 512 int32 ramp with noise written to $TMPDIR, else /tmp):\n"
    "H5Dread through the filter against the parallel reader (b2_h5_reader) with 1 and N\n"
    "threads, and H5Dwrite against b2_h5_write_box with N threads, each write into a fresh\n"
    "file (H5Dwrite or write_box + H5Dclose + H5Fflush). Every result is checked; methods\n"
    "alternate round by round and medians are reported with ratio = the HDF5 call's median\n"
    "over this one (> 1: faster). H5Dread/H5Dwrite use $B2_H5_NTHREADS filter threads.\n"
    "  --mib N             generated dataset size in MiB (default 64)\n"
    "  --chunks ZxYxX      generated dataset's chunk shape (default 1x512x512, 1 MiB)\n"
    "  --codec NAME[:CLEVEL]  generated dataset's codec (default lz4:5), with shuffle\n"
    "  --threads N         threads of the parallel paths (default: the online CPUs)\n"
    "  --reps N            rounds (default 5)\n"
    "  --json              one JSON object per row: op, method, threads, nbytes,\n"
    "                      chunk_bytes, reps, median_s, mbps, ratio (and path)\n"
    "\n"
    "usage: b2 bench --frame [--reps N] [--json] [--dir DIR] [--chunks N] [--only PART]\n"
    "Time super-chunks, frames and b2nd arrays with the scenarios and line names of\n"
    "the reference program ref_bench_frame (c-blosc2), lz4 clevel 5 + shuffle, typesize\n"
    "8, 1 thread: N x 1 MiB appends (float64 1000 sin) to memory, file and sparse\n"
    "frames; open + read one random chunk; 10x10 slices of a 2000x2000 float64 b2nd\n"
    "array (chunks 500x500) per blockshape, in memory and file-backed, against\n"
    "decoding a whole chunk; to_cbuffer of the whole array. Ours only: 64 random\n"
    "chunk reads of the file frame and the file-backed slices through pread and\n"
    "through mmap, alternating, with the median mmap/pread ratio and a closing note\n"
    "on whether mmap was level (within 10%). Every result is checked.\n"
    "Appends: a warm-up, then REPS runs; short operations: 5 x REPS samples of at\n"
    "least 20 ms each. The table gives median/min/max ms, MB/s and the load the rest\n"
    "of the machine put on it (ext load, in cores). Compare with the reference with\n"
    "tools/bench_frame_compare.py.\n"
    "  --reps N            runs per append line; other lines take 5 x N samples\n"
    "                      (default 7)\n"
    "  --json              one JSON object per line: name, median_ms, min_ms, max_ms, n,\n"
    "                      mbps (when bytes are moved), cratio, mmap_pread_ratio, ext_load\n"
    "  --dir DIR           where the temporary files go (default $TMPDIR, else /tmp); a\n"
    "                      private directory is made there and removed afterwards\n"
    "  --chunks N          number of 1 MiB appends (default 100)\n"
    "  --only PART         frame or b2nd: run one part only\n";

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

double b2cli_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double b2cli_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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

int b2cli_cmd_bench(int argc, char **argv)
{
    list codecs = {1, {B2_CODEC_LZ4}}, clevels = {1, {5}}, filters = {1, {1}}, threads = {1, {1}};
    list typesizes = {0, {0}};
    int reps = 5, json = 0, nfiles = 0, rc, hdf5 = 0, frame = 0, h5par = 0;
    for (int i = 1; i < argc; i++) {
        if (b2cli_is_help(argv[i])) { /* one help text covers both forms */
            fputs(bench_help, stdout);
            return B2CLI_OK;
        }
        hdf5 |= !strcmp(argv[i], "--hdf5");
        frame |= !strcmp(argv[i], "--frame");
        h5par |= !strcmp(argv[i], "--hdf5-parallel");
    }
    if (hdf5 + frame + h5par > 1)
        return b2cli_usage_error(CMD, "--hdf5, --hdf5-parallel and --frame are different benchmarks");
    if (h5par) /* parallel HDF5 reads and writes (bench_h5par.c) */
        return b2cli_bench_h5par(argc, argv);
    if (hdf5) /* a different benchmark with its own options (bench_h5.c) */
        return b2cli_bench_h5(argc, argv);
    if (frame) /* frames and b2nd against the reference's lines (bench_frame.c) */
        return b2cli_bench_frame(argc, argv);
    char **files = calloc((size_t)argc, sizeof *files);
    if (!files)
        return B2CLI_EXIT_DATA;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int64_t n;
        if (a[0] != '-' || !strcmp(a, "-")) {
            files[nfiles++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--json")) {
            json = 1;
            continue;
        }
#define VALUE(opt)                                                    \
        if (!(v = b2cli_opt_value(CMD, argc, argv, &i, opt))) {       \
            free(files);                                              \
            return B2CLI_EXIT_USAGE;                                  \
        }
        rc = 0;
        if (b2cli_opt_is(a, "--codec")) {
            VALUE("--codec");
            rc = parse_list("--codec", v, one_codec, &codecs);
        } else if (b2cli_opt_is(a, "--clevel")) {
            VALUE("--clevel");
            rc = parse_list("--clevel", v, one_clevel, &clevels);
        } else if (b2cli_opt_is(a, "--filter")) {
            VALUE("--filter");
            rc = parse_list("--filter", v, one_filter, &filters);
        } else if (b2cli_opt_is(a, "--threads")) {
            VALUE("--threads");
            rc = parse_list("--threads", v, one_threads, &threads);
        } else if (b2cli_opt_is(a, "--typesize")) {
            VALUE("--typesize");
            rc = parse_list("--typesize", v, one_typesize, &typesizes);
        } else if (b2cli_opt_is(a, "--reps")) {
            VALUE("--reps");
            if (b2cli_parse_int(v, 1, 1000, 0, &n) < 0)
                rc = b2cli_usage_error(CMD, "--reps wants 1..1000, not '%s'", v);
            reps = (int)n;
        } else {
            rc = b2cli_usage_error(CMD, "unknown option '%s'", a);
        }
#undef VALUE
        if (rc) {
            free(files);
            return rc;
        }
    }
    if (!nfiles) {
        free(files);
        return b2cli_usage_error(CMD, "no input file");
    }
    if (!json)
        printf("SIMD kernels: %s\n%-22s %-8s %2s %-10s %3s %3s %8s %12s %12s %12s\n", b2_simd_name(),
               "file", "codec", "cl",
               "filter", "thr", "ts", "ratio", "comp MB/s", "decomp MB/s", "memcpy MB/s");
    static const char *const fnames[] = {"none", "shuffle", "bitshuffle"};
    rc = B2CLI_OK;
    for (int f = 0; f < nfiles && rc == B2CLI_OK; f++) {
        uint8_t *src;
        size_t n;
        if (b2cli_read_file(files[f], &src, &n) < 0) {
            rc = B2CLI_EXIT_DATA; /* the reader said why */
            break;
        }
        if (n > (size_t)B2_MAX_BUFFERSIZE) {
            free(src);
            rc = b2cli_data_error(files[f], "larger than one chunk can hold (2 GiB - 32 bytes)");
            break;
        }
        list ts = typesizes.n ? typesizes : (list){1, {typesize_from_name(files[f])}};
        const char *base = strrchr(files[f], '/') ? strrchr(files[f], '/') + 1 : files[f];
        for (int a = 0; a < codecs.n && rc == B2CLI_OK; a++)
            for (int b = 0; b < clevels.n && rc == B2CLI_OK; b++)
                for (int c = 0; c < filters.n && rc == B2CLI_OK; c++)
                    for (int t = 0; t < threads.n && rc == B2CLI_OK; t++)
                        for (int s = 0; s < ts.n && rc == B2CLI_OK; s++) {
                            b2_cparams p;
                            b2_cparams_init(&p);
                            p.codec = codecs.v[a];
                            p.clevel = clevels.v[b];
                            memset(p.filters, 0, sizeof p.filters);
                            p.filters[5] = (uint8_t)filters.v[c];
                            p.nthreads = threads.v[t];
                            p.typesize = ts.v[s];
                            result r = {0};
                            if ((rc = measure(files[f], src, n, &p, reps, &r)) != B2CLI_OK)
                                break;
                            double ratio = r.cbytes ? (double)n / r.cbytes : 0;
                            if (json) {
                                b2cli_json j;
                                b2cli_json_begin(&j, stdout);
                                b2cli_json_str(&j, "file", base);
                                b2cli_json_str(&j, "codec", b2_codec_name(p.codec));
                                b2cli_json_int(&j, "clevel", p.clevel);
                                b2cli_json_str(&j, "filter", fnames[filters.v[c]]);
                                b2cli_json_int(&j, "threads", p.nthreads);
                                b2cli_json_int(&j, "typesize", p.typesize);
                                b2cli_json_int(&j, "nbytes", (int64_t)n);
                                b2cli_json_int(&j, "cbytes", r.cbytes);
                                b2cli_json_num(&j, "ratio", ratio);
                                b2cli_json_num(&j, "compress_mbps", r.comp);
                                b2cli_json_num(&j, "decompress_mbps", r.decomp);
                                b2cli_json_num(&j, "memcpy_mbps", r.mem);
                                b2cli_json_end(&j);
                            } else {
                                printf("%-22s %-8s %2d %-10s %3d %3d %8.3f %12.1f %12.1f %12.1f\n",
                                       base, b2_codec_name(p.codec), p.clevel, fnames[filters.v[c]],
                                       p.nthreads, p.typesize, ratio, r.comp, r.decomp, r.mem);
                            }
                            fflush(stdout);
                        }
        free(src);
    }
    free(files);
    return rc;
}
