/* SPDX-License-Identifier: BSD-3-Clause */
/* The HDF5 filter's payload path with user codecs and filters (b2_plugin.h):
 * it sees the process table only. A codec registered with b2_register_codec is
 * accepted in cd_values[6] and round trips through both payload kinds (b2nd and
 * plain frames); frames whose chunks use process-registered user filters decode;
 * an id held only in a caller's b2_registry is refused with the id named. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2_frame.h"
#include "b2_nd.h"
#include "h5params.h"
#include "check.h"
#include "frame_open.h"
#include "b2_frame_experimental.h"
#include "b2_plugin_experimental.h"

static void *m_alloc(size_t n, void *ud) { (void)ud; return malloc(n ? n : 1); }
static void m_release(void *p, void *ud) { (void)ud; free(p); }
static const b2_h5_alloc AL = {m_alloc, m_release, NULL};

/* A filter: XOR with the meta byte (its own inverse). */
static int xor_fn(const b2_plugin_call *c, const uint8_t *src, uint8_t *dst, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        dst[i] = src[i] ^ c->meta;
    return 0;
}

/* A run-length codec: (count, byte) pairs. */
static int decoded; /* decompress calls (atomic) */

static int rle_compress(const b2_plugin_call *c, const uint8_t *src, int32_t n, uint8_t *dst,
                        int32_t cap)
{
    (void)c;
    int32_t o = 0;
    for (int32_t i = 0; i < n;) {
        int run = 1;
        while (i + run < n && src[i + run] == src[i] && run < 255)
            run++;
        if (o + 2 > cap)
            return 0;
        dst[o++] = (uint8_t)run;
        dst[o++] = src[i];
        i += run;
    }
    return o;
}

static int rle_decompress(const b2_plugin_call *c, const uint8_t *src, int32_t n, uint8_t *dst,
                          int32_t len)
{
    (void)c;
    int32_t o = 0;
    __atomic_add_fetch(&decoded, 1, __ATOMIC_RELAXED);
    for (int32_t i = 0; i + 1 < n; i += 2) {
        if (src[i] == 0 || src[i] > len - o)
            return B2_ERR_CORRUPT;
        memset(dst + o, src[i + 1], src[i]);
        o += src[i];
    }
    return n % 2 ? B2_ERR_CORRUPT : o;
}

static int roundtrip(const unsigned *v, size_t nv, int b2nd, const uint8_t *src, size_t nbytes)
{
    b2_h5_params p;
    char err[400] = "";
    void *frame = NULL, *out = NULL;
    size_t fsz, flen, osz, olen;
    if (b2_h5_params_parse(nv, v, 1, &p, err, sizeof err) < 0)
        return printf("parse: %s\n", err), 0;
    p.nthreads = 1;
    int before = decoded;
    int rc = b2_h5_payload_encode(&p, NULL, b2nd, src, nbytes, 0, &AL, &frame, &fsz, &flen, err,
                                  sizeof err);
    if (rc == 0)
        rc = b2_h5_payload_decode(&p, NULL, frame, flen, &AL, &out, &osz, &olen, err, sizeof err);
    int ok = rc == 0 && olen == nbytes && !memcmp(out, src, nbytes);
    if (!ok)
        printf("b2nd %d: rc %d: %s\n", b2nd, rc, err);
    /* the stored chunk records the user codec */
    b2_schunk *s = NULL;
    const uint8_t *chunk;
    int32_t cb;
    b2_chunk_info ci;
    ok = ok && t_open_buffer(frame, flen, 0, &s) == B2_OK &&
         b2_schunk_chunk_view(s, 0, &chunk, &cb) == B2_OK &&
         b2_chunk_get_info(chunk, (size_t)cb, &ci) == B2_OK && ci.compcode == 200 &&
         ci.codec_format == 6 && !ci.memcpyed && decoded > before;
    b2_schunk_free(s);
    free(frame);
    free(out);
    return ok;
}

int main(void)
{
    b2_user_codec uc = {200, "h5delta", rle_compress, rle_decompress, NULL};
    b2_user_filter uf = {201, "h5xor", xor_fn, xor_fn, NULL};
    unsigned v2[] = {1, 0, 4, 0, 5, 1, 200, 2, 40, 50};
    unsigned v1[] = {1, 0, 4, 0, 5, 1, 200};
    b2_h5_params p;
    char err[400];
    enum { N = 40 * 50 };
    int32_t *src = malloc(N * 4);
    for (int i = 0; i < N; i++)
        src[i] = i / 3;
    v2[3] = v1[3] = N * 4;

    CHECK(b2_h5_params_parse(7, v1, 1, &p, err, sizeof err) < 0 && strstr(err, "200"),
          "codec 200 accepted before it is registered: %s", err);
    CHECK(b2_register_codec(&uc) == B2_OK && b2_register_filter(&uf) == B2_OK, "register: %s",
          b2_last_error_message());
    CHECK(roundtrip(v2, 10, 1, (const uint8_t *)src, N * 4), "b2nd payload with codec 200");
    CHECK(roundtrip(v1, 7, 0, (const uint8_t *)src, N * 4), "plain payload with codec 200");

    /* a frame with the user filter in its pipeline, written through the frame API */
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    cp.filters[4] = 201;
    cp.filters_meta[4] = 0x33;
    b2_schunk *s = t_new(&cp);
    uint8_t *frame = NULL;
    size_t flen = 0;
    CHECK(s && b2_schunk_append_buffer(s, src, N * 4) == 1 &&
              b2_schunk_to_buffer(s, &frame, &flen) == B2_OK,
          "frame with filter 201");
    b2_schunk_free(s);
    void *out = NULL;
    size_t osz, olen;
    b2_h5_params_parse(7, v1, 0, &p, err, sizeof err);
    p.nthreads = 2;
    int rc = b2_h5_payload_decode(&p, NULL, frame, flen, &AL, &out, &osz, &olen, err, sizeof err);
    CHECK(rc == 0 && olen == N * 4 && !memcmp(out, src, N * 4), "filter 201 decoded: %s", err);
    free(out);
    free(frame);

    /* an id only a caller's registry holds is invisible to the filter */
    b2_registry *r = b2_registry_new();
    b2_user_codec hidden = {250, "hidden", rle_compress, rle_decompress, NULL};
    b2_registry_add_codec(r, &hidden);
    cp.codec = 250;
    cp.filters[4] = 0;
    cp.registry = r;
    s = t_new(&cp);
    CHECK(s && b2_schunk_append_buffer(s, src, N * 4) == 1 &&
              b2_schunk_to_buffer(s, &frame, &flen) == B2_OK,
          "frame with codec 250");
    b2_schunk_free(s);
    rc = b2_h5_payload_decode(&p, NULL, frame, flen, &AL, &out, &osz, &olen, err, sizeof err);
    CHECK(rc == B2_ERR_UNSUPPORTED && strstr(err, "codec id 250 is not registered"),
          "registry-only codec refused: rc %d, %s", rc, err);
    if (rc == 0)
        free(out);
    free(frame);
    b2_registry_free(r);
    free(src);
    return b2t_summary("h5 registry");
}
