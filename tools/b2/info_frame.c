/* SPDX-License-Identifier: BSD-3-Clause */
/* `b2 info` for frames, sparse frames and b2nd arrays: the fixed header fields
 * as the library parsed them (b2_schunk_frame_info: what the writer recorded), the
 * super-chunk totals, metalayers and vlmetalayers (msgpack shown as JSON, other
 * content as hex), the b2nd geometry, and a table of chunks. */
#include <stdlib.h>
#include <string.h>

#include "b2cli.h"
#include "json.h"
#include "obj.h"

#define TEXT_HEX_MAX 64 /* text output shows at most this many content bytes as hex */

static const char *splitmode_name(int m)
{
    static const char *const n[] = {"?", "always", "never", "auto", "forward-compat"};
    return m >= 1 && m <= 4 ? n[m] : "?";
}

static const char *kind_text(const b2cli_obj *o)
{
    int sparse = b2_schunk_storage(o->schunk) == B2_STORAGE_SPARSE;
    if (o->kind == B2_KIND_B2ND)
        return sparse ? "b2nd array (sparse frame)" : "b2nd array (contiguous frame)";
    return sparse ? "sparse frame" : "contiguous frame";
}

/* Print content as JSON when it is msgpack, else as hex (truncated in text mode). */
static void show_content(FILE *f, const uint8_t *c, int32_t len, int text)
{
    if (b2cli_msgpack_to_json(f, c, (size_t)len))
        return;
    if (!text) {
        fputs("null", f);
        return;
    }
    fputs("hex ", f);
    b2cli_write_hex(f, c, len > TEXT_HEX_MAX ? TEXT_HEX_MAX : (size_t)len);
    if (len > TEXT_HEX_MAX)
        fputs("...", f);
}

typedef int (*meta_get_fn)(b2_schunk *, const char *, uint8_t **, int32_t *);

static int meta_get_fixed(b2_schunk *s, const char *n, uint8_t **c, int32_t *l)
{
    return b2_schunk_meta_get(s, n, c, l);
}

/* Text list of (vl)metalayers. Returns B2_OK or the first error. */
static int metas_text(const b2cli_obj *o, int vl)
{
    int n = vl ? b2_schunk_vlmeta_count(o->schunk) : b2_schunk_meta_count(o->schunk);
    int rc = B2_OK;
    printf("  %-16s %d\n", vl ? "vlmetalayers" : "metalayers", n < 0 ? 0 : n);
    for (int i = 0; i < n; i++) {
        const char *name = vl ? b2_schunk_vlmeta_name(o->schunk, i) : b2_schunk_meta_name(o->schunk, i);
        uint8_t *c = NULL;
        int32_t len = 0;
        int e = vl ? b2_schunk_vlmeta_get(o->schunk, name, &c, &len)
                   : meta_get_fixed(o->schunk, name, &c, &len);
        if (e < 0) {
            printf("    %-14s (unreadable: %s)\n", name, b2cli_err(e));
            b2cli_data_error(o->path, "%s '%s': %s", vl ? "vlmetalayer" : "metalayer", name,
                             b2cli_err(e));
            rc = e;
            continue;
        }
        printf("    %-14s %6d bytes  ", name, len);
        show_content(stdout, c, len, 1);
        putchar('\n');
        free(c);
    }
    return rc;
}

static int metas_json(b2cli_json *j, const b2cli_obj *o, int vl)
{
    int n = vl ? b2_schunk_vlmeta_count(o->schunk) : b2_schunk_meta_count(o->schunk);
    int rc = B2_OK;
    b2cli_json_array_begin(j, vl ? "vlmetalayers" : "metalayers");
    for (int i = 0; i < n; i++) {
        const char *name = vl ? b2_schunk_vlmeta_name(o->schunk, i) : b2_schunk_meta_name(o->schunk, i);
        uint8_t *c = NULL;
        int32_t len = 0;
        int e = vl ? b2_schunk_vlmeta_get(o->schunk, name, &c, &len)
                   : meta_get_fixed(o->schunk, name, &c, &len);
        b2cli_json_object_begin(j, NULL);
        b2cli_json_str(j, "name", name);
        if (e < 0) {
            b2cli_json_str(j, "error", b2cli_err(e));
            rc = e;
        } else {
            FILE *f;
            b2cli_json_int(j, "size", len);
            f = b2cli_json_raw(j, "content");
            show_content(f, c, len, 0);
            f = b2cli_json_raw(j, "hex");
            fputc('"', f);
            b2cli_write_hex(f, c, (size_t)len);
            fputc('"', f);
        }
        b2cli_json_object_end(j);
        free(c);
    }
    b2cli_json_array_end(j);
    return rc;
}

