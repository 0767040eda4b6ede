/* SPDX-License-Identifier: BSD-3-Clause */
/* The HDF5 filter function called from several threads at once (issue 14): 8
 * threads compress and decompress their own chunks through the filter of the
 * dynamic plugin (dlopen'ed libH5Zb2.so, H5PLget_plugin_info), as HDF5 would
 * call it: 1-D chunks become plain frames, 2-D and 3-D chunks b2nd frames;
 * optional and mandatory; several codecs and shuffles; with 1 and then 2
 * decoding threads ($B2_H5_NTHREADS). Every chunk read back is compared with
 * the original. HDF5's own H5Dwrite/H5Dread are not used: a serial HDF5 is not
 * thread-safe. The filter's only calls into HDF5 are H5allocate_memory and
 * H5free_memory, and H5Epush2 when it fails: corrupt chunks are decoded from
 * the threads only when this HDF5 is a thread-safe build (Debian's is).
 * Every thread also damages real frames (cut short, a payload byte flipped)
 * and filters chunks of odd sizes in larger buffers (HDF5 2.2's size rules).
 * Run in every build and in CI's ThreadSanitizer build. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "check.h"
#include "plugin_filter.h"

#define NTHREADS 8
#define ROUNDS 3


static filter_fn filter;
static int hdf5_threadsafe;

typedef struct worker {
    int id;
    long checks, fails;
} worker;

static void wfail(worker *w, int line, const char *fmt, ...)
{
    if (++w->fails > 5)
        return;
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("FAIL %s:%d: thread %d: %s\n", __FILE__, line, w->id, msg);
}

#define WCHECK(w, cond, ...)                   \
    do {                                       \
        (w)->checks++;                         \
        if (!(cond))                           \
            wfail((w), __LINE__, __VA_ARGS__); \
    } while (0)

/* A compressible chunk of n bytes that differs with seed. */
static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t k = (uint32_t)(i / 4), v = (k + seed) / 5 + ((k * 2654435761u >> 15) & 1);
        p[i] = (uint8_t)(v >> (8 * (i % 4)));
    }
}

/* One chunk shape and pipeline: cd_values as set_local writes them. */
typedef struct chunk_case {
    int rank;
    unsigned dims[3];
    unsigned typesize, shuffle;
} chunk_case;

static const chunk_case cases[] = {
    {1, {20000}, 4, 1},        /* plain frame */
    {2, {96, 80}, 4, 1},       /* b2nd frame */
    {3, {12, 20, 30}, 8, 2},   /* b2nd frame, bitshuffle */
    {2, {64, 64}, 2, 0},
};
static const unsigned codecs[] = {0, 1, 2, 4, 5}; /* blosclz lz4 lz4hc zlib zstd */

static void one_chunk(worker *w, const chunk_case *c, unsigned codec, unsigned flags,
                      unsigned seed)
{
    unsigned cd[11] = {1, 0, c->typesize, 0, 5, c->shuffle, codec, (unsigned)c->rank};
    size_t items = 1, ncd = 7;
    for (int i = 0; i < c->rank; i++) {
        items *= c->dims[i];
        cd[8 + i] = c->dims[i];
    }
    if (c->rank >= 2)
        ncd = 8 + (size_t)c->rank;
    size_t nbytes = items * c->typesize;
    cd[3] = (unsigned)nbytes;
    uint8_t *orig = malloc(nbytes);
    void *buf = H5allocate_memory(nbytes, 0);
    fill(orig, nbytes, seed);
    memcpy(buf, orig, nbytes);
    size_t buf_size = nbytes;
    size_t clen = filter(flags, ncd, cd, nbytes, &buf_size, &buf);
    WCHECK(w, clen > 0 && clen < nbytes && buf, "rank %d codec %u flags %u: compressed to %zu of %zu",
           c->rank, codec, flags, clen, nbytes);
    if (clen > 0) {
        size_t dlen = filter(flags | H5Z_FLAG_REVERSE, ncd, cd, clen, &buf_size, &buf);
        WCHECK(w, dlen == nbytes && buf_size >= nbytes && buf && !memcmp(buf, orig, nbytes),
               "rank %d codec %u flags %u: decompressed %zu of %zu", c->rank, codec, flags, dlen,
               nbytes);
    }
    H5free_memory(buf);
    free(orig);
}

static herr_t find_ours(unsigned n, const H5E_error2_t *e, void *ud)
{
    (void)n;
    if (e->desc && strstr(e->desc, "blosc2 filter: decompression failed"))
        *(int *)ud = 1;
    return 0;
}

/* Bytes that are no frame: the filter fails (0), leaves HDF5 a buffer and its
 * message on this thread's error stack (a thread-safe HDF5 keeps one per thread),
 * which is then cleared (HDF5 frees no stack entries when a thread exits). */
