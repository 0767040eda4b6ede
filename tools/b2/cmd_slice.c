/* SPDX-License-Identifier: BSD-3-Clause */
/* `b2 slice FILE SPEC`: the bytes of part of an array. For a b2nd array SPEC is
 * one START:STOP per dimension (NumPy-like: omitted bounds mean the ends,
 * negative ones count from the end, a single index I means I:I+1, missing
 * trailing dimensions are taken whole; a dimension given as a list [I,J,..]
 * makes the spec an orthogonal selection, select.c); for a frame it is one item
 * range in units of the frame's typesize. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "b2cli.h"
#include "decode.h"
#include "h5.h"
#include "obj.h"
#include "select.h"

#define CMD "slice"

static const char slice_help[] =
    "usage: b2 slice FILE SPEC [-o OUT] [--threads N] [--report] [-f]\n"
    "       b2 slice FILE.h5:/DATASET SPEC [-o OUT] [--threads N] [--report] [-f]\n"
    "Write the bytes of a box of FILE to standard output (or OUT, atomically).\n"
    "Binary data are not written to a terminal unless -f is given (as zstd and\n"
    "gzip do): redirect standard output, pipe it, or use -o.\n"
    "  b2nd array: SPEC is START:STOP for each dimension, comma-separated; the\n"
    "              box comes out in C order without padding. Omitted bounds are\n"
    "              the ends (':' is the whole dimension), negative bounds count\n"
    "              from the end, a single index I means I:I+1, bounds are clipped\n"
    "              to the shape, and dimensions left out are taken whole.\n"
    "              A dimension may also be a list [I,J,..] of indices (any order,\n"
    "              repeats allowed, negative from the end): the result is then the\n"
    "              orthogonal selection, NumPy's a[np.ix_(...)], every dimension\n"
    "              kept; only the blocks holding selected items are decoded.\n"
    "  frame:      SPEC is one START:STOP range of items (units of the frame's\n"
    "              typesize) across chunks.\n"
    "  HDF5:       SPEC as for b2nd arrays, over the dataset's dimensions; the\n"
    "              elements come out in the dataset's own type. Chunks of the\n"
    "              Blosc2 filter (32026) are read by blocks, straight from the file\n"
    "              (b2_h5_reader; boxes of 256 KiB or more over several chunks\n"
    "              are decoded on --threads threads); anything else through HDF5\n"
    "              (H5Dread).\n"
    "Examples:  b2 slice temps.b2nd 0:10,:,5   b2 slice data.b2frame 1000:2000\n"
    "           b2 slice temps.b2nd '[1,5,9],2:7'\n"
    "           b2 slice run.h5:/grid/t 995:1005,995:1005\n"
    "  -o OUT        write to OUT instead of standard output\n"
    "  -f, --force   write to standard output even when it is a terminal\n"
    "  --threads N   decompression threads (default 1; HDF5: the reader's threads,\n"
    "                default $B2_H5_NTHREADS, else 1)\n"
    "  --report      say on standard error how the box was read (HDF5: path,\n"
    "                reason, chunks, file bytes read)\n"
    "Exit status: 0 success, 1 unreadable or corrupt input, 2 bad arguments.\n";

static int slice_frame(const b2cli_obj *o, const char *spec, FILE *out)
{
    int64_t ts = b2_schunk_typesize(o->schunk), nitems, start, stop;
    uint8_t *buf;
    int rc = B2_OK;
    if (ts <= 0)
        return b2cli_data_error(o->path, "frame has no typesize"), B2_ERR_FORMAT;
    nitems = b2_schunk_nbytes(o->schunk) / ts;
    if ((rc = b2cli_parse_box(spec, 1, &nitems, &start, &stop)) != 0)
        return rc;
    /* Items in pieces of at most 16 MiB so memory stays bounded. */
    {
        int64_t step = (16 << 20) / ts > 0 ? (16 << 20) / ts : 1;
        if (!(buf = malloc((size_t)(step * ts))))
            return b2cli_data_error(o->path, "out of memory"), B2_ERR_NOMEM;
        for (int64_t i = start; i < stop && rc == B2_OK; i += step) {
            int64_t n = stop - i < step ? stop - i : step;
            int64_t got = b2_schunk_get_items(o->schunk, i, n, buf, (size_t)(step * ts));
            if (got < 0) {
                rc = (int)got;
                b2cli_data_error(o->path, "items %lld..%lld: %s", (long long)i, (long long)(i + n),
                                 b2cli_err(rc));
            } else if ((rc = b2cli_write_all(out, buf, (size_t)got)) < 0) {
                b2cli_data_error(o->path, "write error on output");
            }
        }
        free(buf);
    }
    return rc;
}

