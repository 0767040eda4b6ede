/* SPDX-License-Identifier: BSD-3-Clause */
/* Byte shuffle (doc/format/filters.md §2): the portable kernel (kernel_table.c dispatches).
 * Layout: q = n / unit whole elements become unit planes of q bytes
 * (out[j*q + i] = in[i*unit + j]); the n % unit spare bytes are copied in place. */
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

/* Two loop orders, each inlined with a constant unit for the common sizes. One
 * element at a time: compilers vectorize it well for small units. In runs of 16
 * elements, plane by plane: each plane then gets 16 consecutive bytes at a time,
 * where byte-by-byte stores into many planes a power of two apart keep evicting
 * each other from the same L1 sets (16-byte units: 10x faster). */
#define RUN 16

static inline __attribute__((always_inline)) void
shuffle_elems(int32_t s, int32_t q, int32_t i0, int32_t i1, const uint8_t *in, uint8_t *out)
{
    for (int32_t i = i0; i < i1; i++) {
        const uint8_t *e = in + (size_t)i * s;
        for (int32_t j = 0; j < s; j++)
            out[(size_t)j * q + i] = e[j];
    }
}

static inline __attribute__((always_inline)) void
shuffle_runs(int32_t s, int32_t q, int32_t i0, int32_t i1, const uint8_t *in, uint8_t *out)
{
    for (int32_t i = i0; i < i1; i += RUN) {
        int32_t e = i1 - i < RUN ? i1 : i + RUN;
        for (int32_t j = 0; j < s; j++) {
            uint8_t *o = out + (size_t)j * q;
            for (int32_t k = i; k < e; k++)
                o[k] = in[(size_t)k * s + j];
        }
    }
}

static inline __attribute__((always_inline)) void
unshuffle_elems(int32_t s, int32_t q, int32_t i0, int32_t i1, const uint8_t *in, uint8_t *out)
{
    for (int32_t i = i0; i < i1; i++) {
        uint8_t *e = out + (size_t)i * s;
        for (int32_t j = 0; j < s; j++)
            e[j] = in[(size_t)j * q + i];
    }
}

static inline __attribute__((always_inline)) void
unshuffle_runs(int32_t s, int32_t q, int32_t i0, int32_t i1, const uint8_t *in, uint8_t *out)
{
    for (int32_t i = i0; i < i1; i += RUN) {
        int32_t e = i1 - i < RUN ? i1 : i + RUN;
        for (int32_t j = 0; j < s; j++) {
            const uint8_t *p = in + (size_t)j * q;
            for (int32_t k = i; k < e; k++)
                out[(size_t)k * s + j] = p[k];
        }
    }
}

void b2_shuffle_range(int32_t s, int32_t q, int32_t i0, int32_t i1,
                      const uint8_t *in, uint8_t *out)
{
    switch (s) {
    case 2: shuffle_elems(2, q, i0, i1, in, out); break;
    case 4: shuffle_elems(4, q, i0, i1, in, out); break;
    case 8: shuffle_runs(8, q, i0, i1, in, out); break;
    case 16: shuffle_runs(16, q, i0, i1, in, out); break;
    default: shuffle_runs(s, q, i0, i1, in, out); break;
    }
}

void b2_unshuffle_range(int32_t s, int32_t q, int32_t i0, int32_t i1,
                        const uint8_t *in, uint8_t *out)
{
    switch (s) {
    case 2: unshuffle_elems(2, q, i0, i1, in, out); break;
    case 4: unshuffle_elems(4, q, i0, i1, in, out); break;
    case 8: unshuffle_elems(8, q, i0, i1, in, out); break;
    case 16: unshuffle_runs(16, q, i0, i1, in, out); break;
    default: unshuffle_runs(s, q, i0, i1, in, out); break;
    }
}

void b2_shuffle_generic(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst)
{
    if (n <= 0)
        return;
    if (unit <= 1 || n < unit) {  /* unit 1 (or no whole element): a plain copy */
        memcpy(dst, src, (size_t)n);
        return;
    }
    int32_t q = n / unit;
    b2_shuffle_range(unit, q, 0, q, src, dst);
    memcpy(dst + (size_t)q * unit, src + (size_t)q * unit, (size_t)(n - q * unit));
}

void b2_unshuffle_generic(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst)
{
    if (n <= 0)
        return;
    if (unit <= 1 || n < unit) {
        memcpy(dst, src, (size_t)n);
        return;
    }
    int32_t q = n / unit;
    b2_unshuffle_range(unit, q, 0, q, src, dst);
    memcpy(dst + (size_t)q * unit, src + (size_t)q * unit, (size_t)(n - q * unit));
}

void b2_unshuffle_planes_generic(int32_t unit, const uint8_t *const *pl, int32_t i0, int32_t n,
                                 uint8_t *out)
{
    for (int32_t i = 0; i < n; i += RUN) {
        int32_t e = n - i < RUN ? n : i + RUN;
        for (int32_t j = 0; j < unit; j++) {
            const uint8_t *p = pl[j] + i0;
            for (int32_t k = i; k < e; k++)
                out[(size_t)k * unit + j] = p[k];
        }
    }
}

void b2_shuffle_part_generic(int32_t unit, int32_t q, int32_t n, const uint8_t *in, uint8_t *out)
{
    if (unit <= 1)
        memcpy(out, in, (size_t)n);
    else if (n > 0)
        b2_shuffle_range(unit, q, 0, n, in, out);
}

void b2_unshuffle_part_generic(int32_t unit, int32_t q, int32_t n, const uint8_t *in, uint8_t *out)
{
    if (unit <= 1)
        memcpy(out, in, (size_t)n);
    else if (n > 0)
        b2_unshuffle_range(unit, q, 0, n, in, out);
}
