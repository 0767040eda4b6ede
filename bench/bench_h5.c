/* SPDX-License-Identifier: BSD-3-Clause */
/* b2bench --hdf5: our HDF5 filter 32026 against Blosc1's 32001 (when its plugin
 * is installed) and HDF5's gzip, measured through the HDF5 C API the way users
 * meet them: whole-file writes (create + H5Dwrite + close) and whole-dataset
 * reads into a preallocated buffer, checked identical.
 *
 * Two deterministic datasets of N x 512 x 512 items (N MiB each): a float32
 * smooth field with noise (sigma 0.02) and an int32 ramp with noise in [-3, 3].
 *
 * Each (dataset, chunk shape, thread count) runs in a forked child process that
 * sets B2_H5_NTHREADS and BLOSC_NTHREADS before its first HDF5 call: both
 * plugins read them on every call today, but a plugin that cached them at load
 * time would otherwise silently run every configuration with the first count.
 * The parent never calls HDF5 itself. Inside a child the filters alternate round
 * by round (A B C A B C ...) so drift hits all equally; medians are reported.
 * gzip is single-threaded and codec-independent: it is measured once per dataset
 * and chunk shape (in the first thread count's child). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "json.h"

#define CMD "b2bench"

#ifndef B2CLI_HAVE_HDF5

int b2bench_h5(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "%s: --hdf5: this b2bench was built without HDF5 support\n", CMD);
    return B2CLI_EXIT_DATA;
}

#else
#include <errno.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define ID_B2 32026
#define ID_BLOSC1 32001
#define GZIP_LEVEL 4 /* h5py's default level for compression="gzip" */
#define MAXV 8
#define SIDE 512 /* the datasets are N x SIDE x SIDE */

/* Where distributions put HDF5 plugins (Debian's package puts Blosc1's in the
 * first two); appended to the search path, since HDF5 ignores its default
 * directory whenever HDF5_PLUGIN_PATH is set. */
static const char *const system_plugin_dirs[] = {
    "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins",
    "/usr/lib/aarch64-linux-gnu/hdf5/serial/plugins",
    "/usr/local/hdf5/lib/plugin",
};

enum { F_B2, F_BLOSC1, F_GZIP };
static const char *const filter_names[] = {"blosc2", "blosc1", "gzip"};

typedef struct filt {
    int kind, codec, clevel; /* codec: libb2 id, equal to Blosc1's compcode */
} filt;

typedef struct outcome {
    double write_s, read_s; /* medians */
    int64_t stored;         /* bytes in the file for the dataset */
} outcome;

typedef struct opts {
    int mib, reps, json, blosc1;
    int nchunks, chunk[MAXV][3];
    int nthreads, threads[MAXV];
    int ncodecs, codec[MAXV], clevel[MAXV];
    char plugin_dir[4096]; /* ours; "" = rely on HDF5_PLUGIN_PATH */
} opts;

typedef struct dataset {
    const char *name;
    int is_float;
    void *buf;
} dataset;

/* ---- deterministic data (the same bytes on every run and machine) ---- */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s) { return (double)(splitmix(s) >> 11) * 0x1.0p-53; }

static void make_data(int n, float *f, int32_t *r)
{
    uint64_t s = 20240611;
    double cy[SIDE], sx[SIDE];
    for (int i = 0; i < SIDE; i++)
        cy[i] = cos(4.0 * i / (SIDE - 1));
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < SIDE; i++)
            sx[i] = sin(6.0 * i / (SIDE - 1) + k / 20.0);
        for (int y = 0; y < SIDE; y++)
            for (int x = 0; x < SIDE; x++) {
                /* sum of 4 uniforms: mean 2, variance 1/3, so * sqrt(3) gives sigma 1 */
                double g = (uniform(&s) + uniform(&s) + uniform(&s) + uniform(&s) - 2.0) * 1.7320508;
                f[((size_t)k * SIDE + y) * SIDE + x] = (float)(sx[x] * cy[y] + 0.02 * g);
            }
    }
    for (size_t i = 0; i < (size_t)n * SIDE * SIDE; i++)
        r[i] = (int32_t)(i / 7) + (int32_t)(splitmix(&s) % 7) - 3;
}

/* ---- HDF5 (children only) ---- */

/* Put our plugin first in the search path (so a 32026 elsewhere does not shadow
 * it) and the system plugin directories last (for Blosc1). */
