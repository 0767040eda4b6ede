/* SPDX-License-Identifier: BSD-3-Clause */
/* b2bench --hdf5-parallel: whole-dataset reads and writes of one HDF5 dataset
 * of filter 32026 through HDF5's own pipeline (H5Dread / H5Dwrite, one chunk at
 * a time on the calling thread, the filter using $B2_H5_NTHREADS threads inside
 * each chunk) against the parallel paths of b2_h5filter.h: b2_h5_reader with 1
 * and N threads, and b2_h5_write_box with N threads.
 *
 * The dataset is FILE.h5:/DATASET when given, else a generated one following
 * `b2bench --hdf5`: an int32 ramp with noise of N x 512 x 512 items (N MiB),
 * written with our filter (registered in this process) to a temporary file.
 * Reads and writes are checked against the data. The methods alternate round by
 * round (A B C A B C ...), medians are reported with their ratio to the HDF5
 * call (> 1: faster). A write is timed from H5Dwrite / b2_h5_write_box to the
 * dataset's close and the file's flush, into a fresh file made for each
 * sample. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "h5.h"
#include "json.h"

#define CMD "b2bench"

#ifndef B2CLI_HAVE_HDF5

int b2bench_h5par(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "%s: --hdf5-parallel: this b2bench was built without HDF5 support\n", CMD);
    return B2CLI_EXIT_DATA;
}

#else
#include <hdf5.h>
#include <unistd.h>

#include "b2_h5filter.h"

#define SIDE 512
#define MAXREPS 1000

typedef struct popts {
    const char *spec; /* FILE.h5:/DATASET or NULL: generated */
    int mib, reps, threads, json;
    int chunk[3];
    int codec, clevel;
} popts;

enum { R_H5, R_RD1, R_RDN, W_H5, W_BOX, NMETH };
static const char *const meth_op[NMETH] = {"read", "read", "read", "write", "write"};
static const char *const meth_name[NMETH] = {"H5Dread", "b2_h5_reader", "b2_h5_reader", "H5Dwrite",
                                             "b2_h5_write_box"};

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int parse_popts(int argc, char **argv, popts *o)
{
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    memset(o, 0, sizeof *o);
    o->mib = 64;
    o->reps = 5;
    o->threads = nc < 1 ? 1 : nc > 256 ? 256 : (int)nc;
    o->chunk[0] = 1, o->chunk[1] = SIDE, o->chunk[2] = SIDE;
    o->codec = B2_CODEC_LZ4;
    o->clevel = 5;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int64_t n;
        if (!strcmp(a, "--hdf5-parallel"))
            continue;
        if (!strcmp(a, "--json")) {
            o->json = 1;
            continue;
        }
        if (a[0] != '-') {
            if (o->spec)
                return b2cli_usage_error(CMD, "--hdf5-parallel: one FILE.h5:/DATASET at most");
            o->spec = a;
            continue;
        }
        if (!b2cli_opt_is(a, "--mib") && !b2cli_opt_is(a, "--reps") && !b2cli_opt_is(a, "--threads") &&
            !b2cli_opt_is(a, "--chunks") && !b2cli_opt_is(a, "--codec"))
            return b2cli_usage_error(CMD, "--hdf5-parallel: unknown option or argument '%s'", a);
        char opt[16];
        snprintf(opt, sizeof opt, "%.*s", (int)strcspn(a, "="), a);
        if (!(v = b2cli_opt_value(CMD, argc, argv, &i, opt)))
            return B2CLI_EXIT_USAGE;
        if (!strcmp(opt, "--mib") || !strcmp(opt, "--reps") || !strcmp(opt, "--threads")) {
            int64_t hi = !strcmp(opt, "--mib") ? 4096 : !strcmp(opt, "--reps") ? MAXREPS : 256;
            if (b2cli_parse_int(v, 1, hi, 0, &n) < 0)
                return b2cli_usage_error(CMD, "%s wants 1..%lld, not '%s'", opt, (long long)hi, v);
            *(!strcmp(opt, "--mib") ? &o->mib : !strcmp(opt, "--reps") ? &o->reps : &o->threads) = (int)n;
        } else if (!strcmp(opt, "--chunks")) {
            char end;
            if (sscanf(v, "%dx%dx%d%c", &o->chunk[0], &o->chunk[1], &o->chunk[2], &end) != 3 ||
                o->chunk[0] < 1 || o->chunk[1] < 1 || o->chunk[1] > SIDE || o->chunk[2] < 1 ||
                o->chunk[2] > SIDE)
                return b2cli_usage_error(CMD, "--chunks: bad chunk shape '%s' (want ZxYxX, Y and X "
                                         "at most %d)", v, SIDE);
        } else { /* --codec NAME[:CLEVEL] */
            char name[32];
            const char *colon = strchr(v, ':');
            snprintf(name, sizeof name, "%.*s", (int)(colon ? (size_t)(colon - v) : strlen(v)), v);
            o->codec = b2cli_codec_id(name);
            if (o->codec < 0 || o->codec > 5 ||
                (colon && b2cli_parse_int(colon + 1, 0, 9, 0, &n) < 0))
                return b2cli_usage_error(CMD, "--codec: bad value '%s' (NAME[:CLEVEL])", v);
            o->clevel = colon ? (int)n : o->codec == B2_CODEC_ZSTD ? 1 : 5;
        }
    }
    if (o->chunk[0] > o->mib)
        o->chunk[0] = o->mib;
    return 0;
}

