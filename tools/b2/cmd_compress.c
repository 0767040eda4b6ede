/* SPDX-License-Identifier: BSD-3-Clause */
/* `b2 compress [options] IN OUT`: compress a file into one Blosc2 chunk, a
 * contiguous frame, a sparse frame or a b2nd array (compress_frame.c does the
 * containers; the kind comes from --format, --sparse or OUT's extension). The
 * compression options, and where --filter puts filters: cparam_opts.c. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "b2cli.h"
#include "compress.h"
#include "npy.h"

static const char compress_help[] =
    "usage: b2 compress [options] IN OUT\n"
    "Compress IN ('-' = standard input) into OUT ('-' = standard output). OUT is\n"
    "written under a temporary name and renamed into place when complete; an\n"
    "existing OUT is replaced only with --force.\n"
    "IN may be a NumPy .npy file (a file, not standard input; recognised by its\n"
    "header, versions 1.0 to 3.0; C order, no object or structured dtypes): its\n"
    "header gives a b2nd array its shape and dtype, and any output its typesize;\n"
    "the data after it are compressed.\n"
    "\n"
    "What is written (first rule that applies):\n"
    "  --format KIND       chunk, frame, sframe or b2nd, whatever OUT is called\n"
    "  --sparse            a sparse-frame directory (a b2nd one with --shape or a\n"
    "                      .b2nd name); OUT must not exist yet\n"
    "  OUT ends in .b2frame  a contiguous frame; .b2nd: a b2nd array; .b2chunk: a chunk\n"
    "  --shape given       a b2nd array\n"
    "  anything else       one chunk (IN at most 2 GiB - 32 bytes)\n"
    "\n"
    "Frames and arrays:\n"
    "  --chunksize N       frame: bytes per chunk, k/M/G allowed (default 1M); the\n"
    "                      last chunk holds the rest\n"
    "  --meta NAME=HEX     add a metalayer (fixed size, stored uncompressed; HEX is\n"
    "                      the content as hex digits, may be empty). Repeatable, 16 at most\n"
    "  --checksums         frame, sframe, b2nd: store an xxh64 checksum of each chunk\n"
    "                      (vlmetalayer b2.checksums; c-blosc2 reads such files and\n"
    "                      ignores it; b2 verify checks them)\n"
    "  --vlmeta NAME=HEX   add a variable-length metalayer (stored compressed). Repeatable\n"
    "  --shape A,B,..      b2nd: array shape (IN holds the array in C order, exactly\n"
    "                      prod(shape) * itemsize bytes; '' or 'scalar' for ndim 0)\n"
    "  --dtype D           b2nd: NumPy dtype string, e.g. '<f4', '|u1', '<i8' (its\n"
    "                      item size is the typesize); without it --typesize T gives\n"
    "                      dtype '|ST'\n"
    "  --chunks A,B,..     b2nd: chunk shape (default: automatic)\n"
    "  --blocks A,B,..     b2nd: block shape (default: automatic)\n"
    "\n"
    "Compression parameters (every kind):\n"
    "  --codec NAME|ID     blosclz (default), lz4, lz4hc, zlib, zstd; the plugin\n"
    "                      codecs ndlz, zfp-acc, zfp-prec, zfp-rate (b2nd arrays:\n"
    "                      they work on the block shape); or a codec id 0..255\n"
    "  --codec-meta N      the codec's parameter byte (header byte 23), -128..255\n"
    "                      (default 0): ndlz cell size 4 or 8, zfp-acc tolerance\n"
    "                      exponent, zfp-prec precision, zfp-rate rate percent\n"
    "  --clevel N          0..9 (default 5; 0 stores the data uncompressed)\n"
    "  --typesize N        item size in bytes (default 8; above 255 recorded as 1)\n"
    "  --blocksize N       block size in bytes, k/M suffix allowed (default automatic)\n"
    "  --splitmode MODE    always, never, auto, forward-compat (default)\n"
    "  --filter F          add a filter: shuffle, bitshuffle, delta, trunc_prec:BITS,\n"
    "                      bytedelta (after shuffle: --filter shuffle --filter\n"
    "                      bytedelta), int_trunc:BITS (integers, lossy: BITS > 0\n"
    "                      keeps that many high bits, < 0 clears -BITS low bits),\n"
    "                      ndcell:N (b2nd: reorders blocks in cells of side N),\n"
    "                      ndmean:N (b2nd, floats, lossy: cell means), NAME:META,\n"
    "                      ID:META (a filter id 0..255), or none. Repeatable; the\n"
    "                      filters are placed in the last slots so the last one\n"
    "                      given sits in slot 5.\n"
    "                      Default without filter options: shuffle in slot 5.\n"
    "  --filters F0,..,F5  all 6 slots explicitly (names or ids 0..255; 0/none =\n"
    "                      empty)\n"
    "  --filters-meta M0,..,M5  the 6 filter meta values (-128..255)\n"
    "  --threads N         compression threads (output does not depend on it)\n"
    "  --dict              use a dictionary (lz4, lz4hc, zstd)\n"
    "  --slack N           offer the encoder N bytes of output room beyond\n"
    "                      nbytes + 32 (default 0). The reference falls back to a\n"
    "                      memcpy chunk only when the compressed chunk would not fit\n"
    "                      its output buffer, so reproducing a chunk written with a\n"
    "                      larger buffer needs the same room (chunk.md 13.5).\n"
    "  -f, --force         replace an existing OUT\n"
    "  -v, --verbose       print sizes, ratio and speed on standard error\n"
    "\n"
    "When compressing at least 100 MB (B2_PROGRESS_MIN_BYTES in the environment\n"
    "sets another threshold, k/M/G allowed) into a frame or array and standard\n"
    "error is a terminal, a progress bar is drawn there.\n"
    "Exit status: 0 success, 1 unreadable input or write failure, 2 bad arguments.\n";

#define CMD "compress"

typedef struct opts {
    b2cli_cparam_opts cpo;       /* compression parameters (shared with `b2 convert`) */
    int verbose, force;
    b2cli_npy npy;               /* IN's header when IN is a .npy file */
    int is_npy;
    size_t slack;                /* extra output room offered to the encoder */
    const char *in, *out;
    const char *format;          /* --format value or NULL */
    int typesize_given, shape_given, nchunks_dims, nblocks_dims;
    b2cli_container_opts c;      /* frame/sframe/b2nd settings */
} opts;

