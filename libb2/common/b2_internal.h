/* Internal helpers shared by every layer (not installed). */
#ifndef B2_INTERNAL_H
#define B2_INTERNAL_H

#include <stdint.h>
#include <string.h>

#define B2_HIDDEN __attribute__((visibility("hidden")))

/* Little-endian loads and stores; memcpy keeps them alignment-safe. */
static inline uint32_t b2_load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline int32_t b2_load_le32s(const uint8_t *p) { return (int32_t)b2_load_le32(p); }
static inline uint64_t b2_load_le64(const uint8_t *p)
{
    return (uint64_t)b2_load_le32(p) | (uint64_t)b2_load_le32(p + 4) << 32;
}
static inline void b2_store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void b2_store_le64(uint8_t *p, uint64_t v)
{
    b2_store_le32(p, (uint32_t)v);
    b2_store_le32(p + 4, (uint32_t)(v >> 32));
}
static inline uint32_t b2_load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
static inline uint64_t b2_load_be64(const uint8_t *p)
{
    return (uint64_t)b2_load_be32(p) << 32 | b2_load_be32(p + 4);
}
static inline void b2_store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline void b2_store_be64(uint8_t *p, uint64_t v)
{
    b2_store_be32(p, (uint32_t)(v >> 32));
    b2_store_be32(p + 4, (uint32_t)v);
}

/* CPU features for the SIMD dispatch, read from the CPU on each call (cheap; no
 * library-owned global state). Honours B2_SIMD=generic|sse2|avx2 to cap the level,
 * so tests can exercise the portable kernels. */
enum b2_simd_level { B2_SIMD_GENERIC = 0, B2_SIMD_SSE2 = 1, B2_SIMD_AVX2 = 2 };
B2_HIDDEN int b2_simd_level(void);
/* Tests only: cap the level for the whole process (-1 lifts the cap). */
B2_HIDDEN void b2_simd_force_level(int level);

#endif
