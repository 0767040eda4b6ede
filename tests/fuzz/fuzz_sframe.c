/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz target: frames read from storage. The input packs a directory: records
 * of [id u8][length u32 LE][bytes] (a length past the end takes the rest), id
 * 0xFF being chunks.b2frame and any other id the chunk file %08X.chunk. The
 * directory is opened as a sparse frame (b2_schunk_open_with), and chunks.b2frame on
 * its own as a contiguous frame file, which takes the on-disk reader (partial
 * chunk reads) instead of the in-memory one of fuzz_frame. Each opened frame:
 * every chunk decoded, b2_schunk_read_blocks of two blocks decoded with
 * b2_chunk_decompress_rows (the same bytes as the whole chunk), items read whole
 * and as a range (the same bytes again), metalayers and vlmetalayers; and when
 * it holds a b2nd array, b2_nd_open and a slice. The files live in a directory
 * of this process under /dev/shm (or $TMPDIR), rewritten for every input.
 * Before that, the format module parses chunks.b2frame's bytes directly, as a
 * sparse frame's index file and as a contiguous frame file (fuzz_format.h). */
#include <string.h>
#include <unistd.h>

#include "b2_nd.h"
#include "fuzz_common.h"
#include "fuzz_format.h"
#include "b2_chunk_experimental.h"
#include "b2_frame_experimental.h"

#define FRAME_ID 0xFF

static char dir[512];
static uint8_t written[256]; /* ids whose file exists in dir */

static void file_name(char *p, size_t cap, int id)
{
    if (id == FRAME_ID)
        snprintf(p, cap, "chunks.b2frame");
    else
        snprintf(p, cap, "%08X.chunk", (unsigned)id);
}

static void file_path(char *p, size_t cap, int id)
{
    char name[32];
    file_name(name, sizeof name, id);
    snprintf(p, cap, "%s/%s", dir, name);
}

static void clear_dir(void)
{
    char p[600];
    for (int id = 0; id < 256; id++)
        if (written[id]) {
            file_path(p, sizeof p, id);
            unlink(p);
            written[id] = 0;
        }
}

static void remove_dir(void)
{
    clear_dir();
    rmdir(dir);
}

static int make_dir(void)
{
    if (dir[0])
        return 0;
    const char *base = getenv("TMPDIR");
    struct stat st;
    if (!base || !*base)
        base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/b2fuzz-sframe-%ld", base, (long)getpid());
    if (mkdir(dir, 0700) != 0 && stat(dir, &st) != 0) {
        dir[0] = 0;
        return -1;
    }
    atexit(remove_dir);
    return 0;
}

/* Write the packed records as files; returns 0, or -1 on an I/O failure. */
static int unpack(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    char name[32];
    while (in.n >= 5) {
        int id = (int)fuzz_take(&in, 1);
        size_t len = (size_t)fuzz_take(&in, 4);
        if (len > in.n)
            len = in.n;
        file_name(name, sizeof name, id);
        if (!fuzz_write_seed(dir, name, in.p, len))
            return -1;
        written[id] = 1;
        in.p += len;
        in.n -= len;
    }
    return 0;
}

/* The bytes chunks.b2frame ends up with (the last record of its id), or NULL. */
static const uint8_t *frame_record(const uint8_t *data, size_t size, size_t *len)
{
    fuzz_in in = {data, size};
    const uint8_t *found = NULL;
    while (in.n >= 5) {
        int id = (int)fuzz_take(&in, 1);
        size_t n = (size_t)fuzz_take(&in, 4);
        if (n > in.n)
            n = in.n;
        if (id == FRAME_ID) {
            found = in.p;
            *len = n;
        }
        in.p += n;
        in.n -= n;
    }
    return found;
}

/* The rows of one block, contiguous, at user. */
typedef struct block_ud {
    int32_t len;
    uint8_t *user;
} block_ud;

static int block_rows(void *ud, int32_t block, b2_block_rows *r)
{
    const block_ud *u = ud;
    (void)block;
    r->nd = 1;
    r->cnt[0] = 1;
    r->run = u->len;
    r->user = u->user;
    return B2_OK;
}

/* Blocks j of chunk i read alone must decode as in the whole chunk (out). */
static void check_read_blocks(b2_schunk *s, int64_t i, const uint8_t *out, int nb, unsigned sel)
{
    const uint8_t *view;
    int32_t cb;
    b2_chunk_info info;
    if (b2_schunk_chunk_view(s, i, &view, &cb) < 0 ||
        b2_chunk_get_info(view, (size_t)cb, &info) < 0 || info.nblocks < 1 || info.vlblocks ||
        info.nbytes != nb)
        return;
    int32_t blocks[2] = {(int32_t)(sel % (unsigned)info.nblocks), info.nblocks - 1};
    uint8_t *part = NULL;
    if (b2_schunk_read_blocks(s, i, blocks, 2, &part, &cb) < 0)
        return;
    b2_dctx *d = b2_dctx_new(1);
    uint8_t *blk = fuzz_malloc((size_t)info.eff_blocksize);
    for (int k = 0; k < 2 && d && blk; k++) {
        int32_t j = blocks[k];
        block_ud u = {j == info.nblocks - 1 && info.leftover ? info.leftover : info.eff_blocksize, blk};
        /* the frame's geometry (plugins), as the frame decoded the whole chunk */
        b2_dctx_set_geometry(d, &b2_schunk_cparams(s)->geometry);
        if (b2_chunk_decompress_rows(d, part, (size_t)cb, &j, 1, block_rows, &u) >= 0)
            FUZZ_CHECK(!memcmp(blk, out + (int64_t)j * info.eff_blocksize, (size_t)u.len),
                       "blocks read alone decode otherwise");
    }
    free(blk);
    b2_dctx_free(d);
    free(part);
}

