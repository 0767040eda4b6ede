/* SPDX-License-Identifier: BSD-3-Clause */
/* `b2 convert SRC DST`: move an array between an HDF5 dataset (FILE.h5:/DATASET)
 * and a b2nd array (FILE.b2nd), in either direction.
 *
 * Without recompressing when it can: a stored HDF5 chunk of filter 32026 is a
 * frame holding one b2nd chunk whose shape is the HDF5 chunk shape
 * (doc/format/hdf5-filter.md §3-5). When the array's chunk shape is the HDF5 chunk shape
 * and every chunk has the array's block shape and typesize, that inner chunk is
 * a chunk of the b2nd array as it is: H5Dread_chunk, then it replaces chunk i
 * (C order of the chunk grid) of the array's super-chunk; the other way, each
 * b2nd chunk is wrapped in the one-chunk frame the filter writes (same header,
 * metalayer and trailer) and stored with H5Dwrite_chunk, filter mask 0.
 * Padding: both sides store full-size edge chunks; HDF5's part beyond the
 * dataset's edge becomes b2nd padding (readers ignore it), and b2nd padding
 * becomes the part of the HDF5 chunk that HDF5 ignores.
 *
 * Every chunk that cannot move as it is (other filters, filter mask set,
 * unallocated chunks, another block shape, uninit chunks, other chunk shapes
 * or compression options asked for) is decoded and re-encoded: its box is read
 * through HDF5 (b2_h5_read_box) or the b2nd reader and written through the b2nd
 * writer or H5Dwrite with the filter. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "compress.h"
#include "h5.h"

static const char convert_help[] =
    "usage: b2 convert [options] SRC DST\n"
    "Convert an HDF5 dataset into a b2nd array or a b2nd array into an HDF5\n"
    "dataset: one of SRC and DST is FILE.h5:/DATASET, the other FILE.b2nd.\n"
    "Chunks move without recompressing whenever they can: an HDF5 chunk of the\n"
    "Blosc2 filter (32026, alone in the pipeline, filter mask 0) holds one b2nd\n"
    "chunk, which becomes a chunk of the array as it is, and the other way round,\n"
    "as long as the chunk shapes are the same and every chunk has the array's\n"
    "block shape and typesize. Other chunks (other filters, unallocated or raw\n"
    "chunks, other block shapes) are decoded and compressed again. A new HDF5\n"
    "dataset gets filter 32026 with cd_values from the array's codec, clevel,\n"
    "filter and block size; its file is created when missing. A new b2nd file\n"
    "is written under a temporary name and renamed into place. Integers, floats,\n"
    "fixed-size strings and h5py's complex keep their type; other fixed-size\n"
    "types become opaque items; variable-length types are refused.\n"
    "Examples:  b2 convert run.h5:/grid/t t.b2nd\n"
    "           b2 convert t.b2nd out.h5:/t --chunks 100,100 --codec zstd --clevel 3\n"
    "Options:\n"
    "  --chunks C0,C1,..  chunk shape of the output (default: the input's); another\n"
    "                     shape means recompressing\n"
    "  --blocks B0,B1,..  b2nd output: block shape (default: the HDF5 chunks' one)\n"
    "  --recompress       decode and re-encode every chunk\n"
    "  --force            replace an existing DST (b2nd file, or HDF5 dataset)\n"
    "  --threads N        threads for decoding and compressing (HDF5: the reader's\n"
    "                     threads, and b2_h5_write_box's for recompressed chunks)\n"
    "  -q, --quiet        do not print what was done\n"
    "  Compression (as for 'b2 compress'; any of them means recompressing):\n"
    "  --codec NAME|ID  --codec-meta N  --clevel N  --blocksize N  --filter F\n"
    "  --filters F0,..,F5  --filters-meta M0,..,M5  --splitmode MODE  --dict\n"
    "  An HDF5 output takes only what cd_values carry: the codec (and its meta),\n"
    "  clevel, one filter (shuffle, bitshuffle, delta or none) and the block size.\n"
    "It prints how many chunks moved as they were and how many were recompressed\n"
    "(and why). When converting at least 100 MB (B2_PROGRESS_MIN_BYTES) and\n"
    "standard error is a terminal, a progress bar is drawn there.\n"
    "Exit status: 0 success, 1 unreadable input, existing output or write failure,\n"
    "2 bad arguments.\n";

/* Parse a --chunks/--blocks shape (1..16 numbers) into out[*n]. 0 or an exit code. */
static int parse_shape(const char *opt, const char *val, int32_t *out, int *n)
{
    char buf[512], *tok, *save = NULL;
    *n = 0;
    if (strlen(val) >= sizeof buf)
        return b2cli_usage_error(CMD, "%s: value too long", opt);
    strcpy(buf, val);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int64_t v;
        if (*n == B2_ND_MAX_DIM)
            return b2cli_usage_error(CMD, "%s: at most %d dimensions", opt, B2_ND_MAX_DIM);
        if (b2cli_parse_int(tok, 1, INT32_MAX, 0, &v) < 0)
            return b2cli_usage_error(CMD, "%s: '%s' is not a number 1..%d", opt, tok, INT32_MAX);
        out[(*n)++] = (int32_t)v;
    }
    if (*n == 0)
        return b2cli_usage_error(CMD, "%s needs at least one value", opt);
    return 0;
}