static void setup_plugin_path(const opts *o)
{
    struct stat st;
    if (o->plugin_dir[0])
        H5PLprepend(o->plugin_dir);
    for (size_t i = 0; i < sizeof system_plugin_dirs / sizeof *system_plugin_dirs; i++)
        if (stat(system_plugin_dirs[i], &st) == 0 && S_ISDIR(st.st_mode))
            H5PLappend(system_plugin_dirs[i]);
}

static int set_filter(hid_t dcpl, const filt *f, size_t chunkbytes)
{
    if (f->kind == F_GZIP)
        return H5Pset_deflate(dcpl, (unsigned)f->clevel);
    /* 32026: {0, blocksize 0 = auto, 0, 0, clevel, filter 1 = shuffle, codec};
     * 32001: {2, 2, typesize 4, chunk bytes, clevel, shuffle, compcode}.
     * OPTIONAL as h5py and PyTables set them; a chunk stored raw shows as ratio 1. */
    unsigned b2cd[7] = {0, 0, 0, 0, (unsigned)f->clevel, 1, (unsigned)f->codec};
    unsigned b1cd[7] = {2, 2, 4, (unsigned)chunkbytes, (unsigned)f->clevel, 1, (unsigned)f->codec};
    return f->kind == F_B2 ? H5Pset_filter(dcpl, ID_B2, H5Z_FLAG_OPTIONAL, 7, b2cd)
                           : H5Pset_filter(dcpl, ID_BLOSC1, H5Z_FLAG_OPTIONAL, 7, b1cd);
}

/* One timed write then one timed read of the whole dataset. Returns 0 or -1. */
static int round_trip(const char *path, const dataset *d, const hsize_t dims[3],
                      const hsize_t chunk[3], const filt *f, void *back, size_t nbytes,
                      double *ws, double *rs, int64_t *stored)
{
    hid_t type = d->is_float ? H5T_NATIVE_FLOAT : H5T_NATIVE_INT32;
    hid_t file = -1, space = -1, dcpl = -1, dset = -1;
    double t0 = b2cli_now();
    int ok = (file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
             (space = H5Screate_simple(3, dims, NULL)) >= 0 &&
             (dcpl = H5Pcreate(H5P_DATASET_CREATE)) >= 0 && H5Pset_chunk(dcpl, 3, chunk) >= 0 &&
             set_filter(dcpl, f, (size_t)(chunk[0] * chunk[1] * chunk[2] * 4)) >= 0 &&
             (dset = H5Dcreate2(file, "data", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)) >= 0 &&
             H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, d->buf) >= 0;
    ok &= dset < 0 || H5Dclose(dset) >= 0; /* every handle is closed, whatever failed */
    ok &= dcpl < 0 || H5Pclose(dcpl) >= 0;
    ok &= space < 0 || H5Sclose(space) >= 0;
    ok &= file < 0 || H5Fclose(file) >= 0;
    *ws = b2cli_now() - t0;
    if (!ok) {
        fprintf(stderr, "%s: %s: writing %s failed\n", CMD, d->name, filter_names[f->kind]);
        unlink(path);
        return -1;
    }
    /* Poison the buffer so a read that delivers nothing cannot pass the check;
     * this also keeps page faults out of the timed read. */
    memset(back, 0xa5, nbytes);
    file = dset = -1;
    t0 = b2cli_now();
    ok = (file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) >= 0 &&
         (dset = H5Dopen2(file, "data", H5P_DEFAULT)) >= 0 &&
         H5Dread(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0;
    *stored = dset >= 0 ? (int64_t)H5Dget_storage_size(dset) : 0;
    ok &= dset < 0 || H5Dclose(dset) >= 0;
    ok &= file < 0 || H5Fclose(file) >= 0;
    *rs = b2cli_now() - t0;
    unlink(path);
    if (!ok || memcmp(back, d->buf, nbytes)) {
        fprintf(stderr, "%s: %s: %s\n", CMD, d->name,
                ok ? "data read back differ" : "reading failed");
        return -1;
    }
    return 0;
}

/* The temporary file of the child process pid. */
static void tmp_path(char *path, size_t cap, pid_t pid)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(path, cap, "%s/b2bench-%ld.h5", tmp && *tmp ? tmp : "/tmp", (long)pid);
}

