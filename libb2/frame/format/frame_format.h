/* SPDX-License-Identifier: BSD-3-Clause */
/* The frame format (frame layer, internal): header, metalayers, trailer and
 * index parsed from bytes into a plain value, frame_layout, and serialised back
 * (doc/format/frame.md).
 *
 * Why a module of its own: the format is the part of a frame every store and
 * every handle agree on, and the part hostile input reaches first. Kept apart
 * from the super-chunk object and its stores, it does no I/O and knows no
 * handle: bytes in, a layout out (and back), so the fuzz targets and the unit
 * tests call it on a buffer, and the object (frame_load.c, frame_layout.c) is
 * left with reading, writing and keeping state. It is the lowest frame
 * sub-layer: object -> store -> format -> chunk/ (scripts/layer_graph.py checks
 * that no format file calls a file above it).
 *
 * Files: frame_format.c (whole-frame parse and serialise, every size, offset
 * and count check of doc/format/frame.md §9.1), frame_header.c, frame_trailer.c,
 * frame_metacodec.c (the metalayer codec header and trailer share) and
 * frame_index.c. This header includes no handle or store header.
 *
 * A file frame is read piecewise, so parsing is offered both ways: b2_frame_parse
 * takes a whole frame in memory; the steps it is made of (b2_frame_parse_fixed,
 * _check_len, _parse_head, _parse_trailer, _index_section, _parse_index) take the
 * pieces a reader has read, in that order, and check exactly the same.
 *
 * Every function returns B2_OK (or a count/length) or a negative B2_ERR_* code
 * with detail (b2_err_detail). */
#ifndef B2_FRAME_FORMAT_H
#define B2_FRAME_FORMAT_H

#include <msgpack.h>
#include <stdint.h>
#include <stdlib.h>

#include "b2_chunk.h"
#include "b2_frame.h" /* B2_FRAME_MAX_METALAYERS, B2_FRAME_MAX_NAME */
#include "b2_internal.h"

#define FRAME_HEADER_FIXED 87      /* bytes of the header read by position */
#define FRAME_TRAILER_MIN 25       /* smallest trailer the reference accepts */
#define FRAME_TRAILER_EMPTY 35     /* trailer without vlmetalayers */
#define FRAME_MAX_VLMETA_READ 8192 /* reference reader's limit */
#define FRAME_MAX_NCHUNKS (INT32_MAX / 8)
#define FRAME_MAGIC "b2frame"

/* Index entries of special chunks: the top byte is 0x80 | special code. */
#define FRAME_IDX_SPECIAL(code) ((int64_t)(((uint64_t)(0x80u | (code))) << 56))

enum { FRAME_TYPE_CONTIGUOUS = 0, FRAME_TYPE_SPARSE = 1 };

/* Every header field (doc/format/frame.md §2), decoded. */
typedef struct frame_hdr {
    int32_t header_len;
    int64_t frame_len;
    uint8_t general_flags, frame_type, codec_flags, other_flags;
    int64_t nbytes, cbytes;
    int32_t typesize, blocksize, chunksize;
    int16_t tcomp, tdecomp;
    int has_vlmeta;
    uint8_t filters[B2_MAX_FILTERS], udcodec, compcode_meta;
    uint8_t filters_meta[B2_MAX_FILTERS], other_flags2;
} frame_hdr;

/* A metalayer (content: user bytes) or vlmetalayer (content: a Blosc2 chunk). */
typedef struct frame_meta {
    char name[B2_FRAME_MAX_NAME + 1];
    uint8_t *content;
    int32_t len;
} frame_meta;

/* A frame as a plain value: what its header, trailer and index say, and where
 * each section lies. A parsed layout owns its metalayer contents, vlmeta and
 * index (b2_frame_layout_free); a layout built as a view of other state owns
 * nothing and is not freed. */