static const char *special_str(int sp)
{
    const char *n = b2_special_name(sp);
    return n ? n : "unknown";
}

static void print_dims64(const char *label, const int64_t *v, int nd)
{
    printf("    %-14s (", label);
    for (int d = 0; d < nd; d++)
        printf("%s%lld", d ? ", " : "", (long long)v[d]);
    printf("%s)\n", nd == 1 ? "," : "");
}

static void print_dims32(const char *label, const int32_t *v, int nd)
{
    printf("    %-14s (", label);
    for (int d = 0; d < nd; d++)
        printf("%s%d", d ? ", " : "", v[d]);
    printf("%s)\n", nd == 1 ? "," : "");
}

static double ratio_of(int64_t nbytes, int64_t cbytes)
{
    return cbytes > 0 ? (double)nbytes / (double)cbytes : 0.0;
}

static int frame_text(const b2cli_obj *o, const b2_frame_info *h)
{
    b2_schunk *s = o->schunk;
    int64_t n = b2_schunk_nchunks(s);
    int rc = B2_OK, nf = 0;
    printf("%s: %s\n", o->path, kind_text(o));
    if (o->pykind[0]) /* described, but what its chunks hold is not ours to show */
        printf("  python-blosc2    %s: its chunks are not array data (b2 cat and slice refuse it;"
               " python-blosc2's blosc2.open reads it)\n", o->pykind);
    if (h) {
        printf("  header size      %d\n", h->header_len);
        printf("  frame size       %lld\n", (long long)h->frame_len);
        printf("  format version   %d\n", h->version);
        printf("  flags            general 0x%02x, frame type %d, codec 0x%02x, other 0x%02x, "
               "other2 0x%02x\n", h->general_flags, h->frame_type, h->codec_flags, h->other_flags,
               h->other_flags2);
        char buf[32];
        const char *cn = b2cli_codec_label(h->codec, buf, sizeof buf);
        printf("  codec            %s (id %d), clevel %d  (defaults for new chunks)\n",
               cn ? cn : "unknown", h->codec, h->clevel);
        printf("  filters         ");
        for (int i = 0; i < 6; i++)
            if (h->filters[i]) {
                const char *fn = b2cli_filter_label(h->filters[i], buf, sizeof buf);
                int sgn = h->filters[i] == B2_FILTER_TRUNC_PREC ||
                          h->filters[i] == B2_FILTER_INT_TRUNC;
                printf(" %d:%s(%d)", i, fn ? fn : "unknown",
                       sgn ? (int)(int8_t)h->filters_meta[i] : h->filters_meta[i]);
                nf++;
            }
        printf("%s\n", nf ? "" : " none");
        printf("  splitmode        %s\n", splitmode_name(h->splitmode));
        printf("  use dict         %s\n", h->use_dict ? "yes" : "no");
        printf("  blocksize        %d%s\n", h->blocksize, h->blocksize ? "" : " (automatic)");
        printf("  threads          %d compress, %d decompress (as recorded)\n", h->tcomp, h->tdecomp);
    }
    printf("  typesize         %d\n", b2_schunk_typesize(s));
    printf("  chunksize        %d%s\n", b2_schunk_chunksize(s),
           b2_schunk_chunksize(s) == 0 ? " (chunks of different sizes)"
           : b2_schunk_chunksize(s) < 0 ? " (no chunk ever added)" : "");
    printf("  nchunks          %lld\n", (long long)n);
    printf("  nbytes           %lld\n", (long long)b2_schunk_nbytes(s));
    printf("  cbytes           %lld\n", (long long)b2_schunk_cbytes(s));
    int64_t dead = h ? h->dead_bytes : -1;
    if (dead >= 0)
        printf("  dead bytes       %lld%s\n", (long long)dead,
               dead > 0 ? " (b2 compact FILE reclaims them)" : "");
    printf("  ratio            %.3f\n", ratio_of(b2_schunk_nbytes(s), b2_schunk_cbytes(s)));
    if (metas_text(o, 0) < 0)
        rc = B2_ERR_CORRUPT;
    if (metas_text(o, 1) < 0)
        rc = B2_ERR_CORRUPT;
    if (o->arr) {
        b2_nd_array *a = o->arr;
        int nd = b2_nd_ndim(a);
        int64_t nitems = b2_nd_nitems(a);
        printf("  b2nd array\n");
        printf("    %-14s %d\n", "ndim", nd);
        print_dims64("shape", b2_nd_shape(a), nd);
        print_dims32("chunkshape", b2_nd_chunkshape(a), nd);
        print_dims32("blockshape", b2_nd_blockshape(a), nd);
        printf("    %-14s %s\n", "dtype", b2_nd_dtype(a));
        printf("    %-14s %d\n", "itemsize", b2_nd_typesize(a));
        printf("    %-14s %lld\n", "items", (long long)nitems);
        printf("    %-14s %lld (padded chunks hold %lld)\n", "array bytes",
               (long long)(nitems * b2_nd_typesize(a)), (long long)b2_schunk_nbytes(s));
        printf("    %-14s %.3f\n", "ratio", ratio_of(nitems * b2_nd_typesize(a), b2_schunk_cbytes(s)));
    }
    printf("  chunks\n    %8s %12s %12s  %s\n", "index", "nbytes", "cbytes", "special");
    for (int64_t i = 0; i < n; i++) {
        b2_frame_entry ce;
        int e = b2_schunk_frame_entry(s, i, &ce);
        if (e < 0) {
            printf("    %8lld  unreadable: %s\n", (long long)i, b2cli_err(e));
            b2cli_data_error(o->path, "chunk %lld: %s", (long long)i, b2cli_err(e));
            rc = e;
            continue;
        }
        printf("    %8lld %12d %12d  %s\n", (long long)i, ce.nbytes, ce.cbytes,
               special_str(ce.special));
    }
    return rc;
}

