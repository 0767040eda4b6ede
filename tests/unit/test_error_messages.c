/* SPDX-License-Identifier: BSD-3-Clause */
/* Error messages speak to the user (issue 39, part 6): no internal function
 * names (unless built with B2_ERROR_FUNCS), the file name once, "truncated"
 * wherever a file is cut (frame file, sparse frame, b2nd file, chunk), "not a
 * Blosc2 file" for random bytes and an .npy, no repeated text, and a long
 * message cut at a word boundary, never inside a hash. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "b2_chunk.h"
#include "b2_frame.h"
#include "b2_helpers_experimental.h"
#include "b2_nd.h"
#include "check.h"
#include "scratch.h"
#include "frame_open.h"
#include "b2_frame_experimental.h"

static char dir[64];

static int has(const char *msg, const char *part) { return msg && strstr(msg, part) != NULL; }

/* Occurrences of part in msg. */
static int count(const char *msg, const char *part)
{
    int n = 0;
    for (const char *p = msg; (p = strstr(p, part)) != NULL; p += strlen(part))
        n++;
    return n;
}

/* The checks every message gets: not empty, no "(b2_..." / "(frame_..." tags
 * in a default build, the code's text once. */
static void check_plain(const char *msg, const char *what)
{
    CHECK(msg && *msg, "%s: no message", what);
#ifndef B2_ERROR_FUNCS
    CHECK(!has(msg, "(b2_") && !has(msg, "(frame_") && !has(msg, "(nd_"),
          "%s: a function name in %s", what, msg);
#endif
    CHECK(count(msg, b2_strerror(b2_last_error_code())) <= 1, "%s: repeats itself: %s", what, msg);
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && write(fd, p, n) == (ssize_t)n, "write %s", path);
    if (fd >= 0)
        close(fd);
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(*n ? *n : 1);
    if (p && fread(p, 1, *n, f) != *n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    return p;
}

/* Cut points over n bytes: every one of the first 400, then about 150 more. */
static size_t next_cut(size_t c, size_t n)
{
    return c < 400 ? c + 1 : c + (n / 150 > 1 ? n / 150 : 1);
}

/* Every cut of a frame or b2nd file (nd: opened as an array) is "truncated",
 * named once, with no function tags; in memory too. */
static void sweep_frame_file(const uint8_t *full, size_t n, int nd, const char *what)
{
    char path[96];
    snprintf(path, sizeof path, "%s/cut_%s", dir, what);
    int bad = 0, cuts = 0;
    b2_open_options file, mem;
    b2_open_options_init(&file);
    file.path = path;
    b2_open_options_init(&mem);
    mem.buffer = full;
    for (size_t c = 0; c < n; c = next_cut(c, n), cuts++) {
        write_file(path, full, c);
        b2_schunk *s = NULL;
        b2_nd_array *a = NULL;
        int rc = nd ? b2_nd_open(path, B2_OPEN_READONLY, &a) : b2_schunk_open_with(&file, &s);
        const char *m = b2_last_error_message();
        if (rc >= 0 || !has(m, "truncated") || count(m, path) != 1) {
            if (bad++ < 5)
                CHECK(0, "%s cut at %zu of %zu: rc %d: %s", what, c, n, rc, m);
        }
        check_plain(m, what);
        (void)(nd ? b2_nd_free(a) : b2_schunk_free(s));
        if (c == 0)
            continue; /* an empty buffer is a parameter error in memory */
        mem.buffer_len = c;
        rc = nd ? b2_nd_open_buffer(full, c, 0, &a) : b2_schunk_open_with(&mem, &s);
        m = b2_last_error_message();
        if (rc >= 0 || !has(m, "truncated")) {
            if (bad++ < 5)
                CHECK(0, "%s buffer cut at %zu of %zu: rc %d: %s", what, c, n, rc, m);
        }
        (void)(nd ? b2_nd_free(a) : b2_schunk_free(s));
    }
    CHECK(bad == 0, "%s: %d of %d cuts not reported as truncated", what, bad, cuts);
    unlink(path);
}

/* A frame of a few chunks, in memory. */
static uint8_t *make_frame(size_t *n)
{
    b2_cparams p;
    b2_cparams_init(&p);
    p.typesize = 4;
    b2_schunk *s = t_new(&p);
    static int32_t v[4096];
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 4096; i++)
            v[i] = (i * 7919 + c) % 1000;
        CHECK(b2_schunk_append_buffer(s, v, sizeof v) == c + 1, "append %d", c);
    }
    uint8_t *f = NULL;
    CHECK(b2_schunk_to_buffer(s, &f, n) == B2_OK, "to_buffer");
    b2_schunk_free(s);
    return f;
}

