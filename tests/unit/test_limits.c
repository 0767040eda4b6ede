/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory limits against small inputs that declare huge sizes.
 *
 * A few dozen bytes can legitimately describe gigabytes (a run stream fills a
 * block of any size; an index chunk of runs covers any number of chunks), so
 * the library cannot refuse them by plausibility alone: it refuses what would
 * need more than the handle's memory limit, before allocating. Each case here
 * checks the error (B2_ERR_LIMIT where a limit is what stops it), that raising
 * the limit lets legitimate data through, and that the process's peak memory
 * grew, across each hostile call, by far less than any of the declared sizes
 * (measured around those calls only: under ASan, freed memory of the setup
 * stays resident in the quarantine). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check.h"
#include "frame_internal.h"
#include "scratch.h"
#include "frame_open.h"
#include "b2_frame_experimental.h"

static long peak_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* The largest growth of peak memory across one hostile call. */
static long worst_kib;
#define HOSTILE(call)                                                            \
    do {                                                                         \
        long before_ = peak_kib();                                               \
        call;                                                                    \
        if (peak_kib() - before_ > worst_kib)                                    \
            worst_kib = peak_kib() - before_;                                    \
    } while (0)

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (56 - 8 * i));
}

/* A valid one-block chunk of float64 1.5 with shuffle: its byte planes are runs
 * and zero streams, which fill a block of any size. Patched to declare a
 * block (and chunk) of nbytes. Returns cbytes. */
static int run_chunk(uint8_t *out, size_t cap, int32_t nbytes)
{
    static double v[8192];
    for (int i = 0; i < 8192; i++)
        v[i] = 1.5;
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 8;
    cp.codec = B2_CODEC_LZ4;
    cp.blocksize = (int32_t)sizeof v;
    b2_cctx *c = b2_cctx_new(&cp);
    int cb = c ? b2_chunk_compress(c, v, sizeof v, out, cap) : -1;
    b2_cctx_free(c);
    b2_chunk_info in;
    CHECK(cb > 0 && b2_chunk_get_info(out, (size_t)cb, &in) == 0 && in.nblocks == 1 &&
              !in.special && in.split,
          "a split one-block chunk of runs (cbytes %d)", cb);
    if (nbytes) {
        put_le32(out + 4, (uint32_t)nbytes);
        put_le32(out + 8, (uint32_t)nbytes);
    }
    return cb;
}

static void test_chunk(void)
{
    uint8_t chunk[1024], small[64];
    int cb = run_chunk(chunk, sizeof chunk, 256 << 20); /* 256 MiB in ~70 bytes */
    b2_dctx *d = b2_dctx_new(1);
    int rc;
    HOSTILE(rc = b2_chunk_decompress(d, chunk, (size_t)cb, small, sizeof small));
    CHECK(rc == B2_ERR_LIMIT, "a 256 MiB block is over the default limit: %d (%s)", rc,
          b2_dctx_last_error(d));
    CHECK(strstr(b2_last_error_message(), "b2_dctx_set_memory_limit") != NULL,
          "the message names the setter: %s", b2_last_error_message());
    HOSTILE(rc = b2_chunk_getitem(d, chunk, (size_t)cb, 0, 1, small, sizeof small));
    CHECK(rc == B2_ERR_LIMIT, "getitem of that chunk: %d", rc);
    /* a 64 KiB block under a 1 MiB limit decodes; under 128 KiB it does not */
    cb = run_chunk(chunk, sizeof chunk, 0);
    static double back[8192];
    b2_dctx_set_memory_limit(d, 1 << 20);
    rc = b2_chunk_decompress(d, chunk, (size_t)cb, back, sizeof back);
    CHECK(rc == (int)sizeof back && back[0] == 1.5 && back[8191] == 1.5,
          "a 64 KiB block under a 1 MiB limit decodes: %d", rc);
    b2_dctx_set_memory_limit(d, 128 << 10);
    rc = b2_chunk_decompress(d, chunk, (size_t)cb, back, sizeof back);
    CHECK(rc == B2_ERR_LIMIT, "a 64 KiB block needs more than a 128 KiB limit: %d", rc);
    b2_dctx_set_memory_limit(d, 0);
    rc = b2_chunk_decompress(d, chunk, (size_t)cb, back, sizeof back);
    CHECK(rc == (int)sizeof back, "limit 0 is the default again: %d", rc);
    b2_dctx_free(d);
}

/* A frame of n different 8-byte chunks (a real, non-uniform index; compressed,
 * not stored raw, from a few hundred chunks on). */
static int small_frame(int n, uint8_t **buf, size_t *len)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 8;
    b2_schunk *s = t_new(&cp);
    int rc = s ? B2_OK : B2_ERR_NOMEM;
    for (int64_t i = 0; rc >= 0 && i < n; i++) {
        int64_t v = i * 1000003;
        int64_t r = b2_schunk_append_buffer(s, &v, 8);
        rc = r < 0 ? (int)r : B2_OK;
    }
    if (rc >= 0)
        rc = b2_schunk_to_buffer(s, buf, len);
    b2_schunk_free(s);
    return rc;
}