#ifndef B2CLI_HAVE_HDF5

static int run(conv *c, int src_h5)
{
    (void)src_h5;
    b2cli_data_error(c->src, "this b2 was built without HDF5 support");
    return B2CLI_EXIT_DATA;
}

#else
/* The first ":/" splits "FILE.h5:/DATASET" (the file may not exist yet). */
static int split_dst(const char *spec, char *file, size_t cap, const char **dset)
{
    const char *p = strstr(spec, ":/");
    if (!p || (size_t)(p - spec) >= cap || p == spec || !p[2])
        return -1;
    memcpy(file, spec, (size_t)(p - spec));
    file[p - spec] = '\0';
    *dset = p + 1;
    return 0;
}

/* Split SRC or DST and run the direction asked for. */
static int run(conv *c, int src_h5)
{
    char file[4096];
    const char *dset;
    if (src_h5) {
        if (b2cli_h5_split(c->src, file, sizeof file, &dset) < 0 || !dset)
            return b2cli_usage_error(CMD, "name the dataset: %s:/DATASET", c->src);
        return conv_h5_to_b2nd(c, file, dset);
    }
    if (split_dst(c->dst, file, sizeof file, &dset) < 0)
        return b2cli_usage_error(CMD, "DST must be FILE.h5:/DATASET when SRC is a b2nd array");
    return conv_b2nd_to_h5(c, file, dset);
}
#endif

int b2cli_cmd_convert(int argc, char **argv)
{
    conv c;
    int npos = 0, rc;
    memset(&c, 0, sizeof c);
    b2cli_cparam_opts_init(&c.cpo);
    for (int i = 1; i < argc; i++)
        if (b2cli_is_help(argv[i])) {
            fputs(convert_help, stdout);
            return B2CLI_OK;
        }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (a[0] != '-' || !a[1]) {
            if (npos == 2)
                return b2cli_usage_error(CMD, "too many arguments");
            if (npos++ == 0)
                c.src = a;
            else
                c.dst = a;
        } else if (!strcmp(a, "--force")) {
            c.force = 1;
        } else if (!strcmp(a, "--recompress")) {
            c.recompress = 1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            c.quiet = 1;
        } else if (b2cli_opt_is(a, "--chunks") || b2cli_opt_is(a, "--blocks")) {
            int is_chunks = b2cli_opt_is(a, "--chunks");
            const char *name = is_chunks ? "--chunks" : "--blocks";
            if (!(v = b2cli_opt_value(CMD, argc, argv, &i, name)))
                return B2CLI_EXIT_USAGE;
            if ((rc = parse_shape(name, v, is_chunks ? c.chunks : c.blocks,
                                  is_chunks ? &c.nchunks_dims : &c.nblocks_dims)) != 0)
                return rc;
        } else if ((rc = b2cli_cparam_opt(CMD, &c.cpo, argc, argv, &i)) >= 0) {
            if (rc > 0)
                return rc;
        } else {
            return b2cli_usage_error(CMD, "unknown option '%s'", a);
        }
    }
    if (npos < 2)
        return b2cli_usage_error(CMD, "missing %s", npos ? "DST" : "SRC and DST");
    if ((rc = b2cli_cparam_opts_finish(CMD, &c.cpo)) != 0)
        return rc;
    c.nthreads = c.cpo.p.nthreads > 0 ? c.cpo.p.nthreads : 1;
    if (c.nthreads > 1) {
        char n[16];
        snprintf(n, sizeof n, "%d", c.nthreads);
        setenv("B2_H5_NTHREADS", n, 0); /* the filter's threads for H5Dread/H5Dwrite */
    }
    int src_h5 = b2cli_h5_is_hdf5(c.src);
    int dst_h5 = strstr(c.dst, ":/") != NULL;
    if (src_h5 && dst_h5)
        return b2cli_usage_error(CMD, "both SRC and DST are HDF5; one of them must be a .b2nd array");
    if (!src_h5 && !dst_h5) {
        if (strstr(c.src, ":/"))
            return b2cli_data_error(c.src, "no such HDF5 file"), B2CLI_EXIT_DATA;
        return b2cli_usage_error(CMD, "one of SRC and DST must be an HDF5 dataset FILE.h5:/DATASET");
    }
    return run(&c, src_h5);
}