enum { FUZZ_MAX_CHUNKS = 4096 };

static void read_frame(b2_schunk *s, unsigned sel)
{
    int64_t n = b2_schunk_nchunks(s);
    for (int64_t i = 0; i < n && i < 64; i++) {
        int nb = b2_schunk_chunk_nbytes(s, i);
        b2_schunk_chunk_cbytes(s, i);
        if (nb < 0 || (uint32_t)nb > FUZZ_MAX_OUTPUT)
            continue;
        uint8_t *out = fuzz_malloc((size_t)nb);
        if (out && b2_schunk_decompress_chunk(s, i, out, (size_t)nb) == nb &&
            b2_schunk_chunk_special(s, i) == B2_SPECIAL_NONE)
            check_read_blocks(s, i, out, nb, sel);
        free(out);
    }
    int32_t ts = b2_schunk_typesize(s);
    int64_t nbytes = b2_schunk_nbytes(s);
    /* a frame of many tiny chunks could still keep the scan below busy for long:
     * the whole-versus-range check runs on frames of at most FUZZ_MAX_CHUNKS */
    if (ts > 0 && nbytes > 0 && nbytes <= FUZZ_MAX_OUTPUT && n <= FUZZ_MAX_CHUNKS) {
        /* uninitialised chunks may read differently each time; stop at the first
         * unreadable chunk, where get_items stops too */
        int uninit = 0, sp = 0;
        for (int64_t i = 0; i < n && !uninit && sp >= 0; i++)
            uninit = (sp = b2_schunk_chunk_special(s, i)) == B2_SPECIAL_UNINIT;
        int64_t items = nbytes / ts, a = (int64_t)(sel * 7919u % (unsigned)(items + 1));
        int64_t k = (int64_t)((sel >> 8) % (uint64_t)(items - a + 1));
        uint8_t *all = fuzz_calloc((size_t)nbytes), *part = fuzz_calloc((size_t)(k * ts));
        if (all && part && b2_schunk_get_items(s, 0, items, all, (size_t)nbytes) >= 0 &&
            b2_schunk_get_items(s, a, k, part, (size_t)(k * ts)) >= 0 && !uninit)
            FUZZ_CHECK(!memcmp(all + a * ts, part, (size_t)(k * ts)),
                       "a range of items differs from the whole");
        free(all);
        free(part);
    }
    fuzz_read_metalayers(s);
}

/* A b2nd array at path: read whole when small, and one slice. */
static void read_array(const char *path, unsigned sel)
{
    b2_nd_array *a = NULL;
    if (b2_nd_open(path, B2_OPEN_READONLY, &a) < 0)
        return;
    int nd = b2_nd_ndim(a);
    const int64_t *shape = b2_nd_shape(a);
    int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM], bytes = b2_nd_typesize(a), box = bytes;
    for (int d = 0; d < nd && bytes >= 0 && bytes <= FUZZ_MAX_OUTPUT; d++) {
        start[d] = shape[d] ? (int64_t)((sel >> d) % (unsigned)shape[d]) : 0;
        stop[d] = shape[d];
        bytes = shape[d] && bytes > INT64_MAX / shape[d] ? -1 : bytes * shape[d];
        box *= stop[d] - start[d];
    }
    if (bytes >= 0 && bytes <= FUZZ_MAX_OUTPUT) {
        uint8_t *out = fuzz_malloc((size_t)bytes);
        if (out && b2_nd_to_cbuffer(a, out, (size_t)bytes) >= 0)
            b2_nd_get_slice_cbuffer(a, start, stop, out, (size_t)box);
        free(out);
    }
    b2_nd_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (make_dir() < 0)
        return 0;
    clear_dir();
    if (unpack(data, size) < 0)
        return 0;
    /* files may hold more than the frame: frame_len need not be exact */
    size_t flen = 0;
    const uint8_t *fb = frame_record(data, size, &flen);
    int parsed[2] = {fb ? fuzz_format_parse(fb, flen, 1, 0) : B2_ERR_NOT_FOUND,
                     fb ? fuzz_format_parse(fb, flen, 0, 0) : B2_ERR_NOT_FOUND};
    unsigned sel = size >= 2 ? (unsigned)fuzz_le(data + size - 2, 2) : 0;
    char frame[600];
    file_path(frame, sizeof frame, FRAME_ID);
    const char *paths[2] = {dir, frame};
    for (int k = 0; k < 2; k++) {
        b2_schunk *s = NULL;
        if (fuzz_open_path(paths[k], &s) < 0)
            continue;
        FUZZ_CHECK(parsed[k] == B2_OK, "a frame opens that the format module refuses");
        read_frame(s, sel);
        int nd = b2_schunk_meta_count(s) > 0;
        b2_schunk_free(s);
        if (nd)
            read_array(paths[k], sel);
    }
    return 0;
}

