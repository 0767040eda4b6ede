/* SPDX-License-Identifier: BSD-3-Clause */
/* `b2 concat A B --axis N -o OUT` and `b2 rechunk IN --chunks C.. -o OUT`: new
 * b2nd arrays from others, written under a temporary name and renamed into
 * place when complete. concat copies compressed chunks when the grids line
 * up (b2_nd_concatenate); rechunk copies chunk by chunk of the result
 * (b2_nd_copy), with a progress bar on large inputs. */
#include <stdlib.h>
#include <string.h>

#include "b2cli.h"
#include "obj.h"
#include "progress.h"
#include "b2_nd_experimental.h" /* b2_nd_copy_with_progress */

static const char concat_help[] =
    "usage: b2 concat A.b2nd B.b2nd --axis N -o OUT.b2nd\n"
    "Write OUT, the b2nd array A with B joined along axis N (NumPy's concatenate):\n"
    "the arrays need the same number of dimensions and item size, and equal extents\n"
    "off the axis. OUT has A's chunk and block shapes, compression parameters,\n"
    "metalayers and vlmetalayers. When A ends on a chunk boundary of the axis and B\n"
    "has A's chunk and block shapes, every chunk is copied compressed, without\n"
    "decoding; otherwise B's part is written chunk by chunk.\n"
    "  --axis N, -a N   the axis (default 0; negative counts from the end)\n"
    "  -o OUT           the output file (required; replaced atomically)\n"
    "Exit status: 0 success, 1 unreadable input or a failed write, 2 bad arguments.\n";

static const char rechunk_help[] =
    "usage: b2 rechunk IN.b2nd --chunks C0,C1,.. [--blocks B0,B1,..] -o OUT.b2nd\n"
    "Write OUT, the b2nd array IN with new chunk (and block) shapes, one chunk of OUT\n"
    "at a time: memory stays near one chunk of OUT plus the blocks of IN it needs.\n"
    "Without --blocks each block shape follows the default rule for the new chunks.\n"
    "Same shapes as IN: the compressed chunks are copied as they are. A progress bar\n"
    "is shown on a terminal for inputs of 100 MB or more (B2_PROGRESS_MIN_BYTES).\n"
    "  --chunks LIST    the new chunk shape, one extent per dimension (required)\n"
    "  --blocks LIST    the new block shape (default: the default rule)\n"
    "  --threads N      decompression and compression threads (default 1)\n"
    "  --report         say on standard error how long it took and the peak memory\n"
    "                   (VmHWM) before and after the copy\n"
    "  -o OUT           the output file (required; replaced atomically)\n"
    "Exit status: 0 success, 1 unreadable input or a failed write, 2 bad arguments.\n";

/* This process's peak resident memory in KiB (VmHWM), -1 when unknown. */
static long peak_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6))
            kib = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kib;
}

/* Open path as a b2nd array (message printed on failure). */
static int open_array(const char *cmd, const char *path, b2cli_obj *o)
{
    if (b2cli_obj_open(o, path) < 0)
        return B2CLI_EXIT_DATA;
    if (!o->arr) {
        b2cli_data_error(path, "not a b2nd array (b2 %s joins and rechunks b2nd arrays)", cmd);
        b2cli_obj_close(o);
        return B2CLI_EXIT_DATA;
    }
    return 0;
}

/* Finish OUT: rename the completed temporary file into place, or remove it. */
static int finish(const char *tmp, const char *out, int rc)
{
    if (rc < 0) {
        b2cli_temp_remove(tmp);
        return B2CLI_EXIT_DATA;
    }
    return b2cli_temp_commit(tmp, out) < 0 ? B2CLI_EXIT_DATA : B2CLI_OK;
}

