/* SPDX-License-Identifier: BSD-3-Clause */
/* The super-chunk functions that keep a failure's message in the handle
 * (b2_schunk_last_error), one row each: X(return type, name, handle, parameters,
 * arguments). frame_api.c makes each public function from its row: it calls
 * NAME_body, which the implementation files define, and copies the thread's
 * error record into the handle when the body fails. Add a row, not a wrapper.
 * Files of the layer call NAME_body: the outer public call keeps the message. */
#ifndef B2_FRAME_API_H
#define B2_FRAME_API_H

#define B2_FRAME_HANDLE_API(X) \
    X(int, b2_schunk_compact, s, (b2_schunk *s), (s)) \
    X(int, b2_schunk_read_blocks, s, (b2_schunk *s, int64_t i, const int32_t *blocks, int32_t n, uint8_t **chunk, int32_t *cbytes), (s, i, blocks, n, chunk, cbytes)) \
    X(int, b2_schunk_meta_add, s, (b2_schunk *s, const char *name, const void *content, int32_t len), (s, name, content, len)) \
    X(int, b2_schunk_meta_update, s, (b2_schunk *s, const char *name, const void *content, int32_t len), (s, name, content, len)) \
    X(int, b2_schunk_vlmeta_get, s, (b2_schunk *s, const char *name, uint8_t **content, int32_t *len), (s, name, content, len)) \
    X(int, b2_schunk_vlmeta_add, s, (b2_schunk *s, const char *name, const void *content, int32_t len), (s, name, content, len)) \
    X(int, b2_schunk_vlmeta_update, s, (b2_schunk *s, const char *name, const void *content, int32_t len), (s, name, content, len)) \
    X(int, b2_schunk_vlmeta_delete, s, (b2_schunk *s, const char *name), (s, name)) \
    X(int, b2_schunk_set_nthreads, s, (b2_schunk *s, int nthreads), (s, nthreads)) \
    X(int, b2_schunk_chunk_nbytes, s, (b2_schunk *s, int64_t i), (s, i)) \
    X(int, b2_schunk_chunk_cbytes, s, (b2_schunk *s, int64_t i), (s, i)) \
    X(int, b2_schunk_chunk_special, s, (b2_schunk *s, int64_t i), (s, i)) \
    X(int, b2_schunk_chunk_view, s, (b2_schunk *s, int64_t i, const uint8_t **chunk, int32_t *cbytes), (s, i, chunk, cbytes)) \
    X(int, b2_schunk_get_chunk, s, (b2_schunk *s, int64_t i, uint8_t **chunk, int32_t *cbytes), (s, i, chunk, cbytes)) \
    X(int, b2_schunk_decompress_chunk, s, (b2_schunk *s, int64_t i, void *dst, size_t cap), (s, i, dst, cap)) \
    X(int64_t, b2_schunk_get_items, s, (b2_schunk *s, int64_t start, int64_t n, void *dst, size_t cap), (s, start, n, dst, cap)) \
    X(int64_t, b2_schunk_set_items, s, (b2_schunk *s, int64_t start, int64_t n, const void *src, size_t len), (s, start, n, src, len)) \
    X(int, b2_schunk_refresh, s, (b2_schunk *s), (s)) \
    X(int64_t, b2_schunk_insert_chunk, s, (b2_schunk *s, int64_t pos, const void *chunk, int32_t cbytes), (s, pos, chunk, cbytes)) \
    X(int64_t, b2_schunk_append_chunk, s, (b2_schunk *s, const void *chunk, int32_t cbytes), (s, chunk, cbytes)) \
    X(int64_t, b2_schunk_append_buffer, s, (b2_schunk *s, const void *src, int32_t nbytes), (s, src, nbytes)) \
    X(int64_t, b2_schunk_update_chunk, s, (b2_schunk *s, int64_t pos, const void *chunk, int32_t cbytes), (s, pos, chunk, cbytes)) \
    X(int64_t, b2_schunk_delete_chunk, s, (b2_schunk *s, int64_t pos), (s, pos)) \
    X(int64_t, b2_schunk_reorder, s, (b2_schunk *s, const int64_t *order), (s, order)) \
    X(int64_t, b2_schunk_fill_special, s, (b2_schunk *s, int64_t nitems, int special, int32_t chunksize), (s, nitems, special, chunksize)) \
    X(int, b2_schunk_to_buffer, s, (b2_schunk *s, uint8_t **out, size_t *len), (s, out, len)) \
    X(int, b2_schunk_set_checksums, s, (b2_schunk *s, int policy), (s, policy)) \
    X(int, b2_schunk_checksum_state, s, (b2_schunk *s, int64_t i), (s, i))

#endif
