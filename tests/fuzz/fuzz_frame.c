/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz target: a contiguous frame in memory (b2_schunk_open_with on a buffer). Every chunk
 * is looked at (sizes, special kind, view, copy) and decoded, items are read
 * across chunks, every metalayer and vlmetalayer is read. Then the frame is
 * opened again as a writable copy, changed as the input's last byte says
 * (delete, insert, update, reorder, a vlmetalayer, compaction) and serialized:
 * a frame this library wrote must open again with the same number of chunks.
 * First of all, the format module parses the input directly (fuzz_format.h). */
#include <string.h>

#include "b2_frame.h"
#include "fuzz_common.h"
#include "fuzz_format.h"
#include "b2_frame_experimental.h"

static void read_all(b2_schunk *s)
{
    int64_t n = b2_schunk_nchunks(s);
    for (int64_t i = 0; i < n && i < 256; i++) {
        b2_schunk_checksum_state(s, i); /* a "b2.checksums" table in the input is hostile too */
        b2_schunk_chunk_cbytes(s, i);
        b2_schunk_chunk_special(s, i);
        const uint8_t *view;
        int32_t cb;
        b2_schunk_chunk_view(s, i, &view, &cb);
        uint8_t *copy = NULL;
        if (b2_schunk_get_chunk(s, i, &copy, &cb) >= 0)
            free(copy);
        int nb = b2_schunk_chunk_nbytes(s, i);
        if (nb < 0 || (uint32_t)nb > FUZZ_MAX_OUTPUT)
            continue;
        uint8_t *out = fuzz_malloc((size_t)nb);
        if (out)
            b2_schunk_decompress_chunk(s, i, out, (size_t)nb);
        free(out);
    }
    int32_t ts = b2_schunk_typesize(s);
    int64_t nbytes = b2_schunk_nbytes(s);
    if (ts > 0 && nbytes > 0 && nbytes <= FUZZ_MAX_OUTPUT) {
        uint8_t *out = malloc((size_t)nbytes);
        if (out)
            b2_schunk_get_items(s, 0, nbytes / ts, out, (size_t)nbytes);
        free(out);
    }
    fuzz_read_metalayers(s);
}

/* Change a writable copy as op says; returns the number of chunks it should
 * then have, or -1 when the change was refused (nothing to check). */
static int64_t modify(b2_schunk *s, unsigned op)
{
    int64_t n = b2_schunk_nchunks(s), k = n ? (int64_t)(op >> 3) % n : 0;
    uint8_t *c = NULL;
    int32_t cb = 0;
    int64_t rc = -1;
    switch (op & 7) {
    case 0:
        rc = n ? b2_schunk_delete_chunk(s, k) : -1;
        break;
    case 1:
        if (n && b2_schunk_get_chunk(s, k, &c, &cb) >= 0)
            rc = b2_schunk_insert_chunk(s, 0, c, cb);
        break;
    case 2:
        if (n && b2_schunk_get_chunk(s, 0, &c, &cb) >= 0)
            rc = b2_schunk_update_chunk(s, k, c, cb);
        break;
    case 3: {
        int64_t *order = n && n <= 4096 ? malloc((size_t)n * sizeof *order) : NULL;
        for (int64_t i = 0; order && i < n; i++)
            order[i] = (i + k) % n;
        rc = order ? b2_schunk_reorder(s, order) : -1;
        free(order);
        break;
    }
    case 4:
        rc = b2_schunk_vlmeta_add(s, "fuzz", "abc", 3) >= 0 ? n : -1;
        break;
    case 5:
        rc = b2_schunk_vlmeta_count(s) > 0 && b2_schunk_vlmeta_name(s, 0)
                 ? (b2_schunk_vlmeta_delete(s, b2_schunk_vlmeta_name(s, 0)) >= 0 ? n : -1)
                 : -1;
        break;
    case 6:
        rc = b2_schunk_compact(s) >= 0 ? n : -1;
        break;
    default:
        if (n && b2_schunk_get_chunk(s, k, &c, &cb) >= 0)
            rc = b2_schunk_append_chunk(s, c, cb);
        break;
    }
    free(c);
    return rc < 0 ? -1 : rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int parsed = fuzz_format_parse(data, size, 0, 1);
    b2_schunk *s = NULL;
    if (fuzz_open_buffer(data, size, 0, &s) < 0)
        return 0;
    FUZZ_CHECK(parsed == B2_OK, "a frame opens that the format module refuses");
    read_all(s);
    b2_schunk_free(s);

    if (size == 0 || fuzz_open_buffer(data, size, 1, &s) < 0)
        return 0;
    /* with the penultimate byte's low bit, the copy keeps checksums first: every
     * chunk of the frame we write must then match its checksum */
    int sums = size > 1 && (data[size - 2] & 1) && b2_schunk_nchunks(s) <= 4096 &&
               b2_schunk_set_checksums(s, B2_CHECKSUMS_ON) >= 0;
    int64_t want = modify(s, data[size - 1]);
    uint8_t *buf = NULL;
    size_t len = 0;
    if (want >= 0 && b2_schunk_to_buffer(s, &buf, &len) >= 0) {
        b2_schunk *t = NULL;
        FUZZ_CHECK(fuzz_open_buffer(buf, len, 0, &t) >= 0, "a frame we wrote does not open");
        FUZZ_CHECK(b2_schunk_nchunks(t) == want, "a frame we wrote lost chunks");
        for (int64_t i = 0; sums && b2_schunk_has_checksums(t) && i < want && i < 256; i++) {
            int st = b2_schunk_checksum_state(t, i);
            /* damaged would mean our own table is wrong; other errors are the
             * input's chunks, unreadable as before */
            FUZZ_CHECK(st != B2_ERR_CHECKSUM && st != B2_CHECKSUM_STALE && st != B2_CHECKSUM_NONE,
                       "a frame we wrote with checksums does not match them");
        }
        b2_schunk_free(t);
    }
    free(buf);
    b2_schunk_free(s);
    return 0;
}