int b2cli_cmd_slice(int argc, char **argv)
{
    const char *pos[2] = {NULL, NULL}, *outpath = "-";
    int npos = 0, nthreads = 1, h5threads = 0, report = 0, force = 0, rc;
    b2cli_obj o;
    b2cli_outfile out;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (b2cli_is_help(a)) {
            fputs(slice_help, stdout);
            return B2CLI_OK;
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (b2cli_opt_is(a, "-o") || b2cli_opt_is(a, "--output")) {
            if (!(outpath = b2cli_opt_value(CMD, argc, argv, &i, "-o")))
                return B2CLI_EXIT_USAGE;
        } else if (b2cli_opt_is(a, "--report")) {
            report = 1;
        } else if (!strcmp(a, "-f") || !strcmp(a, "--force")) {
            force = 1;
        } else if (b2cli_opt_is(a, "--threads") || b2cli_opt_is(a, "-t")) {
            int64_t v;
            const char *s = b2cli_opt_value(CMD, argc, argv, &i, "--threads");
            if (!s)
                return B2CLI_EXIT_USAGE;
            if (b2cli_parse_int(s, 1, 256, 0, &v) < 0)
                return b2cli_usage_error(CMD, "--threads wants a number 1..256, not '%s'", s);
            nthreads = h5threads = (int)v;
        } else if (a[0] == '-' && a[1] != '\0' && !(npos == 1 && (a[1] == ':' || (a[1] >= '0' && a[1] <= '9')))) {
            return b2cli_usage_error(CMD, "unknown option '%s'", a);
        } else {
            if (npos == 2)
                return b2cli_usage_error(CMD, "too many arguments");
            pos[npos++] = a;
        }
    }
    if (npos < 2)
        return b2cli_usage_error(CMD, "missing %s", npos ? "slice specification" : "input file");
    /* Bytes on a terminal are garbage and can leave it in a strange state. */
    if (!strcmp(outpath, "-") && !force && isatty(STDOUT_FILENO))
        return b2cli_usage_error(CMD, "not writing binary data to a terminal (redirect it, use -o OUT, "
                                      "or -f to force)");
    if (b2cli_h5_is_hdf5(pos[0])) {
        if (b2cli_out_open(&out, outpath) < 0)
            return B2CLI_EXIT_DATA;
        rc = b2cli_h5_slice(pos[0], pos[1], out.f, report, h5threads);
        if (rc != 0) {
            b2cli_out_abort(&out);
            return rc > 0 ? rc : B2CLI_EXIT_DATA;
        }
        return b2cli_out_commit(&out) < 0 ? B2CLI_EXIT_DATA : B2CLI_OK;
    }
    if (b2cli_obj_open(&o, pos[0]) < 0)
        return B2CLI_EXIT_DATA;
    if (o.kind == B2_KIND_CHUNK) {
        b2cli_obj_close(&o);
        b2cli_data_error(pos[0], "a single chunk has no shape to slice (use 'b2 cat')");
        return B2CLI_EXIT_DATA;
    }
    if (o.arr && b2cli_spec_is_selection(pos[1])) {
        b2cli_selection sel;
        if ((rc = b2cli_parse_selection(pos[1], b2_nd_ndim(o.arr), b2_nd_shape(o.arr), &sel)) != 0) {
            b2cli_obj_close(&o);
            return rc;
        }
        b2_nd_set_nthreads(o.arr, nthreads);
        if (b2cli_out_open(&out, outpath) < 0) {
            b2cli_selection_free(&sel);
            b2cli_obj_close(&o);
            return B2CLI_EXIT_DATA;
        }
        rc = b2cli_b2nd_write_selection(&o, &sel, out.f);
        b2cli_selection_free(&sel);
    } else if (o.arr) {
        int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM];
        if ((rc = b2cli_parse_box(pos[1], b2_nd_ndim(o.arr), b2_nd_shape(o.arr), start, stop)) != 0) {
            b2cli_obj_close(&o);
            return rc;
        }
        b2_nd_set_nthreads(o.arr, nthreads);
        if (b2cli_out_open(&out, outpath) < 0) {
            b2cli_obj_close(&o);
            return B2CLI_EXIT_DATA;
        }
        rc = b2cli_b2nd_write_box(&o, start, stop, out.f);
    } else {
        b2_schunk_set_nthreads(o.schunk, nthreads);
        if (b2cli_out_open(&out, outpath) < 0) {
            b2cli_obj_close(&o);
            return B2CLI_EXIT_DATA;
        }
        rc = slice_frame(&o, pos[1], out.f);
        if (rc > 0) { /* usage error from the spec */
            b2cli_out_abort(&out);
            b2cli_obj_close(&o);
            return rc;
        }
    }
    b2cli_obj_close(&o);
    if (rc < 0) {
        b2cli_out_abort(&out);
        return B2CLI_EXIT_DATA;
    }
    return b2cli_out_commit(&out) < 0 ? B2CLI_EXIT_DATA : B2CLI_OK;
}
