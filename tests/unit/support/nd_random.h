/* SPDX-License-Identifier: BSD-3-Clause */
/* Random parts of the randomized b2nd tests' arrays, drawn from the program's
 * own stream (test_rng.h): header-only, so each test keeps its one stream and
 * its cases do not depend on what other programs draw. */
#ifndef B2_TEST_ND_RANDOM_H
#define B2_TEST_ND_RANDOM_H

#include <stdlib.h>
#include <string.h>

#include "b2_nd.h"
#include "test_rng.h"

/* Defaults, then blosclz, lz4 or zstd at clevel 0..5 with no, byte or bit
 * shuffle, and the delta filter one time in delta_odds (0: never). */
static inline void ndt_random_cparams(b2_cparams *cp, uint32_t delta_odds)
{
    static const int codecs[] = {B2_CODEC_BLOSCLZ, B2_CODEC_LZ4, B2_CODEC_ZSTD};
    b2_cparams_init(cp);
    cp->codec = codecs[rnd() % 3];
    cp->clevel = (int)rnd_in(0, 5);
    cp->filters[5] = (uint8_t)rnd_in(0, 2);
    if (delta_odds && rnd() % delta_odds == 0)
        cp->filters[4] = B2_FILTER_DELTA;
}

/* The model (C order, items of ts bytes) of an array b2_nd_create makes with
 * *fill and value: zeros, or one time in 3 a random value (ts <= 16). */
static inline uint8_t *ndt_new_model(int64_t items, size_t ts, int *fill, uint8_t value[16])
{
    uint8_t *model = calloc((size_t)items, ts);
    *fill = rnd() % 3 == 0 ? B2_ND_FILL_VALUE : B2_ND_FILL_ZEROS;
    for (size_t i = 0; i < ts; i++)
        value[i] = (uint8_t)rnd();
    if (*fill == B2_ND_FILL_VALUE && model)
        for (int64_t k = 0; k < items; k++)
            memcpy(model + k * (int64_t)ts, value, ts);
    return model;
}

#endif