static void test_cut_frames(void)
{
    size_t n = 0;
    uint8_t *f = make_frame(&n);
    sweep_frame_file(f, n, 0, "frame");
    free(f);
    /* a b2nd file of the interop set (several chunks, metalayers) */
    const char *td = getenv("B2_TEST_DATA");
    char path[512];
    snprintf(path, sizeof path, "%s/b2nd/a31_big.b2nd", td ? td : "test_data");
    uint8_t *nd = read_file(path, &n);
    CHECK(nd != NULL, "read %s", path);
    if (nd)
        sweep_frame_file(nd, n, 1, "b2nd");
    free(nd);
}

/* A chunk cut anywhere says "truncated" (decoding it and reading its header). */
static void test_cut_chunk(void)
{
    static int32_t src[20000];
    static uint8_t chunk[sizeof src + B2_MAX_OVERHEAD], out[sizeof src];
    for (int i = 0; i < 20000; i++)
        src[i] = (i * 7919) % 1000;
    b2_cparams p;
    b2_cparams_init(&p);
    p.typesize = 4;
    p.blocksize = 4096;
    b2_cctx *cc = b2_cctx_new(&p);
    int cb = b2_chunk_compress(cc, src, sizeof src, chunk, sizeof chunk);
    b2_cctx_free(cc);
    CHECK(cb > 0, "compress: %d", cb);
    b2_dctx *d = b2_dctx_new(1);
    int bad = 0;
    for (int c = 1; c < cb; c = (int)next_cut((size_t)c, (size_t)cb)) {
        int rc = b2_chunk_decompress(d, chunk, (size_t)c, out, sizeof out);
        const char *m = b2_last_error_message();
        if ((rc >= 0 || !has(m, "truncated")) && bad++ < 5)
            CHECK(0, "chunk cut at %d of %d: rc %d: %s", c, cb, rc, m);
        check_plain(m, "chunk");
    }
    CHECK(bad == 0, "chunk: %d cuts not reported as truncated", bad);
    b2_dctx_free(d);
}

/* A sparse frame: every cut of its index file is "truncated"; a cut chunk
 * file gives a clear error when read, never a crash. */
static void test_cut_sframe(void)
{
    char sdir[96], index[128], cpath[128];
    snprintf(sdir, sizeof sdir, "%s/sf.b2frame", dir);
    b2_cparams p;
    b2_cparams_init(&p);
    p.typesize = 4;
    b2_schunk *s = NULL;
    CHECK(t_create_sparse(sdir, &p, &s) == B2_OK, "create sframe: %s", b2_last_error_message());
    static int32_t v[4096];
    for (int i = 0; i < 4096; i++)
        v[i] = (i * 31) % 977;
    for (int c = 0; c < 3; c++)
        CHECK(b2_schunk_append_buffer(s, v, sizeof v) == c + 1, "append %d", c);
    b2_schunk_free(s);
    snprintf(index, sizeof index, "%s/chunks.b2frame", sdir);
    size_t n = 0, cn = 0;
    uint8_t *full = read_file(index, &n);
    CHECK(full != NULL, "read %s", index);
    int bad = 0;
    b2_open_options o;
    b2_open_options_init(&o);
    o.path = sdir;
    for (size_t c = 0; full && c < n; c = next_cut(c, n)) {
        write_file(index, full, c);
        int rc = b2_schunk_open_with(&o, &s);
        const char *m = b2_last_error_message();
        if ((rc >= 0 || !has(m, "truncated")) && bad++ < 5)
            CHECK(0, "sframe index cut at %zu of %zu: rc %d: %s", c, n, rc, m);
        check_plain(m, "sframe index");
        if (rc >= 0)
            b2_schunk_free(s);
    }
    CHECK(bad == 0, "sframe index: %d cuts not reported as truncated", bad);
    if (full)
        write_file(index, full, n);
    free(full);
    snprintf(cpath, sizeof cpath, "%s/00000001.chunk", sdir);
    uint8_t *chunk = read_file(cpath, &cn);
    CHECK(chunk != NULL, "read %s", cpath);
    for (size_t c = 0; chunk && c < cn; c = next_cut(c, cn)) {
        write_file(cpath, chunk, c);
        int rc = b2_schunk_open_with(&o, &s);
        if (rc >= 0) {
            rc = b2_schunk_decompress_chunk(s, 1, v, sizeof v);
            b2_schunk_free(s);
        }
        CHECK(rc < 0, "sframe chunk file cut at %zu of %zu decodes", c, cn);
        check_plain(b2_last_error_message(), "sframe chunk file");
    }
    free(chunk);
    test_rm_tree(sdir);
}

