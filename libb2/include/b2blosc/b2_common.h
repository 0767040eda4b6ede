/* SPDX-License-Identifier: BSD-3-Clause */
/* libb2 — common definitions shared by every layer: version, error codes,
 * error messages, codec and filter ids.
 *
 * Every libb2 function that can fail returns a negative B2_ERR_* code;
 * b2_strerror() turns it into a short English sentence. The failure also leaves
 * a detailed message (what failed, the offending value) on the
 * calling thread, and calls on a context keep it in the context too:
 * b2_last_error_message() and b2_{cctx,dctx,schunk,nd}_last_error().
 *
 * Threads (checked under ThreadSanitizer by tests/unit/test_threads.c):
 *  - functions taking no object (these, b2_chunk_get_info, the name lookups,
 *    b2_chunk_make_special, b2_register_*) may be called from any thread;
 *  - a b2_cctx or b2_dctx is used by one thread at a time (b2_chunk.h);
 *  - a b2_schunk or b2_nd_array too, except that any number of threads may read
 *    one at once while none modifies it (the list: b2_frame.h, b2_nd.h);
 *  - a b2_registry is filled first, then only read, by any number of threads. */
#ifndef B2_COMMON_H
#define B2_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(B2_SHARED_BUILD)
#define B2_API __declspec(dllexport)
#elif defined(__GNUC__)
#define B2_API __attribute__((visibility("default")))
#else
#define B2_API
#endif

#define B2_VERSION_MAJOR 0
#define B2_VERSION_MINOR 2
#define B2_VERSION_PATCH 0
#define B2_VERSION_STRING "0.2.0"

/* Error codes. 0 is success; every error is negative. */
enum b2_error {
    B2_OK = 0,
    B2_ERR_INVALID_PARAM = -1,   /* a caller-supplied argument is out of range */
    B2_ERR_TRUNCATED = -2,       /* input ends before a structure it announces */
    B2_ERR_INVALID_HEADER = -3,  /* header fields are inconsistent or out of range */
    B2_ERR_CORRUPT = -4,         /* compressed payload does not decode as described */
    B2_ERR_UNSUPPORTED = -5,     /* valid format feature this build cannot handle */
    B2_ERR_NOMEM = -6,           /* memory allocation failed */
    B2_ERR_DST_TOO_SMALL = -7,   /* output buffer cannot hold the result */
    B2_ERR_CODEC = -8,           /* a codec library reported a failure */
    B2_ERR_FILTER = -9,          /* a filter cannot run with these parameters */
    B2_ERR_IO = -10,             /* reading or writing a file failed */
    B2_ERR_THREAD = -11,         /* a worker thread could not be started */
    B2_ERR_NOT_FOUND = -12,      /* named item (metalayer, chunk, file) does not exist */
    B2_ERR_RANGE = -13,          /* index or item range outside the object */
    B2_ERR_EXISTS = -14,         /* item already exists */
    B2_ERR_FORMAT = -15,         /* input is not in any format libb2 recognises */
    B2_ERR_DOES_NOT_FIT = -16,   /* data would not fit the size limits of the format */
    B2_ERR_READ_ONLY = -17,      /* write on a handle opened read-only */
    B2_ERR_BAD_CODEC = -18,      /* codec id this library does not know */
    B2_ERR_LIMIT = -19,          /* input declares more memory than the handle's limit allows */
    B2_ERR_CHECKSUM = -20,       /* stored bytes do not match their recorded checksum */
    B2_ERR_CALLBACK = -21,       /* a user callback (prefilter, postfilter) returned an error */
};

/* Memory limit of decompression contexts, frame handles and arrays unless set
 * otherwise (b2_dctx_set_memory_limit, b2_open_options.memory_limit, ...): what
 * one of them may allocate because its input says so (1 GiB). */
#define B2_DEFAULT_MEMORY_LIMIT ((int64_t)1 << 30)

/* Longest detailed error message, terminating NUL included; a longer one ends
 * at a word boundary with "..." (never inside a number, hash or name). */
#define B2_ERRMSG_LEN 512

/* The calling thread's last error, "<b2_strerror text>: <detail>" ("" if none);
 * per thread, like errno, until its next failing call. */
B2_API const char *b2_last_error_message(void);
/* Code matching b2_last_error_message() (B2_OK if none). */
B2_API int b2_last_error_code(void);

/* Codec ids (chunk header byte 22, "compcode"). Shared by every layer: chunk and
 * frame headers and the HDF5 filter's cd_values all use them. */
enum b2_codec {
    B2_CODEC_BLOSCLZ = 0,
    B2_CODEC_LZ4 = 1,
    B2_CODEC_LZ4HC = 2,
    B2_CODEC_ZLIB = 4,
    B2_CODEC_ZSTD = 5,
    /* Registered plugin codecs (doc/format/plugins.md): codec format 6 in the flags, the id
     * in byte 22 and their parameter in byte 23 (compcode_meta). */
    B2_CODEC_NDLZ = 32,      /* 2-D LZ over 4x4 / 8x8 cells (meta: 4 or 8) */
    B2_CODEC_ZFP_ACC = 33,   /* zfp fixed accuracy (meta: int8 exponent), lossy */
    B2_CODEC_ZFP_PREC = 34,  /* zfp fixed precision (meta: bit planes offset), lossy */
    B2_CODEC_ZFP_RATE = 35,  /* zfp fixed rate (meta: percent of the bits), lossy */
    B2_CODEC_USER_FIRST = 160, /* ids 160..255: codecs an application registers */
};

/* Filter ids (header bytes 16-21). */
enum b2_filter {
    B2_FILTER_NONE = 0,
    B2_FILTER_SHUFFLE = 1,
    B2_FILTER_BITSHUFFLE = 2,
    B2_FILTER_DELTA = 3,
    B2_FILTER_TRUNC_PREC = 4,
    /* Registered plugin filters (doc/format/plugins.md). */
    B2_FILTER_NDCELL = 32,          /* reorders each block cell by cell (meta: cell side) */
    B2_FILTER_NDMEAN = 33,          /* lossy: each cell replaced by its mean (meta: cell side) */
    B2_FILTER_BYTEDELTA_BUGGY = 34, /* decode only: the pre-fix bytedelta */
    B2_FILTER_BYTEDELTA = 35,
    B2_FILTER_INT_TRUNC = 36,       /* lossy, meta = signed bits */
    B2_FILTER_USER_FIRST = 160,     /* ids 160..255: filters an application registers */
};

/* Short description of an error code (never NULL; unknown codes get a generic text). */
B2_API const char *b2_strerror(int code);

/* Library version string, e.g. "0.2.0". */
B2_API const char *b2_version(void);

#ifdef __cplusplus
}
#endif
#endif