/* Parse NAME=HEX into m. Returns 0 or an exit code. */
static int parse_meta(const char *opt, const char *val, b2cli_meta_arg *m)
{
    const char *eq = strchr(val, '=');
    size_t n, hl;
    if (!eq || eq == val)
        return b2cli_usage_error(CMD, "%s wants NAME=HEX, not '%s'", opt, val);
    n = (size_t)(eq - val);
    if (n > B2_FRAME_MAX_NAME)
        return b2cli_usage_error(CMD, "%s: name longer than %d bytes", opt, B2_FRAME_MAX_NAME);
    memcpy(m->name, val, n);
    m->name[n] = '\0';
    hl = strlen(eq + 1);
    if (hl % 2 || hl / 2 > (size_t)INT32_MAX)
        return b2cli_usage_error(CMD, "%s %s: hex content must have an even number of digits", opt, m->name);
    m->len = (int32_t)(hl / 2);
    m->content = malloc(m->len ? (size_t)m->len : 1);
    if (!m->content)
        return b2cli_usage_error(CMD, "%s: out of memory", opt);
    for (size_t i = 0; i < hl; i += 2) {
        unsigned v;
        char pair[3] = {eq[1 + i], eq[2 + i], 0};
        if (!isxdigit((unsigned char)pair[0]) || !isxdigit((unsigned char)pair[1]) ||
            sscanf(pair, "%2x", &v) != 1)
            return b2cli_usage_error(CMD, "%s %s: '%s' is not hex", opt, m->name, pair);
        m->content[i / 2] = (uint8_t)v;
    }
    return 0;
}

