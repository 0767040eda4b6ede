/* SPDX-License-Identifier: BSD-3-Clause */
/* cd_values decoding and checks (doc/format/hdf5-filter.md §2, §3 step 1, §5 step 1). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2_chunk.h"
#include "h5params.h"

static int fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return -1;
}

static int known_filter(unsigned id)
{
    return id <= B2_FILTER_TRUNC_PREC ||
           (id >= B2_FILTER_NDCELL && id <= B2_FILTER_INT_TRUNC && id != B2_FILTER_BYTEDELTA_BUGGY) ||
           (id >= B2_FILTER_USER_FIRST && id <= 255);
}

int b2_h5_params_parse_ext(const unsigned *e, size_t avail, b2_h5_params *p, char *err,
                          size_t errcap)
{
    if (p->rank < 1 || p->rank > B2_H5_WRITE_MAXDIM)
        return fail(err, errcap, "extra values need a chunk rank of 1..%d (cd_values[7])",
                    B2_H5_WRITE_MAXDIM);
    if (avail < 3 || e[0] != B2_H5_EXT_MARKER)
        return fail(err, errcap, "the extra values after the chunk dimensions are cut short "
                    "(%zu values, marker 0x%08X, version and count needed)", avail,
                    B2_H5_EXT_MARKER);
    if (e[1] != B2_H5_EXT_VERSION)
        return fail(err, errcap, "extra values of version %u, this filter knows version %d "
                    "only", e[1], B2_H5_EXT_VERSION);
    unsigned nv = e[2];
    if (nv > avail - 3)
        return fail(err, errcap, "the extra values announce %u values but %zu follow", nv,
                    avail - 3);
    if (nv != B2_H5_EXT_FIXED && nv != B2_H5_EXT_FIXED + (unsigned)p->rank)
        return fail(err, errcap, "%u extra values: %d (filters, flags) or %d (and a block "
                    "shape of rank %d) expected", nv, B2_H5_EXT_FIXED,
                    B2_H5_EXT_FIXED + p->rank, p->rank);
    if (avail - 3 != nv)
        return fail(err, errcap, "%zu values follow the %u extra values", avail - 3 - nv, nv);
    const unsigned *v = e + 3;
    for (int i = 0; i < B2_MAX_FILTERS; i++) {
        unsigned slot = (v[i / 2] >> (16 * (i % 2))) & 0xffffu;
        p->filters[i] = (uint8_t)(slot & 0xff);
        p->filters_meta[i] = (uint8_t)(slot >> 8);
        if (!known_filter(p->filters[i]))
            return fail(err, errcap, "unknown Blosc2 filter %u in slot %d of the extra values",
                        p->filters[i], i);
    }
    if (v[3] & ~B2_H5_EXT_FLAGS)
        return fail(err, errcap, "unknown flags 0x%X in the extra values (bit 0 use_dict, "
                    "bit 1 checksums)", v[3]);
    p->use_dict = (v[3] & B2_H5_EXT_USE_DICT) != 0;
    p->checksums = (v[3] & B2_H5_EXT_CHECKSUMS) != 0;
    memset(p->blockshape, 0, sizeof p->blockshape);
    if (nv > B2_H5_EXT_FIXED) {
        for (int i = 0; i < p->rank; i++) {
            unsigned b = v[B2_H5_EXT_FIXED + i];
            if (b == 0 || b > p->dims[i])
                return fail(err, errcap, "block dimension %d is %u, outside 1..%llu (the "
                            "chunk's)", i, b, (unsigned long long)p->dims[i]);
            p->blockshape[i] = (int32_t)b;
        }
    }
    p->ext = 1;
    return (int)(3 + nv);
}

int b2_h5_params_parse(size_t n, const unsigned *v, int compress, b2_h5_params *p,
                      char *err, size_t errcap)
{
    memset(p, 0, sizeof *p);
    p->nvalues = n;
    if (n < 4 || !v)
        return fail(err, errcap, "%zu cd_values, at least 4 are needed", n);
    p->blocksize = v[1];
    p->typesize = v[2];
    p->chunkbytes = v[3];
    if (n >= 5)
        p->clevel = (int)v[4];
    if (n >= 6)
        p->filter = (int)v[5];
    if (n >= 7) {
        /* the codec's meta byte rides in bits 8-15 (ndlz's cell size, zfp's
         * parameter); the reference filter never sets them */
        p->codec = (int)(v[6] & 0xff);
        p->codec_meta = (int)((v[6] >> 8) & 0xff);
        if (p->codec == B2_CODEC_NDLZ && p->codec_meta == 0)
            p->codec_meta = 4; /* ndlz needs a cell size: 4x4 unless told 8 */
    }
    if (n >= 8) {
        /* rank 1 is HDF5-Blosc2 2.0's one-dimensional layout (revision 2): a 1-D
         * b2nd frame per chunk; older writers record no rank below 2 */
        unsigned r = v[7];
        if (r < 1)
            return fail(err, errcap, "chunk rank 0 in cd_values[7]");
        if (r > B2_H5_READ_MAXDIM)
            return fail(err, errcap, "chunk rank %u in cd_values[7] exceeds %d", r,
                        B2_H5_READ_MAXDIM);
        if (n < 8 + (size_t)r)
            return fail(err, errcap, "%zu cd_values cannot hold %u chunk dimensions", n, r);
        p->rank = (int)r;
        for (unsigned i = 0; i < r; i++) {
            if (v[8 + i] == 0)
                return fail(err, errcap, "chunk dimension %u in cd_values is 0", i);
            p->dims[i] = v[8 + i];
        }
        size_t e = 8 + (size_t)r;
        if (n > e && v[e] == B2_H5_EXT_MARKER &&
            b2_h5_params_parse_ext(v + e, n - e, p, err, errcap) < 0) {
            if (compress)
                return -1;
            /* reading: every frame says how it was made; the values do not matter */
            p->ext = p->use_dict = p->checksums = 0;
            memset(p->blockshape, 0, sizeof p->blockshape);
        }
    }
    if (p->typesize == 0)
        return fail(err, errcap, "type size 0 in cd_values[2]");
    if (!compress)
        return 0;
    if (n < 6)
        return fail(err, errcap, "%zu cd_values, compression needs at least 6 "
                    "(clevel, filter and codec were not given)", n);
    if (b2_codec_name(p->codec) == NULL || (n >= 7 && v[6] >> 16))
        return fail(err, errcap, "unknown compressor code %d (meta %d) in cd_values[6]",
                    p->codec, p->codec_meta);
    if (p->clevel < 0 || p->clevel > 9)
        return fail(err, errcap, "clevel %u in cd_values[4] is outside 0..9", v[4]);
    if (v[5] > B2_FILTER_TRUNC_PREC && !p->ext) /* the extra values' filters replace it */
        return fail(err, errcap, "unknown Blosc2 filter %u in cd_values[5]", v[5]);
    if (p->filter == B2_FILTER_TRUNC_PREC && !p->ext)
        /* cd_values carry no precision; the reference then asks for 0 bits and fails */
        return fail(err, errcap, "trunc_prec (cd_values[5] = 4) needs a precision that "
                    "cd_values cannot carry");
    return 0;
}