static void test_frame_index(void)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    CHECK(small_frame(1000, &buf, &len) == 0, "a small frame");
    if (!buf)
        return;
    b2_schunk *s = NULL;
    CHECK(t_open_buffer(buf, len, 0, &s) == 0 && b2_schunk_nchunks(s) == 1000,
          "the small frame opens");
    int64_t ipos = s ? s->head.h.header_len + s->head.h.cbytes : 0;
    b2_schunk_free(s);
    /* Declare 67 million chunks of 8 bytes (a 512 MiB index, one block of the
     * largest size) in the header and the index chunk; the index is never
     * decoded, so its streams need not agree. */
    int64_t n = 536866816 / 8;
    put_be64(buf + 30, (uint64_t)(n * 8));
    put_le32(buf + ipos + 4, (uint32_t)(n * 8));
    put_le32(buf + ipos + 8, (uint32_t)(n * 8));
    b2_open_options o;
    b2_open_options_init(&o);
    o.buffer = buf;
    o.buffer_len = len;
    o.memory_limit = 64 << 20;
    int rc;
    HOSTILE(rc = b2_schunk_open_with(&o, &s));
    CHECK(rc == B2_ERR_LIMIT && !s, "a 512 MiB index over a 64 MiB limit: %d (%s)", rc,
          b2_last_error_message());
    CHECK(strstr(b2_last_error_message(), "index") != NULL, "the message says what: %s",
          b2_last_error_message());
    o.memory_limit = 0; /* the default */
    HOSTILE(rc = b2_schunk_open_with(&o, &s));
    CHECK(rc == B2_ERR_LIMIT, "and over the default limit, with the decoder's scratch: %d", rc);
    free(buf);
}

static void test_vlmeta(void)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    b2_schunk *s = t_new(&cp);
    CHECK(s && b2_schunk_vlmeta_add(s, "big", "x", 1) == 0, "a vlmetalayer");
    if (!s)
        return;
    /* Swap its stored chunk for one declaring 256 MiB of runs. */
    uint8_t chunk[1024];
    int cb = run_chunk(chunk, sizeof chunk, 256 << 20);
    uint8_t *copy = malloc((size_t)cb);
    memcpy(copy, chunk, (size_t)cb);
    free(s->head.vlmeta[0].content);
    s->head.vlmeta[0].content = copy;
    s->head.vlmeta[0].len = cb;
    uint8_t *content = NULL;
    int32_t clen = 0;
    b2_schunk_set_memory_limit(s, 16 << 20);
    int rc;
    HOSTILE(rc = b2_schunk_vlmeta_get(s, "big", &content, &clen));
    CHECK(rc == B2_ERR_LIMIT && !content, "256 MiB of vlmetalayer over a 16 MiB limit: %d", rc);
    CHECK(strstr(b2_schunk_last_error(s), "vlmetalayer") != NULL, "the handle keeps why: %s",
          b2_schunk_last_error(s));
    free(content);
    b2_schunk_free(s);
}

/* A frame file made sparse to 64 GiB: its size bounds nothing real. */
static void test_sparse_file(const char *dir)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    CHECK(small_frame(3, &buf, &len) == 0, "a small frame");
    if (!buf)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/huge.b2frame", dir);
    int64_t huge = (int64_t)64 << 30;
    put_be64(buf + 16, (uint64_t)huge); /* frame_len */
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    int ok = fd >= 0 && write(fd, buf, len) == (ssize_t)len && ftruncate(fd, huge) == 0;
    if (fd >= 0)
        close(fd);
    free(buf);
    if (!ok) {
        printf("note: no sparse 64 GiB file here; case skipped\n");
        return;
    }
    b2_schunk *s = NULL;
    b2_open_options o;
    b2_open_options_init(&o);
    o.path = path;
    o.flags = B2_OPEN_READONLY;
    int rc;
    HOSTILE(rc = b2_schunk_open_with(&o, &s));
    CHECK(rc < 0 && !s, "a small frame claiming 64 GiB fails to open: %d (%s)", rc,
          b2_last_error_message());
    unlink(path);
}

int main(void)
{
    char tmpl[] = "/tmp/b2limits_XXXXXX";
    char *dir = mkdtemp(tmpl);
    test_chunk();
    test_frame_index();
    test_vlmeta();
    if (dir)
        test_sparse_file(dir);
    /* every case declared 256 MiB or more */
    CHECK(worst_kib < 16 * 1024, "peak memory grew by %ld KiB across a hostile call", worst_kib);
    printf("peak memory grew by at most %ld KiB across a hostile call\n", worst_kib);
    if (dir)
        test_rm_tree(dir);
    return b2t_summary("limits");
}