static int parse_opts(opts *o, int argc, char **argv)
{
    int npos = 0, rc;
    memset(o, 0, sizeof *o);
    b2cli_cparam_opts_init(&o->cpo);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int64_t n;
        if (!strcmp(a, "-") || a[0] != '-') {
            if (npos == 2)
                return b2cli_usage_error(CMD, "too many arguments");
            if (npos++ == 0)
                o->in = a;
            else
                o->out = a;
            continue;
        }
        if (!strcmp(a, "--sparse")) {
            o->c.sparse = 1;
            continue;
        }
        if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            o->verbose = 1;
            continue;
        }
        if (!strcmp(a, "-f") || !strcmp(a, "--force")) {
            o->force = 1;
            continue;
        }
        if ((rc = b2cli_cparam_opt(CMD, &o->cpo, argc, argv, &i)) >= 0) {
            if (rc > 0)
                return rc;
            continue;
        }
#define VALUE(name) if (!(v = b2cli_opt_value(CMD, argc, argv, &i, name))) return B2CLI_EXIT_USAGE
        if (b2cli_opt_is(a, "--typesize")) {
            VALUE("--typesize");
            if (b2cli_parse_int(v, 1, B2_MAX_BLOCKSIZE, 0, &n) < 0)
                return b2cli_usage_error(CMD, "--typesize wants a positive size, not '%s'", v);
            o->cpo.p.typesize = (int32_t)n;
            o->typesize_given = 1;
        } else if (b2cli_opt_is(a, "--format")) {
            VALUE("--format");
            o->format = v;
        } else if (b2cli_opt_is(a, "--chunksize")) {
            VALUE("--chunksize");
            if (b2cli_parse_int(v, 1, B2_MAX_BUFFERSIZE, 1, &n) < 0)
                return b2cli_usage_error(CMD, "--chunksize wants 1..%d bytes, not '%s'",
                                         (int)B2_MAX_BUFFERSIZE, v);
            o->c.chunksize = n;
        } else if (b2cli_opt_is(a, "--meta")) {
            VALUE("--meta");
            if (o->c.nmeta == B2_FRAME_MAX_METALAYERS)
                return b2cli_usage_error(CMD, "at most %d --meta", B2_FRAME_MAX_METALAYERS);
            if ((rc = parse_meta("--meta", v, &o->c.meta[o->c.nmeta++])) != 0)
                return rc;
        } else if (!strcmp(a, "--checksums")) {
            o->c.checksums = 1;
        } else if (b2cli_opt_is(a, "--vlmeta")) {
            VALUE("--vlmeta");
            if (o->c.nvlmeta == B2_FRAME_MAX_VLMETALAYERS)
                return b2cli_usage_error(CMD, "at most %d --vlmeta", B2_FRAME_MAX_VLMETALAYERS);
            if ((rc = parse_meta("--vlmeta", v, &o->c.vlmeta[o->c.nvlmeta++])) != 0)
                return rc;
        } else if (b2cli_opt_is(a, "--shape")) {
            VALUE("--shape");
            if ((rc = b2cli_parse_dims(CMD, "--shape", v, 0, INT64_MAX, o->c.shape, &o->c.ndim)) != 0)
                return rc;
            o->shape_given = 1;
        } else if (b2cli_opt_is(a, "--chunks") || b2cli_opt_is(a, "--blocks")) {
            int64_t tmp[B2_ND_MAX_DIM];
            int is_chunks = b2cli_opt_is(a, "--chunks"), nd;
            VALUE(is_chunks ? "--chunks" : "--blocks");
            if ((rc = b2cli_parse_dims(CMD, is_chunks ? "--chunks" : "--blocks", v, 1, INT32_MAX, tmp, &nd)) != 0)
                return rc;
            for (int d = 0; d < nd; d++)
                (is_chunks ? o->c.chunks : o->c.blocks)[d] = (int32_t)tmp[d];
            if (is_chunks)
                o->nchunks_dims = nd;
            else
                o->nblocks_dims = nd;
        } else if (b2cli_opt_is(a, "--dtype")) {
            VALUE("--dtype");
            o->c.dtype = v;
        } else if (b2cli_opt_is(a, "--slack")) {
            VALUE("--slack");
            if (b2cli_parse_int(v, 0, 1 << 20, 0, &n) < 0)
                return b2cli_usage_error(CMD, "--slack wants 0..1048576, not '%s'", v);
            o->slack = (size_t)n;
        } else {
            return b2cli_usage_error(CMD, "unknown option '%s'", a);
        }
