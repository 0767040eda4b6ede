/* SPDX-License-Identifier: BSD-3-Clause */
/* user_plugins.c: add your own filter and codec to libb2 (b2_plugin.h).
 *
 * Ids 160..255 belong to applications. A chunk records the ids it was made
 * with, so a reader needs the same functions under the same ids. Here:
 *  - filter 160 "intdelta": each int32 item minus the previous one (the meta
 *    byte says how many items to look back), registered for the whole process;
 *  - codec 161 "rle": (count, byte) pairs, kept in a b2_registry that is
 *    attached to the compression parameters and to the frame when reopened.
 * Then a frame file is written, reopened, and read back; reading it without the
 * registry fails with a message naming the codec id.
 *
 * Run: ./user_plugins [path]   (default example_plugins.b2frame, overwritten). */
#include <b2_frame.h>
#include <b2_plugin_experimental.h> /* b2_registry_new and friends */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITEMS 200000 /* int32 items per chunk */

/* ---- the filter: works on whole blocks of int32 items (typesize 4) ---- */

static int intdelta_forward(const b2_plugin_call *c, const uint8_t *src, uint8_t *dst, int32_t n)
{
    int32_t lag = c->meta ? c->meta : 1, count = n / 4;
    if (c->typesize != 4)
        return B2_ERR_FILTER; /* the library reports it with our id and name */
    for (int32_t i = 0; i < count; i++) {
        int32_t v, prev = 0;
        memcpy(&v, src + 4 * i, 4);
        if (i >= lag)
            memcpy(&prev, src + 4 * (i - lag), 4);
        v = (int32_t)((uint32_t)v - (uint32_t)prev); /* wraps instead of overflowing */
        memcpy(dst + 4 * i, &v, 4);
    }
    memcpy(dst + 4 * count, src + 4 * count, (size_t)(n % 4)); /* a partial item: as is */
    return 0;
}

static int intdelta_backward(const b2_plugin_call *c, const uint8_t *src, uint8_t *dst, int32_t n)
{
    int32_t lag = c->meta ? c->meta : 1, count = n / 4;
    if (c->typesize != 4)
        return B2_ERR_FILTER;
    for (int32_t i = 0; i < count; i++) {
        int32_t v, prev = 0;
        memcpy(&v, src + 4 * i, 4);
        if (i >= lag)
            memcpy(&prev, dst + 4 * (i - lag), 4); /* already decoded */
        v = (int32_t)((uint32_t)v + (uint32_t)prev);
        memcpy(dst + 4 * i, &v, 4);
    }
    memcpy(dst + 4 * count, src + 4 * count, (size_t)(n % 4));
    return 0;
}

/* ---- the codec ---- */

static int rle_compress(const b2_plugin_call *c, const uint8_t *src, int32_t srclen, uint8_t *dst,
                        int32_t dstcap)
{
    (void)c;
    int32_t o = 0;
    for (int32_t i = 0; i < srclen;) {
        int run = 1;
        while (i + run < srclen && src[i + run] == src[i] && run < 255)
            run++;
        if (o + 2 > dstcap)
            return 0; /* does not fit: the library stores the block as is */
        dst[o++] = (uint8_t)run;
        dst[o++] = src[i];
        i += run;
    }
    return o;
}

/* src comes from a file: check every count against the room left. */
static int rle_decompress(const b2_plugin_call *c, const uint8_t *src, int32_t srclen,
                          uint8_t *dst, int32_t dstlen)
{
    (void)c;
    int32_t o = 0;
    if (srclen % 2)
        return B2_ERR_CORRUPT;
    for (int32_t i = 0; i < srclen; i += 2) {
        if (src[i] == 0 || src[i] > dstlen - o)
            return B2_ERR_CORRUPT;
        memset(dst + o, src[i + 1], src[i]);
        o += src[i];
    }
    return o;
}

static int fail(const char *what, int64_t rc)
{
    fprintf(stderr, "%s: %s\n", what, rc < 0 ? b2_last_error_message() : "wrong content");
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "example_plugins.b2frame";
    int32_t *data = malloc(ITEMS * 4), *back = malloc(ITEMS * 4);
    if (!data || !back)
        return fail("malloc", B2_ERR_NOMEM);
    for (int32_t i = 0; i < ITEMS; i++)
        data[i] = 1000 + 3 * (i / 50); /* a staircase: deltas are mostly 0 */

    /* 1. The filter goes into the process table: every context sees it. */
    b2_user_filter f = {160, "intdelta", intdelta_forward, intdelta_backward, NULL};
    int rc = b2_register_filter(&f);
    if (rc < 0)
        return fail("b2_register_filter", rc);
    /* 2. The codec lives in a registry that only the contexts given it see. */
    b2_registry *reg = b2_registry_new();
    b2_user_codec codec = {161, "rle", rle_compress, rle_decompress, NULL};
    if (!reg || (rc = b2_registry_add_codec(reg, &codec)) < 0)
        return fail("b2_registry_add_codec", reg ? rc : B2_ERR_NOMEM);

    /* 3. Parameters name the ids like built-in ones: intdelta, then shuffle. */
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    cp.codec = 161;
    cp.filters[4] = 160;
    cp.filters_meta[4] = 1; /* look one item back */
    cp.filters[5] = B2_FILTER_SHUFFLE;
    cp.registry = reg;

    b2_open_options o;
    b2_open_options_init(&o);
    o.flags = B2_OPEN_CREATE;
    o.path = path;
    o.cparams = &cp;
    b2_schunk *s = NULL;
    if ((rc = b2_schunk_open_with(&o, &s)) < 0)
        return fail("create", rc);
    for (int i = 0; i < 4; i++)
        if (b2_schunk_append_buffer(s, data, ITEMS * 4) < 0)
            return fail("append", -1);
    printf("wrote %s: 4 chunks of %d bytes, %lld bytes compressed with filter %s and codec %s\n",
           path, ITEMS * 4, (long long)b2_schunk_cbytes(s), b2_filter_name(160),
           b2_registry_codec_name(reg, 161));
    b2_schunk_free(s);

    /* 4. A reader without the registry is told which id it lacks. */
    o.flags = B2_OPEN_READONLY;
    o.cparams = NULL;
    if ((rc = b2_schunk_open_with(&o, &s)) < 0)
        return fail("open", rc);
    rc = b2_schunk_decompress_chunk(s, 0, back, ITEMS * 4);
    printf("without the registry: %s\n", rc < 0 ? b2_schunk_last_error(s) : "decoded?!");
    if (rc >= 0)
        return 1;

    /* 5. Opened with it, everything reads. */
    b2_schunk_free(s);
    o.registry = reg;
    if ((rc = b2_schunk_open_with(&o, &s)) < 0)
        return fail("open with the registry", rc);
    for (int i = 0; i < 4; i++) {
        rc = b2_schunk_decompress_chunk(s, i, back, ITEMS * 4);
        if (rc != ITEMS * 4 || memcmp(back, data, ITEMS * 4) != 0)
            return fail("decompress", rc);
    }
    int32_t items[4];
    if (b2_schunk_get_items(s, ITEMS + 99, 4, items, sizeof items) < 0 || items[0] != data[99])
        return fail("get_items", -1);
    printf("with the registry: 4 chunks identical, items %d..%d = %d..%d\n", ITEMS + 99,
           ITEMS + 102, (int)items[0], (int)items[3]);
    b2_schunk_free(s);
    b2_registry_free(reg); /* after the last context using it */
    free(data);
    free(back);
    printf("user_plugins: OK\n");
    return 0;
}
