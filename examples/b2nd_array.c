/* SPDX-License-Identifier: BSD-3-Clause */
/* b2_nd_array.c: an N-dimensional array (b2nd, as written by c-blosc2 and python-blosc2).
 *
 * Creates a 2-D float32 array from a C buffer, reads and writes rectangular slices
 * (only the chunks and blocks a slice touches are decoded), grows it with resize
 * (new items read as zero), saves it to a file and reopens it.
 *
 * Run: ./b2_nd_array [path]   (default example.b2nd, overwritten). */
#include <b2_nd.h>
#include <b2_nd_experimental.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 300
#define COLS 200

static int fail(const char *what, int rc)
{
    fprintf(stderr, "%s: %s\n", what, b2_strerror(rc));
    return 1;
}

static float value(int64_t r, int64_t c) { return (float)(r * 1000 + c); }

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "example.b2nd";
    float *src = malloc(sizeof(float) * ROWS * COLS);
    if (!src)
        return fail("malloc", B2_ERR_NOMEM);
    for (int64_t r = 0; r < ROWS; r++)
        for (int64_t c = 0; c < COLS; c++)
            src[r * COLS + c] = value(r, c);

    /* Shape, chunk shape (unit of storage) and block shape (unit of decoding,
     * inside a chunk). Zeros would let the default rule choose. */
    b2_nd_params p;
    memset(&p, 0, sizeof p);
    p.ndim = 2;
    p.shape[0] = ROWS, p.shape[1] = COLS;
    p.chunkshape[0] = 100, p.chunkshape[1] = 100;
    p.blockshape[0] = 25, p.blockshape[1] = 50;
    p.typesize = sizeof(float);
    p.dtype = "<f4"; /* NumPy typestr, so Python readers see float32 */

    b2_nd_storage mem = {B2_STORAGE_MEMORY, NULL};
    b2_nd_array *a;
    int rc = b2_nd_from_cbuffer(&p, &mem, src, sizeof(float) * ROWS * COLS, &a);
    if (rc < 0)
        return fail("from_cbuffer", rc);
    printf("array %lldx%lld dtype %s, chunks %dx%d, blocks %dx%d, %lld chunks stored\n",
           (long long)b2_nd_shape(a)[0], (long long)b2_nd_shape(a)[1], b2_nd_dtype(a),
           (int)b2_nd_chunkshape(a)[0], (int)b2_nd_chunkshape(a)[1], (int)b2_nd_blockshape(a)[0],
           (int)b2_nd_blockshape(a)[1], (long long)b2_schunk_nchunks(b2_nd_schunk(a)));

    /* Read the box rows [120, 130) x cols [40, 45): it touches two blocks of one chunk. */
    int64_t start[2] = {120, 40}, stop[2] = {130, 45};
    float box[10 * 5];
    int64_t before = b2_nd_blocks_decoded(a);
    if ((rc = b2_nd_get_slice_cbuffer(a, start, stop, box, sizeof box)) < 0)
        return fail("get_slice_cbuffer", rc);
    for (int r = 0; r < 10; r++)
        for (int c = 0; c < 5; c++)
            if (box[r * 5 + c] != value(120 + r, 40 + c)) {
                fprintf(stderr, "slice: wrong item (%d, %d)\n", r, c);
                return 1;
            }
    printf("slice [120:130, 40:45] correct; %lld block(s) decoded for it\n",
           (long long)(b2_nd_blocks_decoded(a) - before));

    /* Overwrite a box that straddles four chunks. */
    int64_t wstart[2] = {95, 95}, wstop[2] = {105, 105};
    float ones[10 * 10];
    for (int i = 0; i < 100; i++)
        ones[i] = -1.0f;
    if ((rc = b2_nd_set_slice_cbuffer(a, wstart, wstop, ones, sizeof ones)) < 0)
        return fail("set_slice_cbuffer", rc);
    printf("wrote -1 into [95:105, 95:105]\n");

    /* Grow to 350x250: new items are zero. */
    int64_t newshape[2] = {350, 250};
    if ((rc = b2_nd_resize(a, newshape, NULL)) < 0)
        return fail("resize", rc);
    printf("resized to %lldx%lld\n", (long long)b2_nd_shape(a)[0], (long long)b2_nd_shape(a)[1]);

    /* Save to a file, reopen, and check a few places of the whole array. */
    b2_nd_storage file = {B2_STORAGE_FILE, path};
    if ((rc = b2_nd_save(a, &file)) < 0)
        return fail("save", rc);
    b2_nd_free(a);
    if ((rc = b2_nd_open(path, B2_OPEN_READONLY, &a)) < 0)
        return fail("open", rc);
    int64_t n = b2_nd_nitems(a);
    float *all = malloc(sizeof(float) * (size_t)n);
    if (!all)
        return fail("malloc", B2_ERR_NOMEM);
    if ((rc = b2_nd_to_cbuffer(a, all, sizeof(float) * (size_t)n)) < 0)
        return fail("to_cbuffer", rc);
    int bad = n != 350 * 250 || strcmp(b2_nd_dtype(a), "<f4") != 0;
    for (int64_t r = 0; r < 350 && !bad; r++)
        for (int64_t c = 0; c < 250; c++) {
            float want = (r >= ROWS || c >= COLS)                     ? 0.0f
                         : (r >= 95 && r < 105 && c >= 95 && c < 105) ? -1.0f
                                                                      : value(r, c);
            if (all[r * 250 + c] != want) {
                fprintf(stderr, "reopened: item (%lld, %lld) is %g, want %g\n", (long long)r,
                        (long long)c, all[r * 250 + c], want);
                bad = 1;
                break;
            }
        }
    printf("reopened %s: %lld items, dtype %s, contents %s\n", path, (long long)n,
           b2_nd_dtype(a), bad ? "WRONG" : "correct");
    b2_nd_free(a);
    free(all);
    free(src);
    if (bad)
        return 1;
    printf("b2nd_array: OK\n");
    return 0;
}