#undef VALUE
    }
    if (npos < 2)
        return b2cli_usage_error(CMD, "missing %s", npos ? "output file" : "input file");
    if ((rc = b2cli_cparam_opts_finish(CMD, &o->cpo)) != 0)
        return rc;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* A .npy IN: its typesize for every kind, its shape and dtype for a b2nd
 * array (options saying otherwise are refused). 0 or an exit code. */
static int apply_npy(opts *o)
{
    const b2cli_npy *h = &o->npy;
    b2cli_container_opts *c = &o->c;
    if (o->typesize_given && o->cpo.p.typesize != h->itemsize)
        return b2cli_usage_error(CMD, "--typesize %d contradicts the .npy dtype '%s'",
                                 o->cpo.p.typesize, h->dtype);
    o->cpo.p.typesize = h->itemsize;
    o->typesize_given = 1;
    c->in_offset = h->offset;
    if (c->kind != B2_KIND_B2ND)
        return 0;
    if (c->dtype && strcmp(c->dtype, h->dtype))
        return b2cli_usage_error(CMD, "--dtype '%s' contradicts the .npy dtype '%s'", c->dtype, h->dtype);
    if (o->shape_given && (c->ndim != h->ndim || memcmp(c->shape, h->shape, sizeof(int64_t) * (size_t)h->ndim)))
        return b2cli_usage_error(CMD, "--shape contradicts the .npy shape");
    c->dtype = h->dtype;
    c->ndim = h->ndim;
    memcpy(c->shape, h->shape, sizeof c->shape);
    o->shape_given = 1;
    return 0;
}