/* The child's work: reps rounds over the filters, medians into out[]. */
static int run_cell(const opts *o, const dataset *d, const int chunk[3], const filt *fs, int nf,
                    outcome *out)
{
    hsize_t dims[3] = {(hsize_t)o->mib, SIDE, SIDE};
    hsize_t ch[3] = {(hsize_t)chunk[0], (hsize_t)chunk[1], (hsize_t)chunk[2]};
    size_t nbytes = (size_t)o->mib << 20;
    char path[4200];
    tmp_path(path, sizeof path, getpid());
    void *back = malloc(nbytes);
    double *t = malloc(sizeof(double) * 2 * (size_t)(nf * o->reps));
    int rc = back && t ? 0 : -1;
    setup_plugin_path(o);
    /* t[(2i) reps + r]: write time of filter i in round r; t[(2i+1) reps + r]: read time. */
    for (int r = 0; r < o->reps && rc == 0; r++)
        for (int i = 0; i < nf && rc == 0; i++)
            rc = round_trip(path, d, dims, ch, &fs[i], back, nbytes, &t[2 * i * o->reps + r],
                            &t[(2 * i + 1) * o->reps + r], &out[i].stored);
    for (int i = 0; i < nf && rc == 0; i++) {
        out[i].write_s = b2cli_median(t + 2 * i * o->reps, o->reps);
        out[i].read_s = b2cli_median(t + (2 * i + 1) * o->reps, o->reps);
    }
    free(back);
    free(t);
    /* No H5close(): it dlcloses the plugins, and c-blosc1 (under Blosc1's) keeps
     * worker threads that then run unmapped code and crash. The child _exits. */
    return rc;
}

/* Run run_cell in a child process with the thread count in its environment.
 * Returns 0 or -1 (the child printed why). */
static int run_child(const opts *o, const dataset *d, const int chunk[3], int threads,
                     const filt *fs, int nf, outcome *out)
{
    int fd[2];
    fflush(stdout);
    fflush(stderr);
    if (pipe(fd) < 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        char t[16];
        snprintf(t, sizeof t, "%d", threads);
        setenv("B2_H5_NTHREADS", t, 1);
        setenv("BLOSC_NTHREADS", t, 1);
        close(fd[0]);
        int rc = run_cell(o, d, chunk, fs, nf, out);
        size_t len = sizeof *out * (size_t)nf;
        _exit(rc == 0 && write(fd[1], out, len) == (ssize_t)len ? 0 : 1);
    }
    /* The child writes its results at once, within POSIX's minimum PIPE_BUF, so
     * they arrive whole. */
    _Static_assert(sizeof(outcome) * (2 * MAXV + 1) <= 512, "results fit in PIPE_BUF");
    close(fd[1]);
    size_t len = sizeof *out * (size_t)nf;
    ssize_t got;
    pid_t w;
    int status;
    char path[4200];
    while ((got = read(fd[0], out, len)) < 0 && errno == EINTR)
        ;
    close(fd[0]);
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    if (w < 0)
        return -1;
    if (WIFSIGNALED(status)) { /* a crash in a plugin, say: its file stayed behind */
        fprintf(stderr, "%s: --hdf5: the measuring process died of signal %d (%s)\n", CMD,
                WTERMSIG(status), strsignal(WTERMSIG(status)));
        tmp_path(path, sizeof path, pid);
        unlink(path);
    }
    return got == (ssize_t)len && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Which filters HDF5 can load with our search path: bit 1 = 32026, 2 = 32001. */
static int probe_filters(const opts *o)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* "not found" is an answer here */
        setup_plugin_path(o);
        _exit((H5Zfilter_avail(ID_B2) > 0 ? 1 : 0) | (H5Zfilter_avail(ID_BLOSC1) > 0 ? 2 : 0));
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
        return 0;
    return WEXITSTATUS(status);
}

/* ---- command line and report ---- */

/* Our plugin: --plugin-dir, else ../h5plugin next to this program's directory
 * (the build tree), else "" (HDF5_PLUGIN_PATH, which HDF5 searches anyway). */
static void default_plugin_dir(char *dir, size_t cap)
{
    char *exe = realpath("/proc/self/exe", NULL), *real = NULL, cand[4200];
    dir[0] = '\0';
    if (exe && strrchr(exe, '/')) {
        *strrchr(exe, '/') = '\0';
        snprintf(cand, sizeof cand, "%s/../h5plugin/libH5Zb2.so", exe);
        if ((real = realpath(cand, NULL)) && access(real, R_OK) == 0 && strlen(real) < cap) {
            strcpy(dir, real);
            *strrchr(dir, '/') = '\0'; /* the directory, without "bench/.." */
        }
    }
    free(exe);
    free(real);
}

