/* SPDX-License-Identifier: BSD-3-Clause */
/* Experimental frame functions: they may change or go in any release, unlike
 * those of b2_frame.h. */
#ifndef B2_FRAME_EXPERIMENTAL_H
#define B2_FRAME_EXPERIMENTAL_H

#include "b2_frame.h"
#include "b2_chunk_experimental.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes this handle has read from its file or directory since it was opened
 * (header, trailer, index and chunk bytes; 0 for frames in memory). */
B2_API int64_t b2_schunk_bytes_read(const b2_schunk *s);

/* defer != 0: chunks appended to a file frame (b2_schunk_append_chunk, _buffer,
 * insert) and item writes (b2_schunk_set_items) are written at once but committed later, by the next operation that
 * commits (an update, a delete, a metalayer change), by
 * b2_schunk_set_defer_commit(s, 0), or by b2_schunk_free (best effort: call
 * set_defer_commit(s, 0) to see its error). Until then the file keeps its last
 * committed frame, which other handles and a crash show; this handle shows the
 * appended chunks. Saves the per-append index, trailer and header writes: for
 * bulk appends. Other storages commit every operation as before. */
B2_API int b2_schunk_set_defer_commit(b2_schunk *s, int defer);

/* For crash tests: from now on, write number fail_at of this handle (0 the next
 * one) and every later write fail with B2_ERR_IO, as if the machine had stopped
 * there. Writes, truncations, whole-frame replacements and chunk files count.
 * tear != 0: a failing write that spans two 512-byte sectors first writes half
 * its bytes. fail_at < 0 ends the faults; the count restarts with each call. */
B2_API int b2_schunk_inject_write_faults(b2_schunk *s, int64_t fail_at, int tear);

/* Prefilter for the chunks b2_schunk_append_buffer compresses (b2_chunk_experimental.h;
 * nchunk is the new chunk's number, and src may be NULL). A failure appends
 * nothing and leaves the frame as it was. fn NULL removes it. */
B2_API int b2_schunk_set_prefilter(b2_schunk *s, b2_prefilter_fn fn, void *user);
/* Postfilter for the chunk data later reads deliver (b2_schunk_decompress_chunk,
 * _get_items: the blocks they decode, nchunk the chunk's number; special index
 * entries are then decoded as the chunks they stand for). The index and
 * vlmetalayers are never postfiltered, nor the bytes b2_schunk_get_chunk and
 * _read_blocks return. Set it while no read runs on s. fn NULL removes it. */
B2_API int b2_schunk_set_postfilter(b2_schunk *s, b2_postfilter_fn fn, void *user);

#ifdef __cplusplus
}
#endif

#endif
