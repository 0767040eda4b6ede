/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared limits and helpers of the fuzz harnesses: what a harness refuses to
 * attempt so a run measures parsing, not allocation of sizes the input merely
 * declares; parameters drawn from the input; seed files. */
#ifndef B2_FUZZ_COMMON_H
#define B2_FUZZ_COMMON_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "b2_chunk.h"
#include "b2_frame.h"

/* Largest decoded size a harness allocates: special chunks declare any size in
 * 32 bytes, and filling tens of megabytes per input would be most of a run. */
#define FUZZ_MAX_OUTPUT (8u << 20)

/* Buffers handed to the library get exactly the capacity the call is told
 * (never a spare byte that would hide a one-byte overrun from ASan); only an
 * empty one becomes one byte, as malloc(0) may give NULL. */
static inline void *fuzz_malloc(size_t n) { return malloc(n ? n : 1); }
static inline void *fuzz_calloc(size_t n) { return calloc(1, n ? n : 1); }

/* Frame handles, the one way the library gives them (b2_schunk_open_with):
 * a frame in memory, borrowed read-only (copy 0) or copied writable (copy 1),
 * an empty one (data NULL, size 0) still naming the memory source; */
static inline int fuzz_open_buffer(const void *data, size_t size, int copy, b2_schunk **out)
{
    b2_open_options o;
    b2_open_options_init(&o);
    o.buffer = (data || size) ? data : "";
    o.buffer_len = size;
    o.copy_buffer = copy;
    o.flags = copy ? B2_OPEN_WRITE : B2_OPEN_READONLY;
    return b2_schunk_open_with(&o, out);
}
/* a frame file or sparse-frame directory, read-only; */
static inline int fuzz_open_path(const char *path, b2_schunk **out)
{
    b2_open_options o;
    b2_open_options_init(&o);
    o.path = path;
    o.flags = B2_OPEN_READONLY;
    return b2_schunk_open_with(&o, out);
}
/* a new, empty frame: in memory (path NULL), or a sparse frame in the directory path. */
static inline int fuzz_create(const char *path, int sparse, const b2_cparams *cp, b2_schunk **out)
{
    b2_open_options o;
    b2_open_options_init(&o);
    o.flags = B2_OPEN_CREATE;
    o.path = path;
    o.sparse = sparse;
    o.cparams = cp;
    return b2_schunk_open_with(&o, out);
}

/* libFuzzer's entry point, also called by replay.c for regression files. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Optional, defined by harnesses whose inputs are not plain files of the
 * reference vectors (an sframe packed into one input, a filter call with its
 * cd_values, ...): write seed inputs into the existing directory outdir, made
 * from the paths given (or from nothing). `replay_<entry> --make-seeds outdir
 * paths...` calls it; returns the number of seeds written, or -1. */
int fuzz_make_seeds(const char *outdir, int argc, char **argv) __attribute__((weak));

/* A finding the sanitizers cannot see (two decodings of the same bytes differ,
 * a round trip loses data): report and abort, so libFuzzer keeps the input. */
#define FUZZ_CHECK(cond, what)                                                  \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", what, __FILE__, __LINE__); \
            abort();                                                            \
        }                                                                       \
    } while (0)

/* Little-endian value of n (<= 8) bytes at p, for parameters taken from input. */
static inline uint64_t fuzz_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The unread part of an input; parameters are taken from its front. */
typedef struct fuzz_in {
    const uint8_t *p;
    size_t n;
} fuzz_in;

/* Next k (<= 8) bytes as a little-endian value; missing bytes read as 0. */
static inline uint64_t fuzz_take(fuzz_in *in, size_t k)
{
    size_t got = k < in->n ? k : in->n;
    uint64_t v = fuzz_le(in->p, got);
    in->p += got;
    in->n -= got;
    return v;
}

/* A block shape of ndim 1..4 (sel & 3, plus one) whose product is items, split
 * as evenly as the divisors allow (sel's higher bits nudge the split); with
 * sel & 0x80 the last extent is one larger, a shape that does not fit the block.
 * How the chunk-level harnesses name the geometry a chunk may need. */
