/* SPDX-License-Identifier: BSD-3-Clause */
/* libb2 chunk layer: one Blosc2 chunk (header, blocks, streams), its codecs and
 * filters, compression, decompression and partial decoding (getitem).
 *
 * Byte-compatible with c-blosc2 3.3 in both directions. Contexts carry every
 * piece of mutable state (but for the process table of user filters and codecs,
 * b2_plugin.h, which is thread-safe): a context (b2_cctx, b2_dctx) may be used by
 * one thread at a time, and any number of contexts may be used concurrently;
 * functions taking no context may be called from any thread. All sizes are in bytes unless the
 * name says items. Functions returning int give a size/count >= 0 or a negative
 * B2_ERR_* code (see b2_common.h). */
#ifndef B2_CHUNK_H
#define B2_CHUNK_H

#include "b2_common.h"
#include "b2_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constants of the format ---- */
#define B2_MIN_HEADER_LEN 16           /* Blosc1 header */
#define B2_HEADER_LEN 32               /* Blosc2 extended header */
#define B2_MAX_OVERHEAD 32             /* dst of nbytes + 32 always holds a chunk */
#define B2_MAX_BUFFERSIZE (INT32_MAX - 32) /* largest nbytes of one chunk */
#define B2_MAX_TYPESIZE 255            /* larger typesizes are recorded as 1 */
#define B2_MAX_BLOCKSIZE 536866816     /* largest blocksize a reader accepts */
#define B2_MAX_FILTERS 6               /* filter pipeline slots */
#define B2_MAX_DICT_SIZE 32768         /* largest dictionary in a chunk */
#define B2_VERSION_FORMAT 5            /* chunk version written for regular chunks */
#define B2_VERSION_FORMAT_VL 6         /* chunk version of VL-block chunks */

/* Split modes: whether full blocks are cut into typesize streams. */
enum b2_splitmode {
    B2_SPLIT_ALWAYS = 1,
    B2_SPLIT_NEVER = 2,
    B2_SPLIT_AUTO = 3,
    B2_SPLIT_FORWARD_COMPAT = 4, /* the reference's default; behaves as AUTO */
};

/* Special-value chunk kinds (blosc2_flags bits 4-6). */
enum b2_special {
    B2_SPECIAL_NONE = 0,
    B2_SPECIAL_ZEROS = 1,
    B2_SPECIAL_NAN = 2,
    B2_SPECIAL_VALUE = 3,  /* one value repeated */
    B2_SPECIAL_UNINIT = 4, /* content unspecified: decoding leaves dst untouched */
};

/* ---- block geometry (n-dimensional plugins) ---- */

#define B2_GEOM_MAX_DIM 16

/* The block shape of an n-dimensional chunk, as a b2nd array's metalayer gives
 * it: the plugin filters ndcell and ndmean and the codecs ndlz and zfp work on
 * blocks of this shape (items of the header typesize, C order). ndim 0: none
 * known, and chunks using those plugins are refused. */
typedef struct b2_block_geometry {
    int ndim;
    int32_t blockshape[B2_GEOM_MAX_DIM];
} b2_block_geometry;

/* ---- inspecting a chunk ---- */

/* Everything the header says, decoded and validated. */
typedef struct b2_chunk_info {
    int version, versionlz;       /* header bytes 0 and 1 */
    int flags;                    /* header byte 2 */
    int typesize;                 /* 1..255 */
    int32_t nbytes;               /* uncompressed size */
    int32_t blocksize;            /* as stored (for VL chunks: number of blocks) */
    int32_t cbytes;               /* total chunk size, header included */
    int header_len;               /* 16 (Blosc1) or 32 */
    uint8_t filters[B2_MAX_FILTERS];      /* pipeline (rebuilt from flags for Blosc1) */
    uint8_t filters_meta[B2_MAX_FILTERS];
    int compcode;                 /* codec id (byte 22, or derived for Blosc1) */
    int compcode_meta;
    int codec_format;             /* flags >> 5 */
    int blosc2_flags, blosc2_flags2; /* bytes 31 and 30 */
    int special;                  /* enum b2_special */
    int memcpyed;                 /* raw data follows the header */
    int split;                    /* full blocks are split into typesize streams */
    int vlblocks;                 /* variable-length-block chunk */
    int has_dict;                 /* a dictionary section follows bstarts */
    int lazy;                     /* in-memory lazy chunk (frame reader only) */
    int32_t nblocks;              /* number of blocks */
    int32_t leftover;             /* size of a short last block, 0 if none */
    int32_t eff_blocksize;        /* blocksize clamped to nbytes (non-VL chunks) */
} b2_chunk_info;

/* Parse and validate the chunk header at src (only its 16 or 32 bytes need be
 * there: size may be less than cbytes). Returns B2_OK or an error. */
B2_API int b2_chunk_get_info(const void *src, size_t size, b2_chunk_info *info);

/* Name of a codec id ("blosclz", "lz4", "ndlz", ..., or a user codec's name in
 * the process table; b2_plugin.h), or NULL if unknown. */
B2_API const char *b2_codec_name(int compcode);
/* Codec id for a name (the same names), or B2_ERR_NOT_FOUND. */
B2_API int b2_codec_from_name(const char *name);
/* Name of a filter id ("shuffle", "bitshuffle", ..., or a user filter's name in
 * the process table), or NULL if unknown. */