int b2cli_cmd_concat(int argc, char **argv)
{
    const char *pos[2] = {NULL, NULL}, *out = NULL;
    int npos = 0;
    int64_t axis = 0;
    for (int i = 1; i < argc; i++)
        if (b2cli_is_help(argv[i])) {
            fputs(concat_help, stdout);
            return B2CLI_OK;
        }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (b2cli_opt_is(a, "-o") || b2cli_opt_is(a, "--output")) {
            if (!(out = b2cli_opt_value("concat", argc, argv, &i, "-o")))
                return B2CLI_EXIT_USAGE;
        } else if (b2cli_opt_is(a, "--axis") || b2cli_opt_is(a, "-a")) {
            if (!(v = b2cli_opt_value("concat", argc, argv, &i, "--axis")))
                return B2CLI_EXIT_USAGE;
            if (b2cli_parse_int(v, -B2_ND_MAX_DIM, B2_ND_MAX_DIM - 1, 0, &axis) < 0)
                return b2cli_usage_error("concat", "--axis wants a dimension number, not '%s'", v);
        } else if (a[0] == '-' && a[1]) {
            return b2cli_usage_error("concat", "unknown option '%s'", a);
        } else if (npos == 2) {
            return b2cli_usage_error("concat", "too many arguments");
        } else {
            pos[npos++] = a;
        }
    }
    if (npos < 2)
        return b2cli_usage_error("concat", "missing %s", npos ? "second array" : "input arrays");
    if (!out)
        return b2cli_usage_error("concat", "missing -o OUT");
    b2cli_obj a, b;
    int rc = open_array("concat", pos[0], &a);
    if (rc)
        return rc;
    if ((rc = open_array("concat", pos[1], &b))) {
        b2cli_obj_close(&a);
        return rc;
    }
    int nd = b2_nd_ndim(a.arr);
    if (axis < -nd || axis >= nd) {
        b2cli_obj_close(&a);
        b2cli_obj_close(&b);
        return b2cli_usage_error("concat", "--axis %lld: %s has %d dimension%s", (long long)axis,
                                 pos[0], nd, nd == 1 ? "" : "s");
    }
    char *tmp = b2cli_temp_name(out);
    b2_nd_array *r = NULL;
    b2_nd_storage st = {B2_STORAGE_FILE, tmp};
    rc = tmp ? b2_nd_concatenate(a.arr, b.arr, (int)(axis < 0 ? axis + nd : axis), &st, &r)
             : B2_ERR_NOMEM;
    if (rc < 0)
        b2cli_data_error(out, "cannot join %s and %s: %s", pos[0], pos[1],
                         tmp ? b2_nd_last_error(a.arr) : "out of memory");
    b2_nd_free(r);
    b2cli_obj_close(&a);
    b2cli_obj_close(&b);
    rc = tmp ? finish(tmp, out, rc) : B2CLI_EXIT_DATA;
    free(tmp);
    return rc;
}

/* Chunks written to the bar's bytes; in double, as done * bytes can pass
 * INT64_MAX on a huge array, and exact at the end (or when total is 0). */
static int show_progress(void *ud, int64_t done, int64_t total)
{
    b2cli_progress *p = ud;
    int64_t bytes = done >= total ? p->total
                                  : (int64_t)((double)p->total * (double)done / (double)total);
    b2cli_progress_add(p, bytes - p->done);
    return B2_OK;
}

