/* Shared limits of the fuzz harnesses: what a harness refuses to attempt so a
 * run measures parsing, not allocation of sizes the input merely declares. */
#ifndef B2_FUZZ_COMMON_H
#define B2_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_MAX_OUTPUT (64u << 20) /* largest decoded size a harness allocates */

/* libFuzzer's entry point, also called by replay.c for regression files. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Little-endian value of n (<= 8) bytes at p, for parameters taken from input. */
static inline uint64_t fuzz_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

#endif