static void tmp_path(char *path, size_t cap, const char *what)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(path, cap, "%s/b2bench-par-%ld-%s.h5", tmp && *tmp ? tmp : "/tmp", (long)getpid(), what);
}

/* The generated dataset: a file at path with /data (int32 ramp with noise). */
static int make_source(const popts *o, const char *path)
{
    hsize_t dims[3] = {(hsize_t)o->mib, SIDE, SIDE};
    hsize_t ch[3] = {(hsize_t)o->chunk[0], (hsize_t)o->chunk[1], (hsize_t)o->chunk[2]};
    size_t n = (size_t)o->mib * SIDE * SIDE;
    int32_t *r = malloc(n * sizeof *r);
    uint64_t s = 20240611;
    unsigned cd[7] = {0, 0, 0, 0, (unsigned)o->clevel, 1, (unsigned)o->codec};
    hid_t f = -1, sp = -1, dcpl = -1, d = -1;
    if (!r)
        return B2_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        r[i] = (int32_t)(i / 7) + (int32_t)(splitmix(&s) % 7) - 3;
    int ok = (f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
             (sp = H5Screate_simple(3, dims, NULL)) >= 0 &&
             (dcpl = H5Pcreate(H5P_DATASET_CREATE)) >= 0 && H5Pset_chunk(dcpl, 3, ch) >= 0 &&
             H5Pset_filter(dcpl, B2_H5_FILTER_ID, H5Z_FLAG_OPTIONAL, 7, cd) >= 0 &&
             (d = H5Dcreate2(f, "data", H5T_NATIVE_INT32, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT)) >= 0 &&
             H5Dwrite(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) >= 0;
    ok &= d < 0 || H5Dclose(d) >= 0;
    ok &= dcpl < 0 || H5Pclose(dcpl) >= 0;
    ok &= sp < 0 || H5Sclose(sp) >= 0;
    ok &= f < 0 || H5Fclose(f) >= 0;
    free(r);
    return ok ? B2_OK : B2_ERR_IO;
}

typedef struct src {
    hid_t f, d, type, space, dcpl;
    int rank;
    hsize_t dims[B2_H5_READ_MAXRANK], zero[B2_H5_READ_MAXRANK];
    size_t nbytes;
    uint8_t *ref, *buf;
} src;

/* One timed write of the whole dataset into a fresh file; checked once. */
static int time_write(const src *s, int box, int threads, int check, double *secs,
                      b2_h5_write_report *wr)
{
    char path[4096];
    hid_t f, d;
    int ok;
    tmp_path(path, sizeof path, "w");
    if ((f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        return b2cli_data_error(path, "cannot create"), B2_ERR_IO;
    if ((d = H5Dcreate2(f, "data", s->type, s->space, H5P_DEFAULT, s->dcpl, H5P_DEFAULT)) < 0) {
        H5Fclose(f);
        unlink(path);
        return b2cli_data_error(path, "cannot create the dataset"), B2_ERR_IO;
    }
    double t0 = b2cli_now();
    if (box) {
        b2_h5_write_options wo;
        memset(&wo, 0, sizeof wo);
        wo.nthreads = threads;
        ok = b2_h5_write_box(d, 0, s->zero, s->dims, s->ref, s->nbytes, &wo, wr) >= 0;
    } else {
        ok = H5Dwrite(d, s->type, H5S_ALL, H5S_ALL, H5P_DEFAULT, s->ref) >= 0;
    }
    ok &= H5Dclose(d) >= 0;
    ok &= H5Fflush(f, H5F_SCOPE_LOCAL) >= 0;
    *secs = b2cli_now() - t0;
    if (ok && check) {
        memset(s->buf, 0xa5, s->nbytes);
        ok = (d = H5Dopen2(f, "data", H5P_DEFAULT)) >= 0 &&
             H5Dread(d, s->type, H5S_ALL, H5S_ALL, H5P_DEFAULT, s->buf) >= 0 &&
             !memcmp(s->buf, s->ref, s->nbytes);
        if (d >= 0)
            H5Dclose(d);
    }
    H5Fclose(f);
    unlink(path);
    if (!ok)
        return b2cli_data_error("--hdf5-parallel", "%s failed or wrote other data",
                                box ? "b2_h5_write_box" : "H5Dwrite"), B2_ERR_IO;
    return B2_OK;
}

static double mbps(size_t n, double s) { return s > 0 ? (double)n / s / 1e6 : 0; }

/* The file and dataset to time: FILE.h5:/DATASET, or a generated file (its
 * path in gen, removed by the caller). 0 or an exit code (message printed). */
static int resolve_source(const popts *o, char *file, size_t cap, const char **dname, char *gen,
                          size_t gcap)
{
    int rc;
    if (o->spec) {
        if (b2cli_h5_split(o->spec, file, cap, dname) < 0)
            return b2cli_data_error(o->spec, "path too long"), B2CLI_EXIT_DATA;
        if (!*dname && strstr(o->spec, ":/"))
            return b2cli_data_error(o->spec, "no such file"), B2CLI_EXIT_DATA;
        if (!*dname)
            return b2cli_usage_error(CMD, "--hdf5-parallel: name the dataset: FILE.h5:/DATASET");
        return 0;
    }
    tmp_path(gen, gcap, "src");
    snprintf(file, cap, "%s", gen);
    if ((rc = make_source(o, gen)) < 0) {
        unlink(gen);
        gen[0] = '\0';
        return b2cli_data_error(file, "cannot write the generated dataset: %s", b2cli_err(rc)),
               B2CLI_EXIT_DATA;
    }
    return 0;
}

/* Open the dataset, check it is chunked, and read its bytes into s->ref (which
 * also warms the page cache); *cbytes = a chunk's bytes. B2_OK or -1 (message
 * printed). */
static int open_source(src *s, const char *file, const char *dname, size_t *cbytes)
{
    if ((s->f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
        return b2cli_data_error(file, "cannot open as HDF5"), -1;
    if ((s->d = H5Dopen2(s->f, dname, H5P_DEFAULT)) < 0)
        return b2cli_data_error(file, "no dataset '%s'", dname), -1;
    s->type = H5Dget_type(s->d);
    s->space = H5Dget_space(s->d);
    s->dcpl = H5Dget_create_plist(s->d);
    s->rank = s->space >= 0 ? H5Sget_simple_extent_ndims(s->space) : -1;
    if (s->type < 0 || s->dcpl < 0 || s->rank < 1 || s->rank > B2_H5_READ_MAXRANK ||
        H5Sget_simple_extent_dims(s->space, s->dims, NULL) < 0 || H5Pget_layout(s->dcpl) != H5D_CHUNKED)
        return b2cli_data_error(file, "%s: not a chunked dataset of rank 1..%d", dname,
                                B2_H5_READ_MAXRANK), -1;
    hsize_t cdims[B2_H5_READ_MAXRANK];
    H5Pget_chunk(s->dcpl, s->rank, cdims);
    s->nbytes = H5Tget_size(s->type);
    *cbytes = s->nbytes;
    for (int i = 0; i < s->rank; i++)
        s->nbytes *= s->dims[i], *cbytes *= cdims[i];
    if (s->nbytes == 0)
        return b2cli_data_error(file, "%s: empty dataset", dname), -1;
    if (!(s->ref = malloc(s->nbytes)) || !(s->buf = malloc(s->nbytes)))
        return b2cli_data_error(file, "out of memory"), -1;
    if (H5Dread(s->d, s->type, H5S_ALL, H5S_ALL, H5P_DEFAULT, s->ref) < 0)
        return b2cli_data_error(file, "%s: H5Dread failed", dname), -1;
    return B2_OK;
}

/* Release what open_source opened. */
static void close_source(src *s)
{
    free(s->ref);
    free(s->buf);
    if (s->dcpl >= 0)
        H5Pclose(s->dcpl);
    if (s->space >= 0)
        H5Sclose(s->space);
    if (s->type >= 0)
        H5Tclose(s->type);
    if (s->d >= 0)
        H5Dclose(s->d);
    if (s->f >= 0)
        H5Fclose(s->f);
}

/* o->reps rounds of every method, alternating, each checked: t[m][r] seconds.
 * rr, wr: the last parallel read's and write's reports. B2_OK or -1. */
static int time_rounds(const popts *o, src *s, b2_h5_reader *rd[2], const char *file, const char *dname,
                       double t[NMETH][MAXREPS], b2_h5_read_report *rr, b2_h5_write_report *wr)
{
    for (int r = 0; r < o->reps; r++)
        for (int m = 0; m < NMETH; m++) {
            int e = 0;
            if (m >= W_H5) {
                if (time_write(s, m == W_BOX, o->threads, r == 0, &t[m][r], wr) < 0)
                    return -1;
                continue;
            }
            memset(s->buf, 0xa5, s->nbytes); /* poison; also keeps page faults out */
            double t0 = b2cli_now();
            if (m == R_H5)
                e = H5Dread(s->d, s->type, H5S_ALL, H5S_ALL, H5P_DEFAULT, s->buf) < 0 ? B2_ERR_IO : 0;
            else
                e = b2_h5_reader_read(rd[m == R_RDN], 0, s->zero, s->dims, s->buf, s->nbytes, rr);
            t[m][r] = b2cli_now() - t0;
            if (e < 0 || memcmp(s->buf, s->ref, s->nbytes)) {
                b2cli_data_error(file, "%s: %s %s", dname, meth_name[m],
                                 e < 0 ? b2cli_err(e) : "read other data");
                return -1;
            }
        }
    return B2_OK;
}

/* The table (or JSON rows) of the medians med[] of every method. */
static void report(const popts *o, const src *s, size_t cbytes, const double med[NMETH],
                   const b2_h5_read_report *rr, const b2_h5_write_report *wr)
{
    const char *env = getenv("B2_H5_NTHREADS");
    int fthreads = env && atoi(env) > 0 ? atoi(env) : 1;
    const int mthreads[NMETH] = {fthreads, 1, o->threads, fthreads, o->threads};
    const char *rpath = rr->path == B2_H5_READ_DIRECT ? "direct" : rr->path == B2_H5_READ_H5DREAD ? "H5Dread"
                                                                                                 : "mixed";
    const char *wpath = wr->path == B2_H5_WRITE_DIRECT ? "direct" : wr->path == B2_H5_WRITE_H5DWRITE
                                                                        ? "H5Dwrite" : "mixed";
    if (!o->json) {
        char what[64];
        snprintf(what, sizeof what, "generated int32 ramp %d x %d x %d", o->mib, SIDE, SIDE);
        printf("HDF5 whole-dataset reads and writes, %s, %zu bytes, chunks of %zu bytes\n"
               "median of %d rounds, methods alternating; H5Dread/H5Dwrite use the filter's "
               "threads (B2_H5_NTHREADS=%d)\n", o->spec ? o->spec : what, s->nbytes, cbytes, o->reps,
               fthreads);
        printf("reader path: %s%s%s%s; writer path: %s%s%s%s\n\n", rpath, rr->reason[0] ? " (" : "",
               rr->reason, rr->reason[0] ? ")" : "", wpath, wr->reason[0] ? " (" : "", wr->reason,
               wr->reason[0] ? ")" : "");
        printf("%-6s %-16s %7s %10s %9s %7s\n", "op", "method", "threads", "median ms", "MB/s", "ratio");
    }
    for (int m = 0; m < NMETH; m++) {
        double base = med[m >= W_H5 ? W_H5 : R_H5], ratio = med[m] > 0 ? base / med[m] : 0;
        if (o->json) {
            b2cli_json j;
            b2cli_json_begin(&j, stdout);
            b2cli_json_str(&j, "op", meth_op[m]);
            b2cli_json_str(&j, "method", meth_name[m]);
            b2cli_json_int(&j, "threads", mthreads[m]);
            b2cli_json_int(&j, "nbytes", (int64_t)s->nbytes);
            b2cli_json_int(&j, "chunk_bytes", (int64_t)cbytes);
            b2cli_json_int(&j, "reps", o->reps);
            b2cli_json_num(&j, "median_s", med[m]);
            b2cli_json_num(&j, "mbps", mbps(s->nbytes, med[m]));
            b2cli_json_num(&j, "ratio", ratio);
            if (m == R_RDN)
                b2cli_json_str(&j, "path", rpath);
            if (m == W_BOX)
                b2cli_json_str(&j, "path", wpath);
            b2cli_json_end(&j);
        } else {
            printf("%-6s %-16s %7d %10.2f %9.0f %7.2f\n", meth_op[m], meth_name[m], mthreads[m],
                   med[m] * 1e3, mbps(s->nbytes, med[m]), ratio);
        }
    }
    if (!o->json)
        printf("\nMB/s = 10^6 bytes of raw data per second; ratio = the HDF5 call's median over "
               "this one (> 1: faster).\nwrite = H5Dwrite or b2_h5_write_box of the whole dataset "
               "+ H5Dclose + H5Fflush, into a fresh file.\n");
    fflush(stdout);
}

int b2bench_h5par(int argc, char **argv)
{
    popts o;
    int rc = parse_popts(argc, argv, &o);
    char file[4096], gen[4096] = "";
    const char *dname = "/data";
    src s;
    b2_h5_reader *rd[2] = {NULL, NULL};
    double t[NMETH][MAXREPS];
    double med[NMETH];
    b2_h5_read_report rr;
    b2_h5_write_report wr;
    size_t cbytes = 0;
    if (rc)
        return rc;
    memset(&s, 0, sizeof s);
    s.f = s.d = s.type = s.space = s.dcpl = -1;
    memset(&wr, 0, sizeof wr);
    memset(&rr, 0, sizeof rr);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (b2_h5_register() < 0)
        return b2cli_data_error("--hdf5-parallel", "cannot register the filter with HDF5"), B2CLI_EXIT_DATA;
    if ((rc = resolve_source(&o, file, sizeof file, &dname, gen, sizeof gen)) != 0)
        return rc;
    rc = B2CLI_EXIT_DATA;
    if (open_source(&s, file, dname, &cbytes) < 0)
        goto done;
    for (int k = 0; k < 2; k++) {
        int r = b2_h5_reader_open(s.d, &rd[k]);
        if (r >= 0)
            r = b2_h5_reader_set_nthreads(rd[k], k ? o.threads : 1);
        if (r < 0) {
            b2cli_data_error(file, "%s: cannot open a reader: %s", dname, b2cli_err(r));
            goto done;
        }
    }
    if (time_rounds(&o, &s, rd, file, dname, t, &rr, &wr) < 0)
        goto done;
    for (int m = 0; m < NMETH; m++)
        med[m] = b2cli_median(t[m], o.reps);
    report(&o, &s, cbytes, med, &rr, &wr);
    rc = B2CLI_OK;
done:
    b2_h5_reader_free(rd[0]);
    b2_h5_reader_free(rd[1]);
    close_source(&s);
    if (gen[0])
        unlink(gen);
    return rc;
}

#endif