static int parse_opts(int argc, char **argv, opts *o)
{
    *o = (opts){.mib = 64, .reps = 3, .nchunks = 3,
                .chunk = {{1, 64, 512}, {1, 512, 512}, {8, 512, 512}},
                .nthreads = 2, .threads = {1, 2},
                .ncodecs = 2, .codec = {B2_CODEC_LZ4, B2_CODEC_ZSTD}, .clevel = {5, 1}};
    int plugin_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        char buf[256], *tok, *save;
        int64_t n;
        if (!strcmp(a, "--hdf5"))
            continue;
        if (!strcmp(a, "--json")) {
            o->json = 1;
            continue;
        }
        if (!b2cli_opt_is(a, "--mib") && !b2cli_opt_is(a, "--reps") && !b2cli_opt_is(a, "--chunks") &&
            !b2cli_opt_is(a, "--threads") && !b2cli_opt_is(a, "--codec") &&
            !b2cli_opt_is(a, "--plugin-dir"))
            return b2cli_usage_error(CMD, "--hdf5: unknown option or argument '%s'", a);
        char opt[16];
        snprintf(opt, sizeof opt, "%.*s", (int)strcspn(a, "="), a);
        if (!(v = b2cli_opt_value(CMD, argc, argv, &i, opt)))
            return B2CLI_EXIT_USAGE;
        if (!strcmp(opt, "--mib") || !strcmp(opt, "--reps")) {
            if (b2cli_parse_int(v, 1, !strcmp(opt, "--mib") ? 4096 : 1000, 0, &n) < 0)
                return b2cli_usage_error(CMD, "%s: bad value '%s'", opt, v);
            *(!strcmp(opt, "--mib") ? &o->mib : &o->reps) = (int)n;
            continue;
        }
        if (!strcmp(opt, "--plugin-dir")) {
            if (strlen(v) >= sizeof o->plugin_dir)
                return b2cli_usage_error(CMD, "--plugin-dir: path too long");
            strcpy(o->plugin_dir, v);
            plugin_given = 1;
            continue;
        }
        if (strlen(v) >= sizeof buf)
            return b2cli_usage_error(CMD, "%s: value too long", opt);
        strcpy(buf, v);
        int cnt = 0;
        for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), cnt++) {
            if (cnt == MAXV)
                return b2cli_usage_error(CMD, "%s: at most %d values", opt, MAXV);
            if (!strcmp(opt, "--chunks")) { /* ZxYxX */
                int *c = o->chunk[cnt];
                char end;
                if (sscanf(tok, "%dx%dx%d%c", &c[0], &c[1], &c[2], &end) != 3 || c[0] < 1 ||
                    c[1] < 1 || c[2] < 1 || c[1] > SIDE || c[2] > SIDE ||
                    (int64_t)c[0] * c[1] * c[2] * 4 > ((int64_t)1 << 31) - 64)
                    return b2cli_usage_error(CMD, "--chunks: bad chunk shape '%s' (want ZxYxX, "
                                             "Y and X at most %d)", tok, SIDE);
            } else if (!strcmp(opt, "--threads")) {
                if (b2cli_parse_int(tok, 1, 256, 0, &n) < 0)
                    return b2cli_usage_error(CMD, "--threads: bad value '%s'", tok);
                o->threads[cnt] = (int)n;
            } else { /* --codec NAME[:CLEVEL]; default clevel 1 for zstd, else 5 */
                char *colon = strchr(tok, ':');
                if (colon)
                    *colon = '\0';
                int c = b2_codec_from_name(tok);
                n = c == B2_CODEC_ZSTD ? 1 : 5;
                if (c < 0 || (colon && b2cli_parse_int(colon + 1, 0, 9, 0, &n) < 0))
                    return b2cli_usage_error(CMD, "--codec: bad value '%s' (NAME[:CLEVEL])", tok);
                o->codec[cnt] = c;
                o->clevel[cnt] = (int)n;
            }
        }
        if (!cnt)
            return b2cli_usage_error(CMD, "%s: empty list", opt);
        *(!strcmp(opt, "--chunks") ? &o->nchunks : !strcmp(opt, "--threads") ? &o->nthreads
                                                                              : &o->ncodecs) = cnt;
    }
    if (!plugin_given)
        default_plugin_dir(o->plugin_dir, sizeof o->plugin_dir);
    for (int c = 0; c < o->nchunks; c++) /* HDF5 wants chunks no larger than the dataset */
        if (o->chunk[c][0] > o->mib)
            o->chunk[c][0] = o->mib;
    return 0;
}

static double mbps(size_t nbytes, double s) { return s > 0 ? (double)nbytes / s / 1e6 : 0; }

