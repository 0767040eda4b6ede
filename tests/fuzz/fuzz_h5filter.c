/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz target: the HDF5 filter function b2_h5_filter (filter 32026), called
 * directly as HDF5 would, with cd_values and the chunk taken from the input:
 *   byte 0      flags: 1 decompress (H5Z_FLAG_REVERSE), 2 optional filter,
 *               4 after compressing, decompress the result and compare,
 *               8 fit the chunk to cd_values' typesize x dims (zero padded)
 *   byte 1      number of cd_values (0..B2_H5_MAX_CDVALUES, 47: the extra
 *               values after the chunk dims included, h5params.h)
 *   4 bytes LE  per cd_value
 *   the rest    the chunk (HDF5's buffer)
 * The filter finds HDF5 at run time (h5api.c); this program defines the few
 * HDF5 functions it resolves (exported, so dlsym finds them): memory comes from
 * malloc, refused above FUZZ_MAX_OUTPUT as a real allocator may refuse, and
 * pushed errors are dropped. Like HDF5, the harness frees whatever buffer the
 * filter hands back, on success or failure. Seeds: chunks compressed by the
 * filter itself and the b2nd reference arrays as stored chunks
 * (fuzz_make_seeds). */
#include <string.h>

#include "b2_nd.h"
#include "fuzz_common.h"
#include "h5filter.h"
#include "h5params.h"

/* ---- the HDF5 the filter resolves ---- */

hid_t H5E_ERR_CLS_g = 1, H5E_PLINE_g = 2, H5E_CALLBACK_g = 3;

void *H5allocate_memory(size_t size, hbool_t clear)
{
    if (size > FUZZ_MAX_OUTPUT)
        return NULL;
    return clear ? calloc(1, size ? size : 1) : malloc(size ? size : 1);
}
herr_t H5free_memory(void *mem)
{
    free(mem);
    return 0;
}
herr_t H5Epush2(hid_t err_stack, const char *file, const char *func, unsigned line, hid_t cls_id,
                hid_t maj_id, hid_t min_id, const char *msg, ...)
{
    (void)err_stack, (void)file, (void)func, (void)line, (void)cls_id, (void)maj_id, (void)min_id;
    (void)msg;
    return 0;
}
/* set_local's queries, never called by the filter function itself */
int H5Pget_chunk(hid_t plist, int max_ndims, hsize_t dim[])
{
    (void)plist, (void)max_ndims, (void)dim;
    return -1;
}
herr_t H5Pget_filter_by_id2(hid_t plist, H5Z_filter_t id, unsigned *flags, size_t *cd_nelmts,
                            unsigned cd_values[], size_t namelen, char name[],
                            unsigned *filter_config)
{
    (void)plist, (void)id, (void)flags, (void)cd_nelmts, (void)cd_values, (void)namelen;
    (void)name, (void)filter_config;
    return -1;
}
herr_t H5Pmodify_filter(hid_t plist, H5Z_filter_t filter, unsigned flags, size_t cd_nelmts,
                        const unsigned cd_values[])
{
    (void)plist, (void)filter, (void)flags, (void)cd_nelmts, (void)cd_values;
    return -1;
}
size_t H5Tget_size(hid_t type)
{
    (void)type;
    return 0;
}
H5T_class_t H5Tget_class(hid_t type)
{
    (void)type;
    return H5T_NO_CLASS;
}
hid_t H5Tget_super(hid_t type)
{
    (void)type;
    return -1;
}
herr_t H5Tclose(hid_t type)
{
    (void)type;
    return -1;
}
herr_t H5Zregister(const void *cls)
{
    (void)cls;
    return -1;
}

/* ---- the target ---- */

#define FL_REVERSE 1
#define FL_OPTIONAL 2
#define FL_ROUNDTRIP 4
#define FL_FIT 8

/* One filter call on a copy of chunk (n bytes) in HDF5-style memory; returns
 * the filter's result and leaves the buffer it hands back in *buf (to free). */
static size_t call(unsigned flags, size_t ncd, const unsigned *cd, const uint8_t *chunk, size_t n,
                   void **buf)
{
    size_t size = n;
    *buf = H5allocate_memory(n, 0);
    if (!*buf)
        return 0;
    memcpy(*buf, chunk, n);
    return b2_h5_filter(flags, ncd, cd, n, &size, buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    unsigned fl = (unsigned)fuzz_take(&in, 1);
    size_t ncd = (size_t)fuzz_take(&in, 1) % (B2_H5_MAX_CDVALUES + 1);
    unsigned cd[B2_H5_MAX_CDVALUES];
    for (size_t i = 0; i < ncd; i++)
        cd[i] = (unsigned)fuzz_take(&in, 4);
    const uint8_t *chunk = in.p;
    size_t n = in.n;
    uint8_t *fitted = NULL;
    if ((fl & FL_FIT) && ncd >= 8 && cd[7] >= 2 && cd[7] <= B2_H5_READ_MAXDIM && ncd >= 8 + cd[7]) {
        /* the size that takes the filter's b2nd path: typesize x chunk items */
        uint64_t want = cd[2];
        for (unsigned i = 0; i < cd[7] && want <= FUZZ_MAX_OUTPUT / 16; i++)
            want *= cd[8 + i];
        if (want > 0 && want <= FUZZ_MAX_OUTPUT / 16 && (fitted = calloc(1, (size_t)want))) {
            memcpy(fitted, chunk, n < want ? n : (size_t)want);
            chunk = fitted;
            n = (size_t)want;
        }
    }
    if (n == 0) {
        free(fitted);
        return 0;
    }
    unsigned h5flags = (fl & FL_REVERSE ? H5Z_FLAG_REVERSE : 0) | (fl & FL_OPTIONAL ? H5Z_FLAG_OPTIONAL : 0);
    void *buf = NULL;
    size_t r = call(h5flags, ncd, cd, chunk, n, &buf);
    if (r > 0 && !(fl & FL_REVERSE) && (fl & FL_ROUNDTRIP)) {
        /* what HDF5 stored must read back: exactly, but for the lossy zfp codecs;
         * and at all only when cd_values[3] (the chunk's bytes, which set_local
         * always fills in) holds it */
        void *back = NULL;
        size_t got = call(H5Z_FLAG_REVERSE, ncd, cd, buf, r, &back);
        int codec = ncd >= 7 ? (int)(cd[6] & 0xff) : 0;
        int lossy = codec >= B2_CODEC_ZFP_ACC && codec <= B2_CODEC_ZFP_RATE;
        b2_h5_params p;
        char err[300];
        if (b2_h5_params_parse(ncd, cd, 1, &p, err, sizeof err) == 0 && p.ext)
            for (int i = 0; i < B2_MAX_FILTERS; i++) /* lossy filters from the extra values */
                lossy |= p.filters[i] == B2_FILTER_TRUNC_PREC || p.filters[i] == B2_FILTER_NDMEAN ||
                         p.filters[i] == B2_FILTER_INT_TRUNC;
        if (ncd < 8 || cd[3] >= n)
            FUZZ_CHECK(got == n, "a chunk the filter wrote does not read back");
        if (got == n && !lossy)
            FUZZ_CHECK(!memcmp(back, chunk, n), "a chunk the filter wrote reads back otherwise");
        free(back);
    }
    free(buf);
    free(fitted);
    return 0;
}

/* ---- seeds ---- */

static int write_input(const char *outdir, const char *name, unsigned fl, size_t ncd,
                       const unsigned *cd, const void *chunk, size_t n)
{
    uint8_t *b = malloc(2 + 4 * ncd + n);
    if (!b)
        return 0;
    b[0] = (uint8_t)fl;
    b[1] = (uint8_t)ncd;
    for (size_t i = 0; i < ncd; i++)
        for (int k = 0; k < 4; k++)
            b[2 + 4 * i + k] = (uint8_t)(cd[i] >> (8 * k));
    memcpy(b + 2 + 4 * ncd, chunk, n);
    int ok = fuzz_write_seed(outdir, name, b, 2 + 4 * ncd + n);
    free(b);
    return ok;
}

/* A b2nd reference array (one chunk: what an HDF5 chunk holds) as a stored
 * chunk, with the cd_values set_local would have written for it. */
static void seed_from_array(const char *path, void *ud)
{
    fuzz_seeds *out = ud;
    size_t n = 0;
    uint8_t *frame = fuzz_read_file(path, &n);
    b2_nd_array *a = NULL;
    if (frame && n <= 65536 && b2_nd_open_buffer(frame, n, 0, &a) >= 0 && b2_nd_ndim(a) >= 2) {
        unsigned cd[B2_H5_MAX_CDVALUES] = {1, 0, (unsigned)b2_nd_typesize(a), 0, 5, 1, 0,
                                           (unsigned)b2_nd_ndim(a)};
        uint64_t bytes = cd[2];
        for (int d = 0; d < b2_nd_ndim(a); d++) {
            cd[8 + d] = (unsigned)b2_nd_shape(a)[d];
            bytes *= cd[8 + d];
        }
        cd[3] = (unsigned)bytes;
        char name[300];
        snprintf(name, sizeof name, "%s.stored", fuzz_basename(path));
        out->n += write_input(out->outdir, name, FL_REVERSE, 8 + (size_t)b2_nd_ndim(a), cd,
                              frame, n);
    }
    b2_nd_free(a);
    free(frame);
}

int fuzz_make_seeds(const char *outdir, int argc, char **argv)
{
    fuzz_seeds out = {outdir, 0};
    for (int i = 0; i < argc; i++)
        fuzz_each_path(argv[i], seed_from_array, &out);
    /* chunks of 24 x 20 items, compressed with each codec and filter */
    static const unsigned codecs[] = {B2_CODEC_BLOSCLZ, B2_CODEC_LZ4, B2_CODEC_LZ4HC,
                                      B2_CODEC_ZLIB, B2_CODEC_ZSTD, B2_CODEC_NDLZ | 8 << 8,
                                      B2_CODEC_ZFP_ACC | 0xfd << 8, B2_CODEC_ZFP_PREC | 10 << 8,
                                      B2_CODEC_ZFP_RATE | 50 << 8};
    float v[24 * 20];
    for (int i = 0; i < 24 * 20; i++)
        v[i] = (float)((i * 7) % 23) * 0.5f;
    for (size_t c = 0; c < sizeof codecs / sizeof *codecs; c++) {
        for (int rank = 1; rank <= 2; rank++) {
            int ndlz = (codecs[c] & 0xff) == B2_CODEC_NDLZ;
            unsigned ts = ndlz ? 1 : 4;
            unsigned cd[10] = {1, 0, ts, 24 * 20 * ts, 5, (unsigned)(c % 4), codecs[c], 2, 24, 20};
            size_t ncd = rank == 2 ? 10 : 7, n = 24 * 20 * ts;
            char name[64];
            snprintf(name, sizeof name, "compress_c%zu_r%d", c, rank);
            out.n += write_input(outdir, name, FL_ROUNDTRIP | FL_FIT, ncd, cd, v, n);
            void *buf = NULL;
            size_t r = call(0, ncd, cd, (const uint8_t *)v, n, &buf);
            snprintf(name, sizeof name, "stored_c%zu_r%d", c, rank);
            if (r > 0)
                out.n += write_input(outdir, name, FL_REVERSE, ncd, cd, buf, r);
            free(buf);
        }
    }
    /* the extra values after the chunk dims (rank 2): filter slots, flags, block shape */
    static const struct {
        unsigned f45, flags, b0, b1, codec;
    } ext[] = {
        {1 | 35u << 16 | 4u << 24, 0, 0, 0, B2_CODEC_LZ4},  /* shuffle, bytedelta */
        {1 | 36u << 16 | 0xF0u << 24, 0, 8, 10, B2_CODEC_ZSTD}, /* int_trunc -16 bits */
        {32 | 4u << 8 | 1u << 16, 0, 8, 8, B2_CODEC_LZ4},  /* ndcell 4 (block 8x8), shuffle */
        {33 | 4u << 8, 0, 8, 20, B2_CODEC_BLOSCLZ},         /* ndmean 4 */
        {4 | 10u << 8 | 1u << 16, 1, 0, 0, B2_CODEC_ZSTD},  /* trunc_prec 10, shuffle, use_dict */
        {2u << 16, 1, 24, 20, B2_CODEC_LZ4HC},              /* bitshuffle, use_dict */
    };
    for (size_t e = 0; e < sizeof ext / sizeof *ext; e++) {
        int bs = ext[e].b0 != 0;
        unsigned cd[19] = {1, 0, 4, 24 * 20 * 4, 5, 1, ext[e].codec, 2, 24, 20,
                           B2_H5_EXT_MARKER, B2_H5_EXT_VERSION, bs ? 6 : 4, 0, 0, ext[e].f45,
                           ext[e].flags, ext[e].b0, ext[e].b1};
        size_t ncd = bs ? 19 : 17, n = 24 * 20 * 4;
        char name[64];
        snprintf(name, sizeof name, "compress_ext%zu", e);
        out.n += write_input(outdir, name, FL_ROUNDTRIP | FL_FIT, ncd, cd, v, n);
        void *buf = NULL;
        size_t r = call(0, ncd, cd, (const uint8_t *)v, n, &buf);
        snprintf(name, sizeof name, "stored_ext%zu", e);
        if (r > 0)
            out.n += write_input(outdir, name, FL_REVERSE, ncd, cd, buf, r);
        free(buf);
        /* an unknown version and a cut-short list: refused on writes */
        cd[11] = 2;
        snprintf(name, sizeof name, "compress_ext%zu_v2", e);
        out.n += write_input(outdir, name, FL_ROUNDTRIP | FL_FIT, ncd, cd, v, n);
        cd[11] = B2_H5_EXT_VERSION;
        snprintf(name, sizeof name, "compress_ext%zu_short", e);
        out.n += write_input(outdir, name, FL_ROUNDTRIP | FL_FIT, ncd - 2, cd, v, n);
    }
    return out.n;
}
