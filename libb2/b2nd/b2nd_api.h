/* SPDX-License-Identifier: BSD-3-Clause */
/* The array functions that keep a failure's message in the handle
 * (b2_nd_last_error), one row each: X(return type, name, handle, parameters,
 * arguments). b2nd_api.c makes each public function from its row: it calls
 * NAME_body, which the implementation files define, and copies the thread's
 * error record into the handle when the body fails. Add a row, not a wrapper.
 * Files of the layer call NAME_body: the outer public call keeps the message. */
#ifndef B2_ND_API_H
#define B2_ND_API_H

#define B2_ND_HANDLE_API(X) \
    X(int, b2_nd_to_frame_buffer, a, (b2_nd_array *a, uint8_t **out, size_t *len), (a, out, len)) \
    X(int, b2_nd_refresh, a, (b2_nd_array *a), (a)) \
    X(int, b2_nd_set_nthreads, a, (b2_nd_array *a, int nthreads), (a, nthreads)) \
    X(int, b2_nd_set_dctx, a, (b2_nd_array *a, b2_dctx *dctx), (a, dctx)) \
    X(int, b2_nd_set_registry, a, (b2_nd_array *a, const b2_registry *registry), (a, registry)) \
    X(int, b2_nd_copy, src, (b2_nd_array *src, const int32_t *chunkshape, const int32_t *blockshape, const b2_nd_storage *st, b2_nd_array **out), (src, chunkshape, blockshape, st, out)) \
    X(int, b2_nd_squeeze, src, (b2_nd_array *src, const b2_nd_storage *st, b2_nd_array **out), (src, st, out)) \
    X(int, b2_nd_save, a, (b2_nd_array *a, const b2_nd_storage *st), (a, st)) \
    X(int, b2_nd_get_slice, src, (b2_nd_array *src, const int64_t *start, const int64_t *stop, const int32_t *chunkshape, const int32_t *blockshape, const b2_nd_storage *st, b2_nd_array **out), (src, start, stop, chunkshape, blockshape, st, out)) \
    X(int, b2_nd_resize, a, (b2_nd_array *a, const int64_t *new_shape, const int64_t *start), (a, new_shape, start)) \
    X(int, b2_nd_insert, a, (b2_nd_array *a, const void *src, size_t len, int axis, int64_t pos), (a, src, len, axis, pos)) \
    X(int, b2_nd_append, a, (b2_nd_array *a, const void *src, size_t len, int axis), (a, src, len, axis)) \
    X(int, b2_nd_delete, a, (b2_nd_array *a, int axis, int64_t start, int64_t n), (a, axis, start, n)) \
    X(int, b2_nd_get_slice_cbuffer, a, (b2_nd_array *a, const int64_t *start, const int64_t *stop, void *dst, size_t cap), (a, start, stop, dst, cap)) \
    X(int, b2_nd_to_cbuffer, a, (b2_nd_array *a, void *dst, size_t cap), (a, dst, cap)) \
    X(int, b2_nd_get_orthogonal_selection, a, (b2_nd_array *a, const int64_t *const *sel, const int64_t *nsel, void *dst, size_t cap), (a, sel, nsel, dst, cap)) \
    X(int, b2_nd_set_orthogonal_selection, a, (b2_nd_array *a, const int64_t *const *sel, const int64_t *nsel, const void *src, size_t len), (a, sel, nsel, src, len)) \
    X(int, b2_nd_concatenate, a, (b2_nd_array *a, b2_nd_array *b, int axis, const b2_nd_storage *st, b2_nd_array **out), (a, b, axis, st, out)) \
    X(int, b2_nd_expand_dims, a, (b2_nd_array *a, const int *axes, int naxes, const b2_nd_storage *st, b2_nd_array **out), (a, axes, naxes, st, out)) \
    X(int, b2_nd_set_slice_cbuffer, a, (b2_nd_array *a, const int64_t *start, const int64_t *stop, const void *src, size_t len), (a, start, stop, src, len))

#endif
