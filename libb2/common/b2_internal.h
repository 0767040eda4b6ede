/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal helpers shared by every layer (not installed). */
#ifndef B2_INTERNAL_H
#define B2_INTERNAL_H

#include <stdint.h>
#include <string.h>
#include "b2_common.h"

#define B2_HIDDEN __attribute__((visibility("hidden")))
#define B2_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- errors with detail (errors.c) ----
 * Every failure originates in B2_FAIL / B2_FAIL_CODE / B2_FAIL_IF: they record
 * "<strerror>: <detail>" for the calling thread (" (<function>)" appended in a
 * B2_ERROR_FUNCS build) and yield the code. Details speak to the user: the
 * offending value and where, no function names.
 * Formatting happens only on failure; success paths pay nothing. Do not use
 * them for codes that are internal signals a caller recovers from (e.g. "no lazy
 * path here, read the whole chunk"): those stay plain returns. */
typedef struct b2_errinfo {
    int code;
    char msg[B2_ERRMSG_LEN];
} b2_errinfo;

B2_HIDDEN int b2_err_record(int code, const char *func, const char *fmt, ...)
    __attribute__((cold, format(printf, 3, 4)));
B2_HIDDEN int b2_err_record_code(int code, const char *func) __attribute__((cold));
/* They yield `code` itself (evaluated twice: pass a constant or a plain variable)
 * so the compiler still sees which constant a path returns. */
#define B2_FAIL(code, ...) (b2_err_record((code), __func__, __VA_ARGS__), (code))
#define B2_FAIL_CODE(code) (b2_err_record_code((code), __func__), (code))
#define B2_FAIL_IF(cond, code, ...)                  \
    do {                                             \
        if (B2_UNLIKELY(cond))                       \
            return B2_FAIL((code), __VA_ARGS__);     \
    } while (0)

/* A public entry point on a context failed with code: copy the thread's record
 * into *e (making a plain one if the record is not about code). Returns code. */
B2_HIDDEN int b2_err_keep(b2_errinfo *e, int code, const char *func) __attribute__((cold));
/* Pass rc through, keeping the message in *e when it is an error. */
#define B2_KEEP(e, rc) b2_err_keep_if((e), (rc), __func__)
static inline int b2_err_keep_if(b2_errinfo *e, int rc, const char *func)
{
    return B2_UNLIKELY(rc < 0) ? b2_err_keep(e, rc, func) : rc;
}
static inline int64_t b2_err_keep_if64(b2_errinfo *e, int64_t rc, const char *func)
{
    return B2_UNLIKELY(rc < 0) ? b2_err_keep(e, (int)rc, func) : rc;
}
#define B2_KEEP64(e, rc) b2_err_keep_if64((e), (rc), __func__)
/* Rows of a layer's handle-API table (frame_api.h, b2nd_api.h):
 * X(RET, NAME, H, PARAMS, ARGS). B2_HANDLE_BODY declares NAME_body, which an
 * implementation file defines; B2_HANDLE_WRAP defines the public NAME, which runs
 * the body and, when it fails, keeps the message in handle H (H may be NULL). */
#define B2_HANDLE_BODY(RET, NAME, H, PARAMS, ARGS) B2_HIDDEN RET NAME##_body PARAMS;
#define B2_HANDLE_WRAP(RET, NAME, H, PARAMS, ARGS)                                \
    RET NAME PARAMS                                                               \
    {                                                                             \
        RET rc_ = NAME##_body ARGS;                                               \
        return H ? (RET)b2_err_keep_if64(&(H)->err, rc_, #NAME) : rc_;            \
    }
/* Put "what: " (a file name, say) in front of the detail of the thread's record
 * for code (made plain first if the record is about another code). Returns code. */
B2_HIDDEN int b2_err_prefix(int code, const char *func, const char *what) __attribute__((cold));
#define B2_PREFIX(code, what) b2_err_prefix((code), __func__, (what))
/* "; it looks like <kind>" for the first n bytes at p of a file that is no
 * Blosc2 one (an .npy array, HDF5, zip, gzip), "" when they say nothing known. */
B2_HIDDEN const char *b2_looks_like(const uint8_t *p, size_t n);
/* The detail part of the thread's last record ("" if none), so a caller can add
 * its own context: B2_FAIL(rc, "block %d: %s", j, b2_err_detail()). */
B2_HIDDEN const char *b2_err_detail(void);
/* The message kept in *e, "" if none. */
B2_HIDDEN const char *b2_err_text(const b2_errinfo *e);
/* For the worker pool: failures recorded on this thread so far, the record, and
 * replacing the record (moving a helper thread's failure to the caller). */
B2_HIDDEN unsigned b2_err_count(void);
B2_HIDDEN const b2_errinfo *b2_err_thread(void);
B2_HIDDEN void b2_err_set_thread(const b2_errinfo *e);

/* B2_OK when what needs need bytes within limit (<= 0: B2_DEFAULT_MEMORY_LIMIT),
 * else a B2_ERR_LIMIT failure naming both and setter, the call that raises it. */
B2_HIDDEN int b2_mem_check(int64_t limit, int64_t need, const char *what, const char *setter);
static inline int64_t b2_mem_limit_or_default(int64_t limit)
{
    return limit > 0 ? limit : B2_DEFAULT_MEMORY_LIMIT;
}

/* Little-endian loads and stores: memcpy keeps them alignment-safe and makes
 * each one load or store (the decoders' hot loops use them); big-endian
 * machines swap the bytes. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define B2_LE32(v) __builtin_bswap32(v)
#define B2_LE64(v) __builtin_bswap64(v)
#else
#define B2_LE32(v) (v)
#define B2_LE64(v) (v)
#endif
static inline uint32_t b2_load_le32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return B2_LE32(v);
}
static inline int32_t b2_load_le32s(const uint8_t *p) { return (int32_t)b2_load_le32(p); }
static inline uint64_t b2_load_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return B2_LE64(v);
}
static inline void b2_store_le32(uint8_t *p, uint32_t v)
{
    v = B2_LE32(v);
    memcpy(p, &v, 4);
}
static inline void b2_store_le64(uint8_t *p, uint64_t v)
{
    v = B2_LE64(v);
    memcpy(p, &v, 8);
}
/* The quiet NaN a NaN-special chunk decodes to (ts 4 or 8 bytes into out): a
 * float or double in the machine's own byte order, as the reference writes it
 * and as readers take typed data. */
static inline void b2_nan_bytes(int32_t ts, uint8_t *out)
{
    uint32_t f = 0x7fc00000u;
    uint64_t d = 0x7ff8000000000000ull;
    if (ts == 4)
        memcpy(out, &f, 4);
    else
        memcpy(out, &d, 8);
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

/* CPU features for the SIMD dispatch (common/cpu.c), detected once per process
 * (x86: CPUID and the OS's XCR0; aarch64: NEON is baseline). B2_SIMD=generic|
 * sse2|avx2|avx512|avx512gfni|neon caps the level, so tests can exercise the
 * lower kernels: avx512 means AVX-512 without the GFNI bit shuffles, avx512gfni
 * (or no cap) allows them on CPUs with AVX512-VBMI and GFNI.
 * Levels are a ladder per architecture, from 0 (generic) up, and index the
 * kernel tables: x86 has sse2, avx2, avx512 above generic, aarch64 has neon, so
 * B2_SIMD_NEON shares its number with B2_SIMD_SSE2 (a build has one ladder).
 * A variant is a level, or B2_SIMD_AVX512GFNI: AVX-512 with the GFNI kernels. */
enum b2_simd_level {
    B2_SIMD_GENERIC = 0,
    B2_SIMD_SSE2 = 1,
    B2_SIMD_AVX2 = 2,
    B2_SIMD_AVX512 = 3,
    B2_SIMD_AVX512GFNI = 4, /* a variant, not a level: b2_simd_level() says avx512 */
    B2_SIMD_NEON = 1,
};
/* The top of this architecture's ladder (whether or not the build has its kernels). */
#if defined(__aarch64__)
#define B2_SIMD_TOP B2_SIMD_NEON
#else
#define B2_SIMD_TOP B2_SIMD_AVX512
#endif
/* The variant the dispatch runs now: one load once resolved. */
B2_HIDDEN int b2_simd_variant(void);
B2_HIDDEN int b2_simd_level(void);
/* "generic", then "sse2", "avx2", "avx512", "avx512gfni" on x86 or "neon" on
 * aarch64: names a level or a variant (tests and benchmarks print it). */
B2_HIDDEN const char *b2_simd_level_name(int level);
/* 1 when the variant is avx512gfni: AVX-512, and the CPU also has AVX512-VBMI
 * and GFNI, and B2_SIMD does not cap it at avx512. */
B2_HIDDEN int b2_simd_gfni(void);
/* Tests only: cap the level for the whole process (-1 lifts the cap). */
B2_HIDDEN void b2_simd_force_level(int level);

#endif