B2_API const char *b2_filter_name(int id);
/* Filter id for a name (the same names), or B2_ERR_NOT_FOUND. */
B2_API int b2_filter_from_name(const char *name);
/* Name of a special kind ("none", "zeros", "nan", "value", "uninit"), or NULL. */
B2_API const char *b2_special_name(int special);

/* ---- decompression ---- */

typedef struct b2_dctx b2_dctx;

/* New decompression context using up to nthreads threads per call (<= 0 means 1).
 * Returns NULL when out of memory. */
B2_API b2_dctx *b2_dctx_new(int nthreads);
/* Free a context (NULL is fine). */
B2_API void b2_dctx_free(b2_dctx *dctx);
/* Change the number of threads used by later calls. */
B2_API int b2_dctx_set_nthreads(b2_dctx *dctx, int nthreads);
/* Number of threads later calls use. */
B2_API int b2_dctx_nthreads(const b2_dctx *dctx);
/* Message of the last failing call on this context ("" if none; see b2_common.h). */
B2_API const char *b2_dctx_last_error(const b2_dctx *dctx);
/* Most block scratch one chunk may take (<= 0: B2_DEFAULT_MEMORY_LIMIT); a chunk
 * declaring more fails with B2_ERR_LIMIT before anything is allocated. */
B2_API int b2_dctx_set_memory_limit(b2_dctx *dctx, int64_t bytes);

/* Decompress a whole chunk into dst (capacity dstcap). Returns nbytes or an error.
 * Uninit special chunks leave dst untouched (but for a postfilter: zeros). */
B2_API int b2_chunk_decompress(b2_dctx *dctx, const void *src, size_t srcsize,
                               void *dst, size_t dstcap);

/* Decode items [start, start+nitems) (units of the header typesize) into dst,
 * decoding only the blocks that hold them. Returns nitems*typesize or an error. */
B2_API int b2_chunk_getitem(b2_dctx *dctx, const void *src, size_t srcsize,
                            int64_t start, int64_t nitems, void *dst, size_t dstcap);

/* ---- decoding blocks straight into strided places ---- */

/* ---- compression ---- */

typedef struct b2_cparams {
    int codec;          /* enum b2_codec */
    int clevel;         /* 0..9; 0 stores the data uncompressed */
    int32_t typesize;   /* element size 1..536866816 (above 255 recorded as 1) */
    int32_t blocksize;  /* 0 = automatic (the reference's rule) */
    int splitmode;      /* enum b2_splitmode */
    uint8_t filters[B2_MAX_FILTERS];      /* applied in slot order 0..5 */
    uint8_t filters_meta[B2_MAX_FILTERS];
    int nthreads;       /* worker threads; output bytes do not depend on it */
    int use_dict;       /* train/store a dictionary (lz4, lz4hc, zstd) */
    uint8_t codec_meta; /* the codec's parameter byte (header byte 23; plugin codecs) */
    b2_block_geometry geometry; /* block shape for ndcell/ndmean/ndlz/zfp (ndim 0: none) */
    const b2_registry *registry; /* user filters/codecs, searched before the process
                                    table (b2_plugin.h); not owned; NULL: none */
} b2_cparams;

/* Fill p with the reference defaults: blosclz, clevel 5, typesize 8, shuffle in slot 5,
 * automatic blocksize, forward-compat split mode, 1 thread, no dictionary. */
B2_API void b2_cparams_init(b2_cparams *p);

typedef struct b2_cctx b2_cctx;

/* New compression context for the given parameters (validated; NULL on bad
 * parameters or no memory; b2_last_error_message() says why). */
B2_API b2_cctx *b2_cctx_new(const b2_cparams *p);
/* Free a context (NULL is fine). */
B2_API void b2_cctx_free(b2_cctx *cctx);
/* Check parameters; returns B2_OK or the error b2_cctx_new would hit. */
B2_API int b2_cparams_check(const b2_cparams *p);
/* Message of the last failing call on this context ("" if none; see b2_common.h). */
B2_API const char *b2_cctx_last_error(const b2_cctx *cctx);
/* The parameters a context was created with. */
B2_API const b2_cparams *b2_cctx_params(const b2_cctx *cctx);

/* Worst-case chunk size for nbytes of input (nbytes + B2_MAX_OVERHEAD). */
B2_API size_t b2_chunk_compress_bound(size_t nbytes);

/* Compress nbytes from src into dst (capacity dstcap). Returns the chunk size
 * (cbytes) or an error (B2_ERR_DST_TOO_SMALL when even a memcpy chunk does not fit). */
B2_API int b2_chunk_compress(b2_cctx *cctx, const void *src, size_t nbytes,
                             void *dst, size_t dstcap);

/* Write a special-value chunk (zeros, NaN, uninit, or value repeated; value has
 * typesize bytes and is only read for B2_SPECIAL_VALUE). Returns cbytes or an error. */
B2_API int b2_chunk_make_special(int special, int32_t typesize, int32_t nbytes,
                                 const void *value, void *dst, size_t dstcap);

#ifdef __cplusplus
}
#endif
#endif