typedef struct frame_layout {
    frame_hdr h;
    int nmeta;
    frame_meta meta[B2_FRAME_MAX_METALAYERS];
    int nvlmeta;
    frame_meta *vlmeta;    /* nvlmeta entries (malloc'ed; NULL when parsed with none) */
    int64_t nchunks;
    int64_t *index;        /* nchunks entries; NULL while uniform (or empty) */
    int64_t index_uniform; /* every entry, when index is NULL and nchunks > 0 */
    int64_t trailer_len;
    /* Sections, as byte offsets from the frame's start. A sparse frame keeps
     * its chunks in files of their own: its chunks section is empty. */
    int64_t chunks_off, chunks_len; /* contiguous: [header_len, + cbytes) */
    int64_t index_off, index_len;   /* index_len 0: no index chunk (nbytes 0) */
    int64_t trailer_off;            /* frame_len - trailer_len */
} frame_layout;

/* Entry i of the layout's index (a uniform index is not expanded). */
static inline int64_t frame_layout_entry(const frame_layout *L, int64_t i)
{
    return L->index ? L->index[i] : L->index_uniform;
}

/* ---- frame_format.c: a whole frame, or its pieces in reading order ---- */
/* Parse and check a whole frame of len bytes at buf into L (zeroed first; freed
 * on failure). sparse: the index file of a sparse frame; exact: frame_len must
 * be len (memory frames), else at most len. dctx decodes the index chunk (NULL:
 * one is made); mem_limit bounds what the frame's contents may allocate (0: default). */
B2_HIDDEN int b2_frame_parse(const uint8_t *buf, int64_t len, int sparse, int exact, b2_dctx *dctx,
                             int64_t mem_limit, frame_layout *L);
/* Step 1: the fixed 87 header bytes at p into h, with the frame type sparse asks for. */
B2_HIDDEN int b2_frame_parse_fixed(const uint8_t *p, int sparse, frame_hdr *h);
/* Step 2: h's frame_len against the avail bytes the storage holds (exact: equal). */
B2_HIDDEN int b2_frame_check_len(const frame_hdr *h, int64_t avail, int exact);
/* Step 3: with L->h parsed from hdr (its header_len bytes) and last (the frame's
 * last FRAME_TRAILER_MIN bytes): locate the trailer, parse the metalayers. */
B2_HIDDEN int b2_frame_parse_head(frame_layout *L, const uint8_t *hdr, const uint8_t *last);
/* Step 4: the trailer's L->trailer_len bytes at t: the vlmetalayers. */
B2_HIDDEN int b2_frame_parse_trailer(frame_layout *L, const uint8_t *t);
/* Step 5: where the chunks and the index chunk lie (checked against the trailer). */
B2_HIDDEN int b2_frame_index_section(frame_layout *L, int sparse);
/* Step 6: decode the index chunk (L->index_len bytes at ib; unused when the frame
 * holds no data) and check every entry against the header (and, sparse, the ids). */
B2_HIDDEN int b2_frame_parse_index(frame_layout *L, int sparse, b2_dctx *dctx, int64_t mem_limit,
                                   const uint8_t *ib);
/* Free what a parsed layout owns and zero it. */
B2_HIDDEN void b2_frame_layout_free(frame_layout *L);

/* Serialise L's index chunk and trailer (malloc'ed; *idx NULL when nchunks is 0)
 * and update the header fields they decide (header_len, general flags, vlmeta
 * flag). cp: the frame's parameters (index filters); runlength: one value for
 * equal entries; sparse: chunk offsets do not depend on the header's size. */
B2_HIDDEN int b2_frame_layout_parts(frame_layout *L, const b2_cparams *cp, int runlength, int sparse,
                                    uint8_t **idx, int32_t *idx_len, uint8_t **trl, int64_t *trl_len);
/* Serialise the whole frame: header, the chunks_len bytes at chunks, index and
 * trailer, into a malloc'ed *out of *len bytes; L's header and sections follow. */
B2_HIDDEN int b2_frame_serialize(frame_layout *L, const b2_cparams *cp, int runlength, int sparse,
                                 const uint8_t *chunks, int64_t chunks_len, uint8_t **out,
                                 int64_t *len);

/* ---- frame_metacodec.c: the metalayer layout header and trailer share ---- */
/* Check the metalayer layout "93 CD idx DE n {fixstr D2 off}* DC n {C6 len data}*" at p
 * (len bytes); returns the entry count (<= maxn) or an error. */