int64_t b2_h5_memory_limit_from_env(void)
{
    const char *s = getenv("B2_H5_MEMORY_LIMIT");
    if (!s || !*s)
        return 0;
    char *end;
    double v = strtod(s, &end);
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    v *= (double)((int64_t)1 << shift);
    if (*end != '\0' || !(v >= 1) || v > 9e18)
        return 0; /* junk: the default rather than failing every chunk */
    return (int64_t)v;
}

int b2_h5_nthreads_from_env(void)
{
    const char *names[2] = {"B2_H5_NTHREADS", "BLOSC_NTHREADS"};
    for (int i = 0; i < 2; i++) {
        const char *s = getenv(names[i]);
        if (!s || !*s)
            continue;
        char *end;
        long t = strtol(s, &end, 10);
        if (*end != '\0' || t < 1)
            continue; /* ignore junk rather than fail every chunk */
        return t > 256 ? 256 : (int)t;
    }
    return 1;
}

int b2_h5_lookup_from_env(void)
{
    const char *s = getenv("B2_H5_CHUNK_LOOKUP");
    static const char *const names[] = {"auto", "coord", "read", "iter", "noiter"};
    for (int i = 0; s && i < (int)(sizeof names / sizeof *names); i++)
        if (!strcmp(s, names[i]))
            return i; /* the B2_H5_LOOKUP_* values, in order */
    return 0; /* unset or junk: the automatic choice rather than failing reads */
}