static void json_row(const opts *o, const dataset *d, const int *ch, const filt *f, int threads,
                     const outcome *r, const outcome *vs)
{
    size_t n = (size_t)o->mib << 20;
    char shape[64], chunk[64];
    snprintf(shape, sizeof shape, "%dx%dx%d", o->mib, SIDE, SIDE);
    snprintf(chunk, sizeof chunk, "%dx%dx%d", ch[0], ch[1], ch[2]);
    b2cli_json j;
    b2cli_json_begin(&j, stdout);
    b2cli_json_str(&j, "data", d->name);
    b2cli_json_str(&j, "shape", shape);
    b2cli_json_str(&j, "chunk", chunk);
    b2cli_json_int(&j, "chunk_bytes", (int64_t)ch[0] * ch[1] * ch[2] * 4);
    b2cli_json_str(&j, "filter", filter_names[f->kind]);
    b2cli_json_int(&j, "filter_id", f->kind == F_B2 ? ID_B2 : f->kind == F_BLOSC1 ? ID_BLOSC1 : 1);
    b2cli_json_str(&j, "codec", f->kind == F_GZIP ? "deflate" : b2_codec_name(f->codec));
    b2cli_json_int(&j, "clevel", f->clevel);
    b2cli_json_bool(&j, "shuffle", f->kind != F_GZIP);
    b2cli_json_int(&j, "threads", f->kind == F_GZIP ? 1 : threads);
    b2cli_json_int(&j, "reps", o->reps);
    b2cli_json_int(&j, "nbytes", (int64_t)n);
    b2cli_json_int(&j, "stored_bytes", r->stored);
    b2cli_json_num(&j, "ratio", r->stored > 0 ? (double)n / (double)r->stored : 0);
    b2cli_json_num(&j, "write_mbps", mbps(n, r->write_s));
    b2cli_json_num(&j, "read_mbps", mbps(n, r->read_s));
    if (vs) { /* ours over Blosc1's, > 1 = ours faster */
        b2cli_json_num(&j, "write_vs_blosc1", vs->write_s / r->write_s);
        b2cli_json_num(&j, "read_vs_blosc1", vs->read_s / r->read_s);
    }
    b2cli_json_end(&j);
}

/* write MB/s, read MB/s, ratio of one filter, or blanks. */
static void table_cols(size_t n, const outcome *r)
{
    if (r)
        printf("  %7.0f %7.0f %6.2f", mbps(n, r->write_s), mbps(n, r->read_s),
               r->stored > 0 ? (double)n / (double)r->stored : 0.0);
    else
        printf("  %7s %7s %6s", "", "", "");
}

static void print_header(const opts *o)
{
    const char *tmp = getenv("TMPDIR");
    printf("HDF5 filters, %d x %d x %d datasets (%d MiB each), median of %d rounds; files in %s\n"
           "blosc2 = ours (32026, plugin dir %s); blosc1 = 32001 (%s); gzip = deflate %d\n"
           "each filter: write MB/s, read MB/s, ratio; b2/b1 = ours over Blosc1's speed\n\n",
           o->mib, SIDE, SIDE, o->mib, o->reps, tmp && *tmp ? tmp : "/tmp",
           o->plugin_dir[0] ? o->plugin_dir : "from HDF5_PLUGIN_PATH",
           o->blosc1 ? "plugin found" : "plugin not found, skipped", GZIP_LEVEL);
    printf("%35s  %-22s  %-22s", "", "------- blosc2 -------",
           o->blosc1 ? "------- blosc1 -------" : "-------- gzip --------");
    printf(o->blosc1 ? "  %-22s  %s\n" : "\n", "-------- gzip --------", "-- b2/b1 --");
    printf("%-10s %-10s %-9s %3s", "data", "chunk", "codec", "thr");
    for (int k = 0; k < 2 + o->blosc1; k++)
        printf("  %7s %7s %6s", "write", "read", "ratio");
    printf(o->blosc1 ? "  %5s %5s\n" : "\n", "write", "read");
}

/* Filters measured by the child for thread index t, in this order: per codec
 * ours then Blosc1's, then gzip in the first child only. Returns the count. */
static int cell_filters(const opts *o, int t, filt *fs)
{
    int nf = 0;
    for (int k = 0; k < o->ncodecs; k++) {
        fs[nf++] = (filt){F_B2, o->codec[k], o->clevel[k]};
        if (o->blosc1)
            fs[nf++] = (filt){F_BLOSC1, o->codec[k], o->clevel[k]};
    }
    if (t == 0)
        fs[nf++] = (filt){F_GZIP, -1, GZIP_LEVEL};
    return nf;
}