static void corrupt_chunk(worker *w)
{
    unsigned cd[7] = {1, 0, 4, 4096, 5, 1, 1};
    size_t buf_size = 300;
    void *buf = H5allocate_memory(buf_size, 0);
    fill(buf, buf_size, (unsigned)w->id);
    size_t r = filter(H5Z_FLAG_REVERSE, 7, cd, buf_size, &buf_size, &buf);
    int found = 0;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, find_ours, &found);
    WCHECK(w, r == 0 && buf != NULL && found, "corrupt chunk: %zu, message %s", r,
           found ? "found" : "missing");
    H5Eclear2(H5E_DEFAULT);
    H5free_memory(buf);
}

/* A real frame damaged (cut short, or a byte of its payload flipped), and
 * chunks of odd sizes in odd buffers: the filter returns 0 (leaving HDF5 a
 * buffer) or exactly the chunk's size, never more than *buf_size (HDF5 2.2's
 * rules), from every thread at once. */
static void damaged_and_odd(worker *w)
{
    unsigned cd[7] = {1, 0, 1, 0, 5, 1, 5}; /* typesize 1, zstd */
    size_t nbytes = 20011 + (size_t)w->id * 7; /* odd sizes, no whole chunk */
    cd[3] = (unsigned)nbytes;
    uint8_t *orig = malloc(nbytes);
    fill(orig, nbytes, (unsigned)w->id + 77);
    for (int how = 0; how < (hdf5_threadsafe ? 3 : 1); how++) { /* failures push errors */
        size_t buf_size = nbytes + 13; /* HDF5 may hand a larger buffer */
        void *buf = H5allocate_memory(buf_size, 0);
        memcpy(buf, orig, nbytes);
        size_t clen = filter(H5Z_FLAG_MANDATORY, 7, cd, nbytes, &buf_size, &buf);
        WCHECK(w, clen > 0 && clen <= buf_size, "odd chunk of %zu: compressed to %zu of %zu",
               nbytes, clen, buf_size);
        if (how == 1)
            clen /= 2; /* cut short */
        if (how == 2)
            ((uint8_t *)buf)[clen / 2] ^= 0xFF; /* inside the compressed payload */
        size_t dlen = clen ? filter(H5Z_FLAG_REVERSE, 7, cd, clen, &buf_size, &buf) : 0;
        if (how == 0)
            WCHECK(w, dlen == nbytes && buf_size >= dlen && !memcmp(buf, orig, nbytes),
                   "odd chunk of %zu: decompressed %zu", nbytes, dlen);
        else
            WCHECK(w, (dlen == 0 || (dlen == nbytes && memcmp(buf, orig, nbytes))) && buf &&
                       buf_size >= 1 && dlen <= buf_size,
                   "damaged chunk (%d): %zu bytes returned", how, dlen);
        if (how == 1) /* a cut frame always fails */
            WCHECK(w, dlen == 0, "a cut frame decoded to %zu bytes", dlen);
        if (hdf5_threadsafe && dlen == 0) {
            int found = 0;
            H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, find_ours, &found);
            WCHECK(w, found, "damaged chunk (%d): our message is on this thread's stack", how);
            H5Eclear2(H5E_DEFAULT);
        }
        H5free_memory(buf);
    }
    free(orig);
}

static void *work(void *arg)
{
    worker *w = arg;
    for (int round = 0; round < ROUNDS; round++)
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
            unsigned codec = codecs[(k + (size_t)(w->id + round)) % (sizeof codecs / sizeof *codecs)];
            unsigned flags = (w->id + round) % 2 ? H5Z_FLAG_OPTIONAL : H5Z_FLAG_MANDATORY;
            one_chunk(w, &cases[k], codec, flags, (unsigned)(w->id * 100 + round * 10) + (unsigned)k);
            if (hdf5_threadsafe && k == 0)
                corrupt_chunk(w);
            if (k == 1)
                damaged_and_odd(w);
        }
    return NULL;
}

static void run(const char *nthreads)
{
    setenv("B2_H5_NTHREADS", nthreads, 1); /* read by the filter on every call */
    pthread_t t[NTHREADS];
    worker w[NTHREADS];
    for (int k = 0; k < NTHREADS; k++) {
        w[k] = (worker){.id = k};
        CHECK(pthread_create(&t[k], NULL, work, &w[k]) == 0, "thread %d not started", k);
    }
    long checks = 0, fails = 0;
    for (int k = 0; k < NTHREADS; k++) {
        pthread_join(t[k], NULL);
        checks += w[k].checks;
        fails += w[k].fails;
    }
    CHECK(fails == 0 && checks > 0, "%s decoding threads: %ld of %ld checks failed", nthreads,
          fails, checks);
    printf("filter from %d threads, %s decoding thread(s) each: %ld checks\n", NTHREADS, nthreads,
           checks);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("usage: test_h5threads path/to/libH5Zb2.so\n");
        return 2;
    }
    CHECK(H5open() >= 0, "H5open");
    hbool_t ts = 0;
    hdf5_threadsafe = H5is_library_threadsafe(&ts) >= 0 && ts;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the corrupt chunks' messages */
    filter = plugin_filter(argv[1]);
    if (filter) {
        run("1");
        run("2");
    }
    /* the threads' contexts are freed by their key's destructor */
    return b2t_summary("test_h5threads");
}