/* ---- seeds ---- */

typedef struct packer {
    uint8_t *buf;
    size_t len;
} packer;

static void pack(packer *p, int id, const uint8_t *b, size_t n)
{
    uint8_t *nb = realloc(p->buf, p->len + 5 + n + 1);
    if (!nb)
        return;
    p->buf = nb;
    p->buf[p->len] = (uint8_t)id;
    for (int i = 0; i < 4; i++)
        p->buf[p->len + 1 + i] = (uint8_t)(n >> (8 * i));
    if (n)
        memcpy(p->buf + p->len + 5, b, n);
    p->len += 5 + n;
}

static void pack_file(packer *p, int id, const char *path)
{
    size_t n = 0;
    uint8_t *b = fuzz_read_file(path, &n);
    if (b)
        pack(p, id, b, n);
    free(b);
}

/* One seed per frame: an sframe directory (chunk ids above 0xFE are left out)
 * or a contiguous frame file (one record). */
static void seed_from_frame(const char *path, void *ud)
{
    fuzz_seeds *out = ud;
    struct stat st;
    packer p = {NULL, 0};
    if (stat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        char f[4096];
        snprintf(f, sizeof f, "%s/chunks.b2frame", path);
        pack_file(&p, FRAME_ID, f);
        for (int id = 0; id < FRAME_ID; id++) {
            snprintf(f, sizeof f, "%s/%08X.chunk", path, (unsigned)id);
            if (stat(f, &st) == 0)
                pack_file(&p, id, f);
        }
    } else {
        pack_file(&p, FRAME_ID, path);
    }
    char name[300];
    snprintf(name, sizeof name, "%s.packed", fuzz_basename(path));
    if (p.len)
        out->n += fuzz_write_seed(out->outdir, name, p.buf, p.len);
    free(p.buf);
}

/* Small sparse frames made here (the reference ones are mostly larger than a
 * fuzzing run's inputs): a plain one with metalayers, specials and a
 * vlmetalayer, and a 2-D b2nd array. */
static void unlink_cb(const char *path, void *ud)
{
    (void)ud;
    unlink(path);
}

static void seed_made(fuzz_seeds *out, const char *tmp, int kind)
{
    char d[600];
    snprintf(d, sizeof d, "%s/made%d", tmp, kind);
    fuzz_each_path(d, unlink_cb, NULL); /* a previous run's */
    rmdir(d);
    float v[600];
    for (int i = 0; i < 600; i++)
        v[i] = (float)(i % 37) * 0.25f;
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    cp.codec = kind ? B2_CODEC_ZSTD : B2_CODEC_LZ4;
    cp.blocksize = 512;
    if (kind == 0) {
        b2_schunk *s = NULL;
        if (fuzz_create(d, 1, &cp, &s) < 0)
            return;
        b2_schunk_meta_add(s, "fuzz", "\x93\x01\x02\x03", 4);
        b2_schunk_append_buffer(s, v, sizeof v);
        b2_schunk_append_buffer(s, v + 100, 1600);
        uint8_t z[B2_HEADER_LEN];
        if (b2_chunk_make_special(B2_SPECIAL_ZEROS, 4, 1600, NULL, z, sizeof z) > 0)
            b2_schunk_append_chunk(s, z, B2_HEADER_LEN);
        b2_schunk_vlmeta_add(s, "note", "sparse", 6);
        b2_schunk_free(s);
    } else {
        b2_nd_params np = {.ndim = 2, .shape = {20, 30}, .chunkshape = {10, 16},
                           .blockshape = {5, 8}, .typesize = 4, .dtype = "<f4", .cparams = &cp};
        b2_nd_storage st = {B2_STORAGE_SPARSE, d};
        b2_nd_array *a = NULL;
        if (b2_nd_from_cbuffer(&np, &st, v, sizeof v, &a) < 0)
            return;
        b2_nd_free(a);
    }
    seed_from_frame(d, out);
    fuzz_each_path(d, unlink_cb, NULL);
    rmdir(d);
}

int fuzz_make_seeds(const char *outdir, int argc, char **argv)
{
    fuzz_seeds out = {outdir, 0};
    for (int i = 0; i < argc; i++)
        fuzz_each_path(argv[i], seed_from_frame, &out);
    for (int kind = 0; kind < 2; kind++)
        seed_made(&out, outdir, kind);
    return out.n;
}