static int frame_json(const b2cli_obj *o, const b2_frame_info *h)
{
    b2_schunk *s = o->schunk;
    int64_t n = b2_schunk_nchunks(s);
    int rc = B2_OK;
    b2cli_json j;
    b2cli_json_begin(&j, stdout);
    b2cli_json_str(&j, "file", o->path);
    b2cli_json_str(&j, "kind", b2_kind_name(o->kind));
    if (o->pykind[0])
        b2cli_json_str(&j, "python_blosc2", o->pykind);
    b2cli_json_str(&j, "storage", b2_schunk_storage(s) == B2_STORAGE_SPARSE ? "sparse" : "contiguous");
    if (h) {
        b2cli_json_int(&j, "header_size", h->header_len);
        b2cli_json_int(&j, "frame_size", h->frame_len);
        b2cli_json_int(&j, "format_version", h->version);
        b2cli_json_object_begin(&j, "flags");
        b2cli_json_int(&j, "general", h->general_flags);
        b2cli_json_int(&j, "frame_type", h->frame_type);
        b2cli_json_int(&j, "codec", h->codec_flags);
        b2cli_json_int(&j, "other", h->other_flags);
        b2cli_json_int(&j, "other2", h->other_flags2);
        b2cli_json_object_end(&j);
        char buf[32];
        b2cli_json_str(&j, "codec", b2cli_codec_label(h->codec, buf, sizeof buf));
        b2cli_json_int(&j, "codec_id", h->codec);
        b2cli_json_int(&j, "clevel", h->clevel);
        b2cli_json_array_begin(&j, "filters");
        for (int i = 0; i < 6; i++)
            b2cli_json_array_int(&j, h->filters[i]);
        b2cli_json_array_end(&j);
        b2cli_json_array_begin(&j, "filters_meta");
        for (int i = 0; i < 6; i++)
            b2cli_json_array_int(&j, h->filters_meta[i]);
        b2cli_json_array_end(&j);
        b2cli_json_str(&j, "splitmode", splitmode_name(h->splitmode));
        b2cli_json_bool(&j, "use_dict", h->use_dict);
        b2cli_json_int(&j, "blocksize", h->blocksize);
    }
    b2cli_json_int(&j, "typesize", b2_schunk_typesize(s));
    b2cli_json_int(&j, "chunksize", b2_schunk_chunksize(s));
    b2cli_json_int(&j, "nchunks", n);
    b2cli_json_int(&j, "nbytes", b2_schunk_nbytes(s));
    b2cli_json_int(&j, "cbytes", b2_schunk_cbytes(s));
    int64_t dead = h ? h->dead_bytes : -1;
    if (dead >= 0)
        b2cli_json_int(&j, "dead_bytes", dead);
    b2cli_json_num(&j, "ratio", ratio_of(b2_schunk_nbytes(s), b2_schunk_cbytes(s)));
    if (metas_json(&j, o, 0) < 0)
        rc = B2_ERR_CORRUPT;
    if (metas_json(&j, o, 1) < 0)
        rc = B2_ERR_CORRUPT;
    if (o->arr) {
        b2_nd_array *a = o->arr;
        int nd = b2_nd_ndim(a);
        b2cli_json_object_begin(&j, "b2nd");
        b2cli_json_int(&j, "ndim", nd);
        b2cli_json_array_begin(&j, "shape");
        for (int d = 0; d < nd; d++)
            b2cli_json_array_int(&j, b2_nd_shape(a)[d]);
        b2cli_json_array_end(&j);
        b2cli_json_array_begin(&j, "chunkshape");
        for (int d = 0; d < nd; d++)
            b2cli_json_array_int(&j, b2_nd_chunkshape(a)[d]);
        b2cli_json_array_end(&j);
        b2cli_json_array_begin(&j, "blockshape");
        for (int d = 0; d < nd; d++)
            b2cli_json_array_int(&j, b2_nd_blockshape(a)[d]);
        b2cli_json_array_end(&j);
        b2cli_json_str(&j, "dtype", b2_nd_dtype(a));
        b2cli_json_int(&j, "itemsize", b2_nd_typesize(a));
        b2cli_json_int(&j, "nitems", b2_nd_nitems(a));
        b2cli_json_int(&j, "array_bytes", b2_nd_nitems(a) * b2_nd_typesize(a));
        b2cli_json_num(&j, "ratio", ratio_of(b2_nd_nitems(a) * b2_nd_typesize(a), b2_schunk_cbytes(s)));
        b2cli_json_object_end(&j);
    }
    b2cli_json_array_begin(&j, "chunks");
    for (int64_t i = 0; i < n; i++) {
        b2_frame_entry ce;
        int e = b2_schunk_frame_entry(s, i, &ce);
        b2cli_json_object_begin(&j, NULL);
        b2cli_json_int(&j, "index", i);
        if (e < 0) {
            b2cli_json_str(&j, "error", b2cli_err(e));
            b2cli_data_error(o->path, "chunk %lld: %s", (long long)i, b2cli_err(e));
            rc = e;
        } else {
            b2cli_json_int(&j, "nbytes", ce.nbytes);
            b2cli_json_int(&j, "cbytes", ce.cbytes);
            b2cli_json_str(&j, "special", special_str(ce.special));
        }
        b2cli_json_object_end(&j);
    }
    b2cli_json_array_end(&j);
    b2cli_json_end(&j);
    return rc;
}

int b2cli_info_frame(const b2cli_obj *o, int json)
{
    b2_frame_info h;
    int rc = b2_schunk_frame_info(o->schunk, &h);
    if (rc < 0) /* the rest is still worth printing */
        b2cli_data_error(o->path, "frame header: %s", b2cli_err(rc));
    rc = json ? frame_json(o, rc < 0 ? NULL : &h) : frame_text(o, rc < 0 ? NULL : &h);
    return rc;
}