/* Rows of one (dataset, chunk): codec-major, then threads; res[t] is laid out
 * as cell_filters says. */
static void report(const opts *o, const dataset *d, const int *ch, outcome res[][2 * MAXV + 1])
{
    size_t n = (size_t)o->mib << 20;
    const int per = o->blosc1 ? 2 : 1, gz = o->ncodecs * per;
    const filt fgz = {F_GZIP, -1, GZIP_LEVEL};
    for (int k = 0; k < o->ncodecs; k++)
        for (int t = 0; t < o->nthreads; t++) {
            const outcome *ours = &res[t][k * per], *b1 = o->blosc1 ? &res[t][k * per + 1] : NULL;
            const filt fo = {F_B2, o->codec[k], o->clevel[k]}, f1 = {F_BLOSC1, o->codec[k], o->clevel[k]};
            int first = k == 0 && t == 0;
            if (o->json) {
                json_row(o, d, ch, &fo, o->threads[t], ours, b1);
                if (b1)
                    json_row(o, d, ch, &f1, o->threads[t], b1, NULL);
                if (first)
                    json_row(o, d, ch, &fgz, 1, &res[0][gz], NULL);
                continue;
            }
            char chs[40], cod[24];
            snprintf(chs, sizeof chs, "%dx%dx%d", ch[0], ch[1], ch[2]);
            snprintf(cod, sizeof cod, "%s %d", b2_codec_name(o->codec[k]), o->clevel[k]);
            printf("%-10s %-10s %-9s %3d", d->name, chs, cod, o->threads[t]);
            table_cols(n, ours);
            if (b1)
                table_cols(n, b1);
            if (first || b1)
                table_cols(n, first ? &res[0][gz] : NULL); /* gzip: measured once */
            if (b1)
                printf("  %5.2f %5.2f", b1->write_s / ours->write_s, b1->read_s / ours->read_s);
            printf("\n");
        }
    fflush(stdout);
}

/* Called by b2bench when --hdf5 is among its arguments (help handled there). */
int b2bench_h5(int argc, char **argv)
{
    opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc)
        return rc;
    int found = probe_filters(&o);
    if (!(found & 1)) {
        const char *env = getenv("HDF5_PLUGIN_PATH");
        fprintf(stderr, "%s: --hdf5: HDF5 cannot load filter %d (libH5Zb2.so) from %s%s"
                "HDF5_PLUGIN_PATH=%s; give --plugin-dir DIR\n", CMD, ID_B2, o.plugin_dir,
                o.plugin_dir[0] ? " or " : "", env ? env : "(unset)");
        return B2CLI_EXIT_DATA;
    }
    o.blosc1 = (found & 2) != 0;
    size_t n = (size_t)o.mib << 20;
    dataset ds[2] = {{"f32_smooth", 1, malloc(n)}, {"i32_ramp", 0, malloc(n)}};
    filt fs[2 * MAXV + 1];
    outcome res[MAXV][2 * MAXV + 1];
    if (!ds[0].buf || !ds[1].buf) {
        free(ds[0].buf);
        free(ds[1].buf);
        return b2cli_data_error("--hdf5", "out of memory");
    }
    make_data(o.mib, ds[0].buf, ds[1].buf);
    if (!o.json)
        print_header(&o);
    for (int d = 0; d < 2 && rc == B2CLI_OK; d++)
        for (int c = 0; c < o.nchunks && rc == B2CLI_OK; c++) {
            const int *ch = o.chunk[c];
            for (int t = 0; t < o.nthreads && rc == B2CLI_OK; t++)
                if (run_child(&o, &ds[d], ch, o.threads[t], fs, cell_filters(&o, t, fs), res[t]) < 0)
                    rc = b2cli_data_error("--hdf5", "%s, chunks %dx%dx%d, %d threads: failed",
                                          ds[d].name, ch[0], ch[1], ch[2], o.threads[t]);
            if (rc == B2CLI_OK)
                report(&o, &ds[d], ch, res);
        }
    if (!o.json && rc == B2CLI_OK)
        printf("\nMB/s = 10^6 bytes of raw data per second: write = create file + dataset + "
               "H5Dwrite + close,\nread = open + H5Dread + close. gzip is single-threaded and "
               "codec-independent: one row per data and chunk.\n");
    free(ds[0].buf);
    free(ds[1].buf);
    return rc;
}

#endif
