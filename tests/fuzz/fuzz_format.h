/* SPDX-License-Identifier: BSD-3-Clause */
/* The frame format module (libb2/frame/format/frame_format.h, internal) called directly
 * by the frame harnesses on their input bytes, before they open the frame
 * through the public API: the parser meets every input first-hand, not only
 * the ones a store and a handle pass on, and the harness checks that the
 * format module and the handle agree (a frame that opens must parse).
 *
 * A layout that parses is serialised again (header, the input's chunk bytes,
 * index, trailer) and must parse to the same chunk count and entries. */
#ifndef B2_FUZZ_FORMAT_H
#define B2_FUZZ_FORMAT_H

#include "frame_format.h"
#include "fuzz_common.h"

/* Parse size bytes at data as a frame (sparse: a sparse frame's index file;
 * exact: frame_len must be size); returns the parser's code. */
static int fuzz_format_parse(const uint8_t *data, size_t size, int sparse, int exact)
{
    frame_layout L;
    int rc = b2_frame_parse(data, (int64_t)size, sparse, exact, NULL, 0, &L);
    FUZZ_CHECK(rc == B2_OK || (rc < 0 && rc >= B2_ERR_LIMIT), "format parse: not a B2_ERR_* code");
    if (rc < 0)
        return rc;
    /* An index too large to re-encode in a fuzzing run's time is left alone, and
     * so is data without chunks (the writer stores no index for it). */
    int round = L.nchunks <= 65536 && !(L.h.nbytes > 0 && L.nchunks == 0);
    b2_cparams cp;
    b2_frame_header_cparams(&L.h, &cp);
    frame_layout W = L; /* shallow: L keeps what it owns */
    uint8_t *out = NULL;
    int64_t len = 0;
    if (round && b2_frame_serialize(&W, &cp, L.index == NULL, sparse, data + L.chunks_off,
                                    L.chunks_len, &out, &len) == B2_OK) {
        frame_layout R;
        FUZZ_CHECK(b2_frame_parse(out, len, sparse, 1, NULL, 0, &R) == B2_OK,
                   "a layout serialised again does not parse");
        FUZZ_CHECK(R.nchunks == L.nchunks, "a layout serialised again lost chunks");
        for (int64_t i = 0; i < L.nchunks; i++)
            FUZZ_CHECK(frame_layout_entry(&R, i) == frame_layout_entry(&L, i),
                       "a layout serialised again changed its index");
        b2_frame_layout_free(&R);
    }
    free(out);
    b2_frame_layout_free(&L);
    return rc;
}

#endif