/* Decide what OUT becomes and check the options fit it. Returns 0 or an exit code. */
static int choose_kind(opts *o)
{
    b2cli_container_opts *c = &o->c;
    int kind, rc;
    if (o->format) {
        if (!strcmp(o->format, "chunk")) kind = B2_KIND_CHUNK;
        else if (!strcmp(o->format, "frame") || !strcmp(o->format, "cframe")) kind = B2_KIND_FRAME;
        else if (!strcmp(o->format, "sframe")) kind = B2_KIND_SFRAME;
        else if (!strcmp(o->format, "b2nd")) kind = B2_KIND_B2ND;
        else return b2cli_usage_error(CMD, "unknown --format '%s' (chunk, frame, sframe, b2nd)", o->format);
        if (kind == B2_KIND_SFRAME)
            c->sparse = 1;
    } else if (o->shape_given || ends_with(o->out, ".b2nd")) {
        kind = B2_KIND_B2ND;
    } else if (c->sparse || ends_with(o->out, ".b2frame")) {
        kind = c->sparse ? B2_KIND_SFRAME : B2_KIND_FRAME;
    } else {
        kind = B2_KIND_CHUNK;
    }
    c->kind = kind;
    c->in = o->in;
    c->out = o->out;
    c->verbose = o->verbose;
    if (c->sparse && kind == B2_KIND_CHUNK)
        return b2cli_usage_error(CMD, "--sparse makes a frame or an array, not a chunk");
    if (c->sparse && !strcmp(o->out, "-"))
        return b2cli_usage_error(CMD, "a sparse frame is a directory and cannot go to standard output");
    if (kind == B2_KIND_CHUNK && (c->nmeta || c->nvlmeta || c->chunksize || c->checksums))
        return b2cli_usage_error(CMD, "--meta, --vlmeta, --chunksize and --checksums need a frame or array output"
                                      " (name OUT *.b2frame or *.b2nd, or use --format)");
    if (kind != B2_KIND_B2ND && (o->shape_given || c->dtype || o->nchunks_dims || o->nblocks_dims))
        return b2cli_usage_error(CMD, "--shape, --dtype, --chunks and --blocks need a b2nd output");
    if (o->is_npy && (rc = apply_npy(o)) != 0)
        return rc;
    if (kind == B2_KIND_B2ND) {
        if (!o->shape_given)
            return b2cli_usage_error(CMD, "a b2nd array needs --shape");
        if (c->chunksize)
            return b2cli_usage_error(CMD, "--chunksize is for frames; arrays take --chunks");
        if ((o->nchunks_dims && o->nchunks_dims != c->ndim) || (o->nblocks_dims && o->nblocks_dims != c->ndim))
            return b2cli_usage_error(CMD, "--chunks and --blocks need %d values, like --shape", c->ndim);
        if (c->nmeta >= B2_FRAME_MAX_METALAYERS)
            return b2cli_usage_error(CMD, "an array has room for %d --meta (b2nd takes one)",
                                     B2_FRAME_MAX_METALAYERS - 1);
        if (c->dtype) {
            int32_t isz = b2_nd_dtype_itemsize(c->dtype);
            if (isz < 0)
                return b2cli_usage_error(CMD, "malformed --dtype '%s'", c->dtype);
            if (isz == 0 && !o->typesize_given)
                return b2cli_usage_error(CMD, "item size of --dtype '%s' unknown: add --typesize", c->dtype);
            if (isz > 0 && o->typesize_given && isz != o->cpo.p.typesize)
                return b2cli_usage_error(CMD, "--typesize %d contradicts --dtype '%s'", o->cpo.p.typesize, c->dtype);
            if (isz > 0)
                o->cpo.p.typesize = isz;
        } else if (!o->typesize_given) {
            return b2cli_usage_error(CMD, "a b2nd array needs --dtype (or --typesize)");
        }
        c->typesize = o->cpo.p.typesize;
    }
    if (kind == B2_KIND_FRAME || kind == B2_KIND_SFRAME) {
        if (!c->chunksize)
            c->chunksize = 1 << 20;
    }
    return 0;
}

/* For a b2nd output, the block shape the array will have, so that filters
 * working on blocks (ndcell, ndmean) are checked against it; shape errors are
 * reported later, where the array is made. */
static void b2nd_geometry(const opts *o, b2_cparams *p)
{
    b2_nd_params np;
    memset(&np, 0, sizeof np);
    np.ndim = o->c.ndim;
    for (int d = 0; d < o->c.ndim; d++) {
        np.shape[d] = o->c.shape[d];
        np.chunkshape[d] = o->c.chunks[d];
        np.blockshape[d] = o->c.blocks[d];
    }
    np.typesize = o->c.typesize;
    if (o->c.kind != B2_KIND_B2ND || np.ndim == 0 || b2_nd_default_shapes(&np) < 0)
        return;
    p->geometry.ndim = np.ndim;
    for (int d = 0; d < np.ndim; d++)
        p->geometry.blockshape[d] = np.blockshape[d];
}

static void free_metas(opts *o)
{
    for (int i = 0; i < o->c.nmeta; i++)
        free(o->c.meta[i].content);
    for (int i = 0; i < o->c.nvlmeta; i++)
        free(o->c.vlmeta[i].content);
}

static int run_compress(opts *o);

