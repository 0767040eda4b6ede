/* SPDX-License-Identifier: BSD-3-Clause */
/* metalayers.c: attach metadata to a super-chunk.
 *
 * Metalayers are fixed-size and live uncompressed in the frame header: they must be
 * added before the first chunk and can later be overwritten in place, never grown
 * (b2nd keeps an array's shape there). Variable-length metalayers (vlmetalayers)
 * live compressed in the trailer and may be added, replaced with content of any
 * length, or deleted at any time.
 *
 * Run: ./metalayers [path]   (default example_meta.b2frame, overwritten). */
#include <b2_frame.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, int64_t rc)
{
    fprintf(stderr, "%s: %s\n", what, b2_strerror((int)rc));
    return 1;
}

/* Check that metalayer or vlmetalayer `name` holds exactly `want`. */
static int expect(b2_schunk *s, int vl, const char *name, const char *want)
{
    uint8_t *content = NULL;
    int32_t len = 0;
    int rc = vl ? b2_schunk_vlmeta_get(s, name, &content, &len)
                : b2_schunk_meta_get(s, name, &content, &len);
    if (rc < 0)
        return fail(name, rc);
    int ok = len == (int32_t)strlen(want) && memcmp(content, want, (size_t)len) == 0;
    printf("  %s %-8s = \"%.*s\" (%d bytes)%s\n", vl ? "vlmeta" : "meta  ", name, (int)len,
           (const char *)content, (int)len, ok ? "" : "  <-- WRONG");
    free(content);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "example_meta.b2frame";
    b2_open_options o;
    b2_open_options_init(&o);
    o.flags = B2_OPEN_CREATE; /* o.cparams NULL: the default chunk parameters */
    o.path = path;
    b2_schunk *s;
    int rc = b2_schunk_open_with(&o, &s);
    if (rc < 0)
        return fail("create", rc);
    b2_schunk_set_sync(s, 0);

    /* Fixed-size metalayers first, while the frame holds no data. */
    if ((rc = b2_schunk_meta_add(s, "units", "metres", 6)) < 0)
        return fail("meta_add units", rc);
    if ((rc = b2_schunk_meta_add(s, "version", "v1", 2)) < 0)
        return fail("meta_add version", rc);

    double data[1024];
    for (int i = 0; i < 1024; i++)
        data[i] = i * 0.25;
    int64_t n = b2_schunk_append_buffer(s, data, sizeof data);
    if (n < 0)
        return fail("append", n);

    /* Now that there is data, adding a metalayer is refused... */
    rc = b2_schunk_meta_add(s, "late", "x", 1);
    printf("meta_add after data: %s (expected)\n", rc < 0 ? b2_strerror(rc) : "accepted?!");
    if (rc >= 0)
        return 1;
    /* ...but one may be overwritten with content of the same (or smaller) size. */
    if ((rc = b2_schunk_meta_update(s, "version", "v2", 2)) < 0)
        return fail("meta_update", rc);

    /* Variable-length metalayers: any time, any size. */
    const char *note = "{\"author\": \"example\", \"comment\": \"a short note\"}";
    if ((rc = b2_schunk_vlmeta_add(s, "note", note, (int32_t)strlen(note))) < 0)
        return fail("vlmeta_add note", rc);
    if ((rc = b2_schunk_vlmeta_add(s, "tmp", "scratch", 7)) < 0)
        return fail("vlmeta_add tmp", rc);
    if ((rc = b2_schunk_vlmeta_update(s, "note", "replaced by a longer note, of any length",
                                      40)) < 0)
        return fail("vlmeta_update", rc);
    if ((rc = b2_schunk_vlmeta_delete(s, "tmp")) < 0)
        return fail("vlmeta_delete", rc);
    b2_schunk_free(s);

    /* Reopen and list everything. */
    o.flags = B2_OPEN_READONLY;
    rc = b2_schunk_open_with(&o, &s);
    if (rc < 0)
        return fail("open", rc);
    printf("%s: %d metalayer(s), %d vlmetalayer(s)\n", path, b2_schunk_meta_count(s),
           b2_schunk_vlmeta_count(s));
    for (int i = 0; i < b2_schunk_meta_count(s); i++)
        printf("  metalayer %d: %s\n", i, b2_schunk_meta_name(s, i));
    for (int i = 0; i < b2_schunk_vlmeta_count(s); i++)
        printf("  vlmetalayer %d: %s\n", i, b2_schunk_vlmeta_name(s, i));
    int bad = b2_schunk_meta_count(s) != 2 || b2_schunk_vlmeta_count(s) != 1;
    bad |= expect(s, 0, "units", "metres");
    bad |= expect(s, 0, "version", "v2");
    bad |= expect(s, 1, "note", "replaced by a longer note, of any length");

    uint8_t *content;
    int32_t len;
    rc = b2_schunk_vlmeta_get(s, "tmp", &content, &len);
    printf("deleted vlmetalayer tmp: %s\n", rc < 0 ? b2_strerror(rc) : "still there?!");
    bad |= rc >= 0;
    b2_schunk_free(s);
    if (bad) {
        fprintf(stderr, "metalayers: FAILED\n");
        return 1;
    }
    printf("metalayers: OK\n");
    return 0;
}