static inline void fuzz_geometry(int64_t items, unsigned sel, b2_block_geometry *g)
{
    g->ndim = 1 + (int)(sel & 3);
    int64_t rem = items < 1 ? 1 : items;
    for (int d = 0; d < g->ndim - 1; d++) {
        int left = g->ndim - d; /* extents still to choose, this one included */
        int64_t t = 1;          /* about rem^(1/left) */
        for (;;) {
            int64_t p = 1;
            for (int k = 0; k < left && p <= rem; k++)
                p *= t + 1;
            if (p > rem)
                break;
            t++;
        }
        if ((sel >> 2) & 1)
            t += (sel >> 3) & 3;
        if (t > rem)
            t = rem;
        while (rem % t)
            t--;
        g->blockshape[d] = (int32_t)t;
        rem /= t;
    }
    g->blockshape[g->ndim - 1] = (int32_t)(rem > INT32_MAX - 1 ? INT32_MAX - 1 : rem);
    if (sel & 0x80)
        g->blockshape[g->ndim - 1]++;
}

/* Where fuzz_make_seeds writes, and how many it wrote. */
typedef struct fuzz_seeds {
    const char *outdir;
    int n;
} fuzz_seeds;

/* Whether compressing with p may change the data (zfp, trunc_prec, ndmean, int_trunc). */
static inline int fuzz_lossy(const b2_cparams *p)
{
    int lossy = p->codec >= B2_CODEC_ZFP_ACC && p->codec <= B2_CODEC_ZFP_RATE;
    for (int i = 0; i < B2_MAX_FILTERS; i++)
        lossy |= p->filters[i] == B2_FILTER_TRUNC_PREC || p->filters[i] == B2_FILTER_NDMEAN ||
                 p->filters[i] == B2_FILTER_INT_TRUNC;
    return lossy;
}

/* Write a seed file outdir/name; returns 1, or 0 when it cannot be written. */
static inline int fuzz_write_seed(const char *outdir, const char *name, const void *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    size_t w = n ? fwrite(p, 1, n, f) : 0;
    return (fclose(f) == 0 && w == n) ? 1 : 0;
}

/* Whole file into a malloc'ed buffer (*len bytes); NULL when unreadable. */
/* Read every metalayer and vlmetalayer of s (their parsers are under test). */
static inline void fuzz_read_metalayers(b2_schunk *s)
{
    for (int k = 0; k < b2_schunk_meta_count(s); k++) {
        uint8_t *c = NULL;
        int32_t len;
        const char *name = b2_schunk_meta_name(s, k);
        if (name && b2_schunk_meta_get(s, name, &c, &len) >= 0)
            free(c);
    }
    for (int k = 0; k < b2_schunk_vlmeta_count(s); k++) {
        uint8_t *c = NULL;
        int32_t len;
        const char *name = b2_schunk_vlmeta_name(s, k);
        if (name && b2_schunk_vlmeta_get(s, name, &c, &len) >= 0)
            free(c);
    }
}

static inline uint8_t *fuzz_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0, got;
    uint8_t tmp[65536];
    while ((got = fread(tmp, 1, sizeof tmp, f)) > 0) {
        if (n + got > cap) {
            cap = 2 * (n + got);
            uint8_t *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        memcpy(buf + n, tmp, got);
        n += got;
    }
    fclose(f);
    if (!buf)
        buf = malloc(1);
    *len = n;
    return buf;
}

/* Call fn on path, or on each entry of the directory path (one level, sorted
 * by name, dot files skipped; entries may be directories: sparse frames). */
static inline int fuzz_cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}
static inline void fuzz_each_path(const char *path, void (*fn)(const char *, void *), void *ud)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        fn(path, ud);
        return;
    }
    DIR *d = opendir(path);
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char **nn = e->d_name[0] != '.' ? realloc(names, (n + 1) * sizeof *names) : NULL;
        if (!nn)
            continue;
        names = nn;
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        if ((names[n] = malloc(len)) != NULL)
            snprintf(names[n++], len, "%s/%s", path, e->d_name);
    }
    if (d)
        closedir(d);
    if (n)
        qsort(names, n, sizeof *names, fuzz_cmp_names);
    for (size_t i = 0; i < n; i++) {
        fn(names[i], ud);
        free(names[i]);
    }
    free(names);
}

/* The last component of path, for naming seeds after their source. */
static inline const char *fuzz_basename(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* fuzz_make_seeds for harnesses that make one or more seeds per path given:
 * fn(path, seeds) on every file or directory entry named. */
static inline int fuzz_seeds_from(const char *outdir, int argc, char **argv,
                                  void (*fn)(const char *, void *))
{
    fuzz_seeds s = {outdir, 0};
    for (int i = 0; i < argc; i++)
        fuzz_each_path(argv[i], fn, &s);
    return s.n;
}

#endif