B2_HIDDEN int b2_frame_check_meta_layout(const uint8_t *p, int64_t len, int maxn);
/* Decode a checked layout of n entries with msgpack-c into meta (contents copied);
 * value offsets are relative to p - base and must be below limit. */
B2_HIDDEN int b2_frame_decode_meta(const uint8_t *p, int64_t len, int64_t base, int64_t limit, int n,
                                frame_meta *meta);
/* Pack the metalayer layout (array of 3) into sb; value offsets are base + position
 * in sb; idx_from_cd selects the trailer's idx_size rule. */
B2_HIDDEN int b2_frame_pack_meta(msgpack_sbuffer *sb, const frame_meta *m, int n, int64_t base,
                              int idx_from_cd);
/* Free the contents of n metalayers. */
B2_HIDDEN void b2_frame_meta_free_all(frame_meta *m, int n);

/* ---- frame_header.c ---- */
/* Parse and validate the fixed 87 header bytes. */
B2_HIDDEN int b2_frame_header_parse_fixed(const uint8_t *p, frame_hdr *h);
/* Parse the metalayers section of a header of h->header_len bytes at p. */
B2_HIDDEN int b2_frame_meta_parse(const uint8_t *p, int32_t header_len, frame_meta *meta, int *nmeta);
/* Size of a header holding these metalayers. */
B2_HIDDEN int64_t b2_frame_header_size(const frame_meta *meta, int nmeta);
/* Write the full header (fixed part + metalayers) into out (b2_frame_header_size bytes). */
B2_HIDDEN int b2_frame_header_write(const frame_hdr *h, const frame_meta *meta, int nmeta, uint8_t *out);
/* Recompute general_flags from chunksize and VL-block use. */
B2_HIDDEN uint8_t b2_frame_general_flags(int32_t chunksize, int vlblocks);
/* Initialise header fields for a new, empty frame with these cparams. */
B2_HIDDEN void b2_frame_header_init(frame_hdr *h, const b2_cparams *cp, int frame_type);
/* Compression parameters for later appends, as the header states them. */
B2_HIDDEN void b2_frame_header_cparams(const frame_hdr *h, b2_cparams *p);

/* ---- frame_trailer.c ---- */
/* Locate the trailer from the frame's last FRAME_TRAILER_MIN bytes; sets *trailer_len. */
B2_HIDDEN int b2_frame_trailer_locate(const uint8_t *last, int64_t frame_len, int64_t *trailer_len);
/* Parse a trailer of tlen bytes; allocates *vl (freed with b2_frame_meta_free_all). */
B2_HIDDEN int b2_frame_trailer_parse(const uint8_t *t, int64_t tlen, frame_meta **vl, int *nvl);
/* Serialize the trailer into a malloc'ed buffer. */
B2_HIDDEN int b2_frame_trailer_write(const frame_meta *vl, int nvl, uint8_t **out, int64_t *len);

/* ---- frame_index.c ---- */
/* Decompress an index chunk of at most avail bytes at p into a malloc'ed array of
 * n entries; n < 0 means "derive from the chunk" (chunksize 0). A run-length index
 * (all entries equal) is not expanded: *out is NULL and *uniform the entry. */
B2_HIDDEN int b2_frame_index_decode(b2_dctx *dctx, int64_t mem_limit, const uint8_t *p, int64_t avail, int64_t n,
                                 int64_t **out, int64_t *nout, int64_t *uniform);
/* Compress n entries into a malloc'ed index chunk (the reference parameters; as a
 * run-length chunk when runlength is set and all entries are equal, or when idx is
 * NULL: n copies of uniform). */
B2_HIDDEN int b2_frame_index_encode(const int64_t *idx, int64_t n, int64_t uniform,
                                 const b2_cparams *base, int runlength, uint8_t **out,
                                 int32_t *len);
/* Special code of an index entry (1, 2, 4), 0 for a regular entry, or an error. */
B2_HIDDEN int b2_frame_index_special(int64_t entry);
/* nchunks implied by header fields when the index is not needed (-1: from index). */
B2_HIDDEN int b2_frame_nchunks_from_header(const frame_hdr *h, int64_t *n);

#endif