/* Random bytes and an .npy file are "not a Blosc2 file"; the .npy is named. */
static void test_not_blosc2(void)
{
    char path[96];
    uint8_t junk[4096];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof junk; i++) {
        x = x * 1103515245u + 12345u;
        junk[i] = (uint8_t)(x >> 16);
    }
    snprintf(path, sizeof path, "%s/random.bin", dir);
    write_file(path, junk, sizeof junk);
    b2_schunk *s = NULL;
    b2_open_options o;
    b2_open_options_init(&o);
    o.path = path;
    CHECK(b2_schunk_open_with(&o, &s) == B2_ERR_FORMAT, "random bytes open");
    const char *m = b2_last_error_message();
    CHECK(has(m, "not a Blosc2 file") && count(m, path) == 1 && !has(m, "flags"),
          "random bytes: %s", m);
    check_plain(m, "random bytes");
    CHECK(b2_inspect_path(path) == B2_KIND_UNKNOWN, "random bytes are of no known kind");
    /* an .npy header: magic, version 1.0, a dict padded to 64 bytes */
    memset(junk, ' ', 128);
    memcpy(junk, "\x93NUMPY\x01\x00\x76\x00{'descr': '<i8', 'fortran_order': False, 'shape': (100,), }",
           8 + 62);
    junk[127] = '\n';
    snprintf(path, sizeof path, "%s/x.npy", dir);
    write_file(path, junk, sizeof junk);
    CHECK(b2_schunk_open_with(&o, &s) == B2_ERR_FORMAT, ".npy open"); /* o.path: path, now x.npy */
    m = b2_last_error_message();
    CHECK(has(m, "not a Blosc2 file") && has(m, ".npy") && count(m, path) == 1 && !has(m, "flags2"),
          ".npy: %s", m);
    check_plain(m, ".npy");
    b2_nd_array *a = NULL;
    CHECK(b2_nd_open(path, 0, &a) < 0 && has(b2_last_error_message(), "not a Blosc2 file"),
          ".npy as an array: %s", b2_last_error_message());
}

/* A caller wrapping an inner message does not repeat the code's text; a
 * message too long for B2_ERRMSG_LEN ends at a word boundary with "...". */
static void test_repeat_and_length(void)
{
    b2_error_record(B2_ERR_CHECKSUM, "inner", "chunk 3: its 1600 stored bytes hash to %016llx",
                    0xe0d8d1ee9e3f173aULL);
    char inner[B2_ERRMSG_LEN];
    snprintf(inner, sizeof inner, "%s", b2_last_error_message());
    b2_error_record(B2_ERR_CHECKSUM, "outer", "rows 0..10: %s", inner);
    const char *m = b2_last_error_message();
    CHECK(count(m, "checksum mismatch") == 1 && has(m, "rows 0..10") && has(m, "e0d8d1ee9e3f173a"),
          "wrapped message: %s", m);
    check_plain(m, "wrapped");
    /* hashes and words past the limit: cut between two of them */
    char longmsg[2 * B2_ERRMSG_LEN], *q = longmsg;
    for (int i = 0; q < longmsg + sizeof longmsg - 40; i++)
        q += snprintf(q, 40, "hash %016llx, ", (unsigned long long)i * 0x9e3779b97f4a7c15ULL);
    b2_error_record(B2_ERR_CHECKSUM, NULL, "%s", longmsg);
    m = b2_last_error_message();
    size_t len = strlen(m);
    CHECK(len < B2_ERRMSG_LEN && len > B2_ERRMSG_LEN / 2, "long message: %zu bytes", len);
    CHECK(len > 3 && !strcmp(m + len - 3, "..."), "long message ends with ...: %s", m + len / 2);
    /* the part before "..." is the start of the full text, ending on a whole word */
    const char *body = m + strlen("checksum mismatch: ");
    size_t kept = len - 3 - strlen("checksum mismatch: ");
    CHECK(!strncmp(body, longmsg, kept) && (longmsg[kept] == ' ' || longmsg[kept] == ','),
          "cut mid-word: ...%.40s", m + len - 40);
#ifndef B2_ERROR_FUNCS
    CHECK(!has(b2_last_error_message(), "(outer)"), "no function name by default");
#endif
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/b2_errmsg_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_cut_frames();
    test_cut_chunk();
    test_cut_sframe();
    test_not_blosc2();
    test_repeat_and_length();
    test_rm_tree(dir);
    return b2t_summary("error messages");
}