int b2cli_cmd_compress(int argc, char **argv)
{
    opts o;
    int rc;
    for (int i = 1; i < argc; i++)
        if (b2cli_is_help(argv[i])) {
            fputs(compress_help, stdout);
            return B2CLI_OK;
        }
    rc = parse_opts(&o, argc, argv);
    if (rc == 0 && (o.is_npy = b2cli_npy_is(o.in)) && b2cli_npy_read_header(o.in, &o.npy) < 0)
        rc = B2CLI_EXIT_DATA;
    if (rc == 0)
        rc = choose_kind(&o);
    if (rc == 0 && strcmp(o.out, "-") && access(o.out, F_OK) == 0) {
        /* rename() cannot put a directory over another: say so before the work */
        if (o.c.sparse)
            rc = (b2cli_data_error(o.out, "exists already (a sparse frame, a directory, does not "
                                          "replace it even with --force: remove it first)"), B2CLI_EXIT_DATA);
        else if (!o.force)
            rc = (b2cli_data_error(o.out, "exists already (--force replaces it)"), B2CLI_EXIT_DATA);
    }
    if (rc == 0) {
        b2_cparams check = o.cpo.p;
        b2nd_geometry(&o, &check);
        if ((rc = b2_cparams_check(&check)) < 0)
            rc = b2cli_usage_error(CMD, "invalid parameters: %s", b2cli_err(rc));
    }
    if (rc == 0) {
        if (o.c.kind == B2_KIND_CHUNK)
            rc = run_compress(&o);
        else
            rc = b2cli_compress_container(&o.c, &o.cpo.p) < 0 ? B2CLI_EXIT_DATA : B2CLI_OK;
    }
    free_metas(&o);
    return rc;
}

/* One chunk. */
static int run_compress(opts *op)
{
    opts o = *op;
    uint8_t *src = NULL, *dst = NULL;
    size_t nbytes, cap;
    b2_cctx *cctx = NULL;
    b2cli_outfile out;
    int rc, ret = B2CLI_EXIT_DATA;
    double t0, t1;

    if (b2cli_read_file(o.in, &src, &nbytes) < 0)
        return B2CLI_EXIT_DATA;
    if (nbytes < (size_t)o.c.in_offset) { /* the .npy file shrank since its header was read */
        b2cli_data_error(o.in, "truncated while reading");
        goto done;
    }
    nbytes -= (size_t)o.c.in_offset; /* a .npy header */
    if (nbytes > (size_t)B2_MAX_BUFFERSIZE) {
        b2cli_data_error(o.in, "%zu bytes is more than one chunk can hold (%d)", nbytes,
                         (int)B2_MAX_BUFFERSIZE);
        goto done;
    }
    cap = b2_chunk_compress_bound(nbytes) + o.slack;
    dst = malloc(cap);
    cctx = b2_cctx_new(&o.cpo.p);
    if (!dst || !cctx) {
        b2cli_data_error(o.in, "out of memory");
        goto done;
    }
    t0 = b2cli_now();
    rc = b2_chunk_compress(cctx, src + o.c.in_offset, nbytes, dst, cap);
    t1 = b2cli_now();
    if (rc < 0) {
        b2cli_data_error(o.in, "compression failed: %s", b2cli_err(rc));
        goto done;
    }
    if (b2cli_out_open(&out, o.out) < 0)
        goto done;
    if (b2cli_write_all(out.f, dst, (size_t)rc) < 0) {
        b2cli_data_error(o.out, "write error");
        b2cli_out_abort(&out);
        goto done;
    }
    if (b2cli_out_commit(&out) < 0)
        goto done;
    if (o.verbose)
        fprintf(stderr, "%s: %zu -> %d bytes (ratio %.3f), %.1f MB/s\n",
                strcmp(o.in, "-") ? o.in : "(stdin)", nbytes, rc,
                rc > 0 ? (double)nbytes / rc : 0.0,
                t1 > t0 ? nbytes / (t1 - t0) / 1e6 : 0.0);
    ret = B2CLI_OK;
done:
    b2_cctx_free(cctx);
    free(dst);
    free(src);
    return ret;
}