int b2cli_cmd_rechunk(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    int64_t chunks[B2_ND_MAX_DIM], blocks[B2_ND_MAX_DIM], nthreads = 1;
    int nchunks = -1, nblocks = -1, report = 0, rc;
    for (int i = 1; i < argc; i++)
        if (b2cli_is_help(argv[i])) {
            fputs(rechunk_help, stdout);
            return B2CLI_OK;
        }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (b2cli_opt_is(a, "-o") || b2cli_opt_is(a, "--output")) {
            if (!(out = b2cli_opt_value("rechunk", argc, argv, &i, "-o")))
                return B2CLI_EXIT_USAGE;
        } else if (b2cli_opt_is(a, "--chunks") || b2cli_opt_is(a, "--blocks")) {
            int is_chunks = b2cli_opt_is(a, "--chunks");
            const char *opt = is_chunks ? "--chunks" : "--blocks";
            if (!(v = b2cli_opt_value("rechunk", argc, argv, &i, opt)))
                return B2CLI_EXIT_USAGE;
            if ((rc = b2cli_parse_dims("rechunk", opt, v, 1, INT32_MAX, is_chunks ? chunks : blocks,
                                       is_chunks ? &nchunks : &nblocks)) != 0)
                return rc;
        } else if (b2cli_opt_is(a, "--report")) {
            report = 1;
        } else if (b2cli_opt_is(a, "--threads") || b2cli_opt_is(a, "-t")) {
            if (!(v = b2cli_opt_value("rechunk", argc, argv, &i, "--threads")))
                return B2CLI_EXIT_USAGE;
            if (b2cli_parse_int(v, 1, 256, 0, &nthreads) < 0)
                return b2cli_usage_error("rechunk", "--threads wants a number 1..256, not '%s'", v);
        } else if (a[0] == '-' && a[1]) {
            return b2cli_usage_error("rechunk", "unknown option '%s'", a);
        } else if (in) {
            return b2cli_usage_error("rechunk", "too many arguments");
        } else {
            in = a;
        }
    }
    if (!in)
        return b2cli_usage_error("rechunk", "missing input array");
    if (!out)
        return b2cli_usage_error("rechunk", "missing -o OUT");
    if (nchunks < 0)
        return b2cli_usage_error("rechunk", "missing --chunks");
    b2cli_obj o;
    if ((rc = open_array("rechunk", in, &o)))
        return rc;
    int nd = b2_nd_ndim(o.arr);
    if (nchunks != nd || (nblocks >= 0 && nblocks != nd)) {
        b2cli_obj_close(&o);
        return b2cli_usage_error("rechunk", "%s has %d dimension%s: --%s has %d", in, nd,
                                 nd == 1 ? "" : "s", nchunks != nd ? "chunks" : "blocks",
                                 nchunks != nd ? nchunks : nblocks);
    }
    int32_t cs[B2_ND_MAX_DIM], bs[B2_ND_MAX_DIM];
    for (int d = 0; d < nd; d++) {
        cs[d] = (int32_t)chunks[d];
        bs[d] = nblocks >= 0 ? (int32_t)blocks[d] : 0; /* 0: the default rule */
    }
    b2_nd_set_nthreads(o.arr, (int)nthreads);
    char *tmp = b2cli_temp_name(out);
    b2_nd_array *r = NULL;
    b2_nd_storage st = {B2_STORAGE_FILE, tmp};
    b2cli_progress bar;
    b2cli_progress_start(&bar, "rechunk", b2_nd_nitems(o.arr) * b2_nd_typesize(o.arr));
    long before = peak_kib();
    double t0 = b2cli_now();
    rc = tmp ? b2_nd_copy_with_progress(o.arr, cs, bs, &st, show_progress, &bar, &r) : B2_ERR_NOMEM;
    b2cli_progress_end(&bar);
    if (rc >= 0 && report)
        fprintf(stderr, "b2 rechunk: %s: %lld chunk%s in %.3f s; peak memory %ld KiB (%ld KiB before the copy)\n",
                in, (long long)b2_schunk_nchunks(b2_nd_schunk(r)),
                b2cli_plural(b2_schunk_nchunks(b2_nd_schunk(r))), b2cli_now() - t0, peak_kib(), before);
    if (rc < 0)
        b2cli_data_error(out, "cannot rechunk %s: %s", in, tmp ? b2_last_error_message() : "out of memory");
    b2_nd_free(r);
    b2cli_obj_close(&o);
    rc = tmp ? finish(tmp, out, rc) : B2CLI_EXIT_DATA;
    free(tmp);
    return rc;
}
