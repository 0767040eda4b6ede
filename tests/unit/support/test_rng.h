/* SPDX-License-Identifier: BSD-3-Clause */
/* The C tests' random numbers: one xorshift64 stream per program, started from
 * the seed main gives (test_rng_seed), so every run draws the same cases. */
#ifndef B2_TEST_RNG_H
#define B2_TEST_RNG_H

#include <stdint.h>

static uint64_t test_rng_state = 0x9E3779B97F4A7C15ULL;

static inline void test_rng_seed(uint64_t seed)
{
    test_rng_state = seed;
}

static inline uint32_t rnd(void)
{
    test_rng_state ^= test_rng_state << 13;
    test_rng_state ^= test_rng_state >> 7;
    test_rng_state ^= test_rng_state << 17;
    return (uint32_t)(test_rng_state >> 16);
}

/* Uniform-ish in [lo, hi] (inclusive; hi >= lo). */
static inline int64_t rnd_in(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

#endif
