/* SPDX-License-Identifier: BSD-3-Clause */
/* `b2 compress [options] IN OUT`: compress a file into one Blosc2 chunk, a
 * contiguous frame, a sparse frame or a b2nd array (compress_frame.c does the
 * containers; the kind comes from --format, --sparse or OUT's extension).
 *
 * Filter placement: the chunk has 6 pipeline slots, applied in order 0..5.
 * Repeated --filter options are right-aligned so the last one lands in slot 5
 * (the reference's default puts shuffle in slot 5, and its tools place filters
 * the same way). --filters/--filters-meta give all 6 slots explicitly. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "b2cli.h"

static const char compress_help[] =
    "usage: b2 compress [options] IN OUT\n"
    "Compress IN ('-' = standard input) into OUT ('-' = standard output). OUT is\n"
    "written under a temporary name and renamed into place when complete.\n"
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
    "  -v, --verbose       print sizes, ratio and speed on standard error\n"
    "\n"
    "When compressing at least 100 MB (B2_PROGRESS_MIN_BYTES in the environment\n"
    "sets another threshold, k/M/G allowed) into a frame or array and standard\n"
    "error is a terminal, a progress bar is drawn there.\n"
    "Exit status: 0 success, 1 unreadable input or write failure, 2 bad arguments.\n";

#define CMD "compress"

/* Split a comma-separated list of exactly 6 items into out[]; modifies s. */
static int split6(char *s, char *out[6])
{
    int n = 0;
    for (char *tok = s;; n++) {
        char *comma = strchr(tok, ',');
        if (n == 6)
            return -1;
        out[n] = tok;
        if (!comma)
            break;
        *comma = '\0';
        tok = comma + 1;
    }
    return n == 5 ? 0 : -1;
}

static int parse_splitmode(const char *s)
{
    if (!strcmp(s, "always")) return B2_SPLIT_ALWAYS;
    if (!strcmp(s, "never")) return B2_SPLIT_NEVER;
    if (!strcmp(s, "auto")) return B2_SPLIT_AUTO;
    if (!strcmp(s, "forward-compat") || !strcmp(s, "forward_compat")) return B2_SPLIT_FORWARD_COMPAT;
    return -1;
}

typedef struct opts {
    b2cli_cparam_opts cpo;       /* compression parameters (shared with `b2 convert`) */
    int verbose;
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

/* Parse one --filter value NAME[:META] into o. Returns 0 or an exit code. */
static int add_filter(const char *cmd, b2cli_cparam_opts *o, const char *val)
{
    char name[64];
    const char *colon = strchr(val, ':');
    size_t n = colon ? (size_t)(colon - val) : strlen(val);
    int64_t meta = 0;
    int id;
    if (n >= sizeof name)
        return b2cli_usage_error(cmd, "unknown filter '%s'", val);
    memcpy(name, val, n);
    name[n] = '\0';
    id = b2cli_filter_id(name);
    if (id < 0)
        return b2cli_usage_error(cmd, "unknown filter '%s'", name);
    if (colon && b2cli_parse_int(colon + 1, -128, 255, 0, &meta) < 0)
        return b2cli_usage_error(cmd, "filter meta '%s' is not a number -128..255", colon + 1);
    if (id == B2_FILTER_TRUNC_PREC && !colon)
        return b2cli_usage_error(cmd, "trunc_prec needs a precision: --filter trunc_prec:BITS");
    if (id == B2_FILTER_INT_TRUNC && !colon)
        return b2cli_usage_error(cmd, "int_trunc needs a bit count: --filter int_trunc:BITS");
    if ((id == B2_FILTER_NDCELL || id == B2_FILTER_NDMEAN) && !colon)
        return b2cli_usage_error(cmd, "%s needs a cell side: --filter %s:N", b2_filter_name(id),
                                 b2_filter_name(id));
    if (id == B2_FILTER_BYTEDELTA_BUGGY)
        return b2cli_usage_error(cmd, "bytedelta_buggy (34) is only read; use bytedelta (35)");
    if (id == B2_FILTER_NONE) {
        o->nfilter = 0; /* "none" clears the list: no filter at all */
        return 0;
    }
    if (o->nfilter == B2_MAX_FILTERS)
        return b2cli_usage_error(cmd, "at most %d filters", B2_MAX_FILTERS);
    o->fid[o->nfilter] = (uint8_t)id;
    o->fmeta[o->nfilter] = (uint8_t)(int)meta;
    o->nfilter++;
    return 0;
}

static int parse_list6(const char *cmd, const char *opt, const char *val, int is_meta, uint8_t out[6])
{
    char buf[256], *items[6];
    if (strlen(val) >= sizeof buf)
        return b2cli_usage_error(cmd, "%s: value too long", opt);
    strcpy(buf, val);
    if (split6(buf, items) < 0)
        return b2cli_usage_error(cmd, "%s wants exactly 6 comma-separated values", opt);
    for (int i = 0; i < 6; i++) {
        if (is_meta) {
            int64_t v;
            if (b2cli_parse_int(items[i], -128, 255, 0, &v) < 0)
                return b2cli_usage_error(cmd, "%s: '%s' is not a number -128..255", opt, items[i]);
            out[i] = (uint8_t)(int)v;
        } else {
            int id = b2cli_filter_id(items[i]);
            if (id < 0)
                return b2cli_usage_error(cmd, "%s: unknown filter '%s'", opt, items[i]);
            out[i] = (uint8_t)id;
        }
    }
    return 0;
}

void b2cli_cparam_opts_init(b2cli_cparam_opts *o)
{
    memset(o, 0, sizeof *o);
    b2_cparams_init(&o->p);
}

int b2cli_cparam_opt(const char *cmd, b2cli_cparam_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v;
    int64_t n;
    int rc;
    if (!strcmp(a, "--dict")) {
        o->p.use_dict = 1;
        o->given = 1;
        return 0;
    }
#define VALUE(name) if (!(v = b2cli_opt_value(cmd, argc, argv, i, name))) return B2CLI_EXIT_USAGE
    if (b2cli_opt_is(a, "--codec")) {
        VALUE("--codec");
        if ((o->p.codec = b2cli_codec_id(v)) < 0)
            return b2cli_usage_error(cmd, "unknown codec '%s'", v);
    } else if (b2cli_opt_is(a, "--codec-meta")) {
        VALUE("--codec-meta");
        if (b2cli_parse_int(v, -128, 255, 0, &n) < 0)
            return b2cli_usage_error(cmd, "--codec-meta wants -128..255, not '%s'", v);
        o->p.codec_meta = (uint8_t)(int)n;
    } else if (b2cli_opt_is(a, "--clevel")) {
        VALUE("--clevel");
        if (b2cli_parse_int(v, 0, 9, 0, &n) < 0)
            return b2cli_usage_error(cmd, "--clevel wants 0..9, not '%s'", v);
        o->p.clevel = (int)n;
    } else if (b2cli_opt_is(a, "--blocksize")) {
        VALUE("--blocksize");
        if (b2cli_parse_int(v, 0, B2_MAX_BLOCKSIZE, 1, &n) < 0)
            return b2cli_usage_error(cmd, "--blocksize wants 0..%d, not '%s'", B2_MAX_BLOCKSIZE, v);
        o->p.blocksize = (int32_t)n;
    } else if (b2cli_opt_is(a, "--splitmode")) {
        VALUE("--splitmode");
        if ((o->p.splitmode = parse_splitmode(v)) < 0)
            return b2cli_usage_error(cmd, "unknown split mode '%s'", v);
    } else if (b2cli_opt_is(a, "--threads") || b2cli_opt_is(a, "-t")) {
        VALUE("--threads");
        if (b2cli_parse_int(v, 1, 256, 0, &n) < 0)
            return b2cli_usage_error(cmd, "--threads wants 1..256, not '%s'", v);
        o->p.nthreads = (int)n;
        return 0; /* threads do not change what is written */
    } else if (b2cli_opt_is(a, "--filter")) {
        VALUE("--filter");
        if ((rc = add_filter(cmd, o, v)) != 0)
            return rc;
        o->filter_opt = 1;
    } else if (b2cli_opt_is(a, "--filters-meta")) {
        VALUE("--filters-meta");
        if ((rc = parse_list6(cmd, "--filters-meta", v, 1, o->p.filters_meta)) != 0)
            return rc;
        o->explicit_meta = 1;
    } else if (b2cli_opt_is(a, "--filters")) {
        VALUE("--filters");
        if ((rc = parse_list6(cmd, "--filters", v, 0, o->p.filters)) != 0)
            return rc;
        o->explicit_filters = 1;
    } else {
        return -1;
    }
#undef VALUE
    o->given = 1;
    return 0;
}

int b2cli_cparam_opts_finish(const char *cmd, b2cli_cparam_opts *o)
{
    if (o->explicit_filters && o->filter_opt)
        return b2cli_usage_error(cmd, "use either --filter or --filters, not both");
    if (o->explicit_meta && !o->explicit_filters)
        return b2cli_usage_error(cmd, "--filters-meta goes with --filters; use --filter NAME:META");
    if (o->explicit_filters && !o->explicit_meta)
        memset(o->p.filters_meta, 0, sizeof o->p.filters_meta);
    if (o->filter_opt) {
        /* --filter list (possibly empty after "none") right-aligned; no option at
         * all keeps the default from b2_cparams_init (shuffle in slot 5). */
        memset(o->p.filters, 0, sizeof o->p.filters);
        memset(o->p.filters_meta, 0, sizeof o->p.filters_meta);
        for (int k = 0; k < o->nfilter; k++) {
            int slot = B2_MAX_FILTERS - o->nfilter + k;
            o->p.filters[slot] = o->fid[k];
            o->p.filters_meta[slot] = o->fmeta[k];
        }
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

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* Decide what OUT becomes and check the options fit it. Returns 0 or an exit code. */
static int choose_kind(opts *o)
{
    b2cli_container_opts *c = &o->c;
    int kind;
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
    if (rc == 0)
        rc = choose_kind(&o);
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
    t0 = now_seconds();
    rc = b2_chunk_compress(cctx, src, nbytes, dst, cap);
    t1 = now_seconds();
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
