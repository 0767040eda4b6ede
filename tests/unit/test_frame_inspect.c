/* SPDX-License-Identifier: BSD-3-Clause */
/* Public inspection (b2_frame.h): b2_inspect_buffer / b2_inspect_path tell every
 * kind (chunk, frame, sparse frame, b2nd, HDF5 by its signature, unknown) and
 * refuse NULL, empty and truncated input with error codes; b2_schunk_frame_info
 * and b2_schunk_frame_entry agree with the header bytes of a frame built with
 * known parameters and with every reference vector's manifest; cut and
 * corrupted headers give error codes, never a crash. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "b2_frame.h"
#include "b2_internal.h"
#include "check.h"
#include "manifest.h"
#include "scratch.h"
#include "frame_open.h"
#include "b2_frame_experimental.h"

#define CHUNKSIZE 40000
static char tmpdir[64];

static void write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(p, 1, n, f) == n, "write %s", path);
    if (f)
        fclose(f);
}

static const char *tmp_path(char *buf, const char *name)
{
    snprintf(buf, 4096, "%s/%s", tmpdir, name);
    return buf;
}

static void known_cparams(b2_cparams *cp)
{
    b2_cparams_init(cp);
    cp->codec = B2_CODEC_ZSTD;
    cp->clevel = 7;
    cp->typesize = 4;
    cp->blocksize = 8192;
    cp->splitmode = B2_SPLIT_NEVER;
    memset(cp->filters, 0, sizeof cp->filters);
    cp->filters[4] = B2_FILTER_DELTA;
    cp->filters[5] = B2_FILTER_SHUFFLE;
    cp->filters_meta[4] = 3;
}

/* Three regular chunks and one of zeros (an index entry), a metalayer and a vlmetalayer. */
static void fill(b2_schunk *s)
{
    static int32_t data[CHUNKSIZE / 4];
    uint8_t zeros[B2_HEADER_LEN];
    CHECK(b2_schunk_meta_add(s, "abc", "xyz", 3) >= 0, "meta_add");
    for (int c = 0; c < 3; c++) {
        for (int k = 0; k < CHUNKSIZE / 4; k++)
            data[k] = k * (c + 1) + (k % 7);
        CHECK(b2_schunk_append_buffer(s, data, CHUNKSIZE) == c + 1, "append %d", c);
    }
    CHECK(b2_chunk_make_special(B2_SPECIAL_ZEROS, 4, CHUNKSIZE, NULL, zeros, sizeof zeros) > 0,
          "make_special");
    CHECK(b2_schunk_append_chunk(s, zeros, B2_HEADER_LEN) == 4, "append zeros");
    CHECK(b2_schunk_vlmeta_add(s, "note", "hello", 5) >= 0, "vlmeta_add");
}

/* Frame info and entries of s, checked against the known parameters and, when
 * raw is given, against the header bytes themselves. */
static void check_known(b2_schunk *s, const uint8_t *raw, int storage)
{
    b2_frame_info fi;
    CHECK(b2_schunk_frame_info(s, &fi) == B2_OK, "frame_info");
    CHECK(fi.storage == storage && fi.sparse == (storage == B2_STORAGE_SPARSE), "storage %d",
          fi.storage);
    CHECK(fi.codec == B2_CODEC_ZSTD && fi.clevel == 7 && fi.typesize == 4 && fi.blocksize == 8192,
          "codec %d clevel %d typesize %d blocksize %d", fi.codec, fi.clevel, fi.typesize,
          fi.blocksize);
    CHECK(fi.splitmode == B2_SPLIT_NEVER && !fi.use_dict && fi.codec_meta == 0, "splitmode %d",
          fi.splitmode);
    CHECK(fi.filters[4] == B2_FILTER_DELTA && fi.filters[5] == B2_FILTER_SHUFFLE &&
              fi.filters_meta[4] == 3 && fi.filters[0] == 0,
          "filters");
    CHECK(fi.chunksize == CHUNKSIZE && fi.nchunks == 4 && fi.nbytes == 4 * CHUNKSIZE,
          "chunksize %d nchunks %lld", fi.chunksize, (long long)fi.nchunks);
    CHECK(fi.version == 2 && fi.has_vlmeta == 1 && fi.nmetalayers == 1 && fi.nvlmetalayers == 1,
          "version %d has_vlmeta %d", fi.version, fi.has_vlmeta);
    CHECK(fi.header_len == b2_schunk_header_len(s) && fi.frame_len == b2_schunk_frame_len(s) &&
              fi.cbytes == b2_schunk_cbytes(s) && fi.trailer_len > 0,
          "lengths");
    CHECK(fi.dead_bytes == b2_schunk_dead_bytes(s), "dead bytes %lld", (long long)fi.dead_bytes);
    if (raw) { /* doc/format/frame.md §2: the fixed header by position */
        CHECK(fi.header_len == (int32_t)b2_load_be32(raw + 11), "raw header_len");
        CHECK(fi.frame_len == (int64_t)b2_load_be64(raw + 16), "raw frame_len");
        CHECK(fi.general_flags == raw[25] && fi.frame_type == raw[26] &&
                  fi.codec_flags == raw[27] && fi.other_flags == raw[28] &&
                  fi.other_flags2 == raw[85],
              "raw flags");
        CHECK(fi.nbytes == (int64_t)b2_load_be64(raw + 30) &&
                  fi.cbytes == (int64_t)b2_load_be64(raw + 39),
              "raw nbytes/cbytes");
        CHECK(fi.tcomp == (int16_t)(raw[63] << 8 | raw[64]) &&
                  fi.tdecomp == (int16_t)(raw[66] << 8 | raw[67]),
              "raw threads");
        CHECK(!memcmp(fi.filters, raw + 71, 6) && !memcmp(fi.filters_meta, raw + 79, 6) &&
                  fi.codec_meta == raw[78],
              "raw filters");
    }
    for (int64_t i = 0; i < 4; i++) {
        b2_frame_entry e;
        CHECK(b2_schunk_frame_entry(s, i, &e) == B2_OK, "entry %lld", (long long)i);
        CHECK(e.nbytes == CHUNKSIZE && e.cbytes == b2_schunk_chunk_cbytes(s, i), "entry %lld sizes",
              (long long)i);
        if (i == 3) {
            CHECK(e.kind == B2_ENTRY_SPECIAL && e.special == B2_SPECIAL_ZEROS &&
                      e.stored_bytes == 0 && e.cbytes == B2_HEADER_LEN && e.offset == -1 &&
                      e.raw < 0,
                  "special entry kind %d", e.kind);
            continue;
        }
        CHECK(e.special == B2_SPECIAL_NONE && e.stored_bytes == e.cbytes && e.offset == e.raw,
              "entry %lld", (long long)i);
        if (storage == B2_STORAGE_SPARSE) {
            CHECK(e.kind == B2_ENTRY_FILE && e.offset >= 0, "sparse entry kind %d", e.kind);
        } else {
            CHECK(e.kind == B2_ENTRY_OFFSET && e.offset >= 0 &&
                      e.offset + e.stored_bytes <= fi.cbytes,
                  "entry %lld offset %lld", (long long)i, (long long)e.offset);
            uint8_t *chunk = NULL;
            int32_t cb = 0;
            if (raw && b2_schunk_get_chunk(s, i, &chunk, &cb) >= 0)
                CHECK(cb == e.stored_bytes &&
                          !memcmp(raw + fi.header_len + e.offset, chunk, (size_t)cb),
                      "entry %lld names its chunk's bytes", (long long)i);
            free(chunk);
        }
    }
    b2_frame_entry e;
    CHECK(b2_schunk_frame_entry(s, 4, &e) == B2_ERR_RANGE, "entry past the end");
    CHECK(b2_schunk_frame_entry(s, -1, &e) == B2_ERR_RANGE, "entry -1");
    CHECK(b2_schunk_frame_entry(s, 0, NULL) == B2_ERR_INVALID_PARAM, "NULL entry");
    CHECK(b2_schunk_frame_info(s, NULL) == B2_ERR_INVALID_PARAM, "NULL info");
}

/* Every prefix and single-byte corruption of a frame's header: an error code or
 * a kind, never a crash; whatever opens answers frame_info and entry calls. */
static void hostile(const uint8_t *frame, size_t len)
{
    uint8_t *copy = malloc(len);
    int32_t hlen = (int32_t)b2_load_be32(frame + 11);
    for (size_t n = 1; n < len; n += n < 400 ? 1 : 997) {
        int k = b2_inspect_buffer(frame, n);
        if (n < 87 || n < (size_t)hlen) /* a cut inside the magic too */
            CHECK(k == B2_ERR_TRUNCATED, "prefix %zu: %d", n, k);
        else
            CHECK(k == B2_KIND_FRAME, "prefix %zu: %d", n, k);
    }
    for (int32_t pos = 0; pos < hlen; pos++) {
        for (int flip = 0; flip < 2; flip++) {
            memcpy(copy, frame, len);
            copy[pos] ^= flip ? 0xff : 0x01;
            int k = b2_inspect_buffer(copy, len);
            CHECK(k <= B2_KIND_HDF5, "flip %d: %d", pos, k);
            b2_schunk *s;
            if (t_open_buffer(copy, len, 0, &s) < 0)
                continue;
            b2_frame_info fi;
            CHECK(b2_schunk_frame_info(s, &fi) == B2_OK, "flip %d: frame_info", pos);
            for (int64_t i = 0; i < fi.nchunks && i < 8; i++) {
                b2_frame_entry e;
                int rc = b2_schunk_frame_entry(s, i, &e);
                CHECK(rc == B2_OK || rc < 0, "flip %d entry", pos);
            }
            b2_schunk_free(s);
        }
    }
    free(copy);
}

static void built_frames(void)
{
    b2_cparams cp;
    char path[4096], sub[4200];
    known_cparams(&cp);

    b2_schunk *s = t_new(&cp);
    fill(s);
    uint8_t *buf = NULL;
    size_t len = 0;
    CHECK(b2_schunk_to_buffer(s, &buf, &len) == B2_OK, "to_buffer");
    b2_schunk_free(s);
    CHECK(b2_inspect_buffer(buf, len) == B2_KIND_FRAME, "frame buffer");
    CHECK(t_open_buffer(buf, len, 0, &s) == B2_OK, "open_buffer");
    check_known(s, buf, B2_STORAGE_MEMORY);
    b2_schunk_free(s);
    hostile(buf, len);

    /* The same frame as a file; then an update leaves dead bytes. */
    write_file(tmp_path(path, "f.b2frame"), buf, len);
    CHECK(b2_inspect_path(path) == B2_KIND_FRAME, "frame file");
    CHECK(t_open(path, B2_OPEN_WRITE, &s) == B2_OK, "open file");
    check_known(s, buf, B2_STORAGE_FILE);
    uint8_t *c0 = NULL;
    int32_t cb0 = 0;
    CHECK(b2_schunk_get_chunk(s, 1, &c0, &cb0) >= 0 && b2_schunk_update_chunk(s, 0, c0, cb0) == 4,
          "update");
    free(c0);
    b2_frame_info fi;
    CHECK(b2_schunk_frame_info(s, &fi) == B2_OK && fi.dead_bytes > 0 &&
              fi.dead_bytes == b2_schunk_dead_bytes(s),
          "dead bytes after an update: %lld", (long long)fi.dead_bytes);
    b2_schunk_free(s);

    /* Bytes before a frame: not a frame at offset 0 (open it with an offset). */
    uint8_t *shifted = calloc(len + 100, 1);
    memcpy(shifted + 100, buf, len);
    CHECK(b2_inspect_buffer(shifted, len + 100) == B2_KIND_UNKNOWN, "frame at an offset");
    free(shifted);

    /* A sparse frame, and its chunks.b2frame alone. */
    CHECK(t_create_sparse(tmp_path(path, "sf"), &cp, &s) == B2_OK, "create sframe");
    fill(s);
    check_known(s, NULL, B2_STORAGE_SPARSE);
    b2_schunk_free(s);
    CHECK(b2_inspect_path(path) == B2_KIND_SFRAME, "sparse dir");
    snprintf(sub, sizeof sub, "%s/chunks.b2frame", path);
    CHECK(b2_inspect_path(sub) == B2_ERR_FORMAT, "chunks.b2frame alone");
    uint8_t *idx = NULL;
    size_t idxlen = 0;
    idx = test_read_file(sub, &idxlen);
    CHECK(idx && b2_inspect_buffer(idx, idxlen) == B2_ERR_FORMAT, "chunks.b2frame in memory");
    free(idx);
    CHECK(t_open(path, B2_OPEN_READONLY, &s) == B2_OK, "open sframe");
    check_known(s, NULL, B2_STORAGE_SPARSE);
    b2_schunk_free(s);

    /* A sparse frame with a b2nd metalayer is a b2nd array. */
    CHECK(t_create_sparse(tmp_path(path, "sfnd"), &cp, &s) == B2_OK, "create sframe");
    /* b2nd metalayer: version 0, 1 dimension, shape 10, chunks 10, blocks 10, "<i4" */
    static const uint8_t nd[] = {0x97, 0, 1, 0x91, 0xd3, 0, 0, 0, 0, 0, 0, 0, 10, 0x91, 0xd2, 0, 0, 0,
                                 10, 0x91, 0xd2, 0, 0, 0, 10, 0, 0xdb, 0, 0, 0, 3, '<', 'i', '4'};
    CHECK(b2_schunk_meta_add(s, "b2nd", nd, (int32_t)sizeof nd) >= 0, "b2nd meta: %s",
          b2_last_error_message());
    b2_schunk_free(s);
    CHECK(b2_inspect_path(path) == B2_KIND_B2ND, "sparse b2nd");
    mkdir(tmp_path(path, "plain"), 0700);
    CHECK(b2_inspect_path(path) == B2_KIND_UNKNOWN, "plain directory");
    free(buf);
}

static void other_kinds(void)
{
    static const uint8_t sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    char path[4096];
    uint8_t buf[4096];
    b2_cparams cp;
    b2_cparams_init(&cp);
    b2_cctx *cc = b2_cctx_new(&cp);
    uint8_t src[1000], chunk[1200];
    for (int i = 0; i < 1000; i++)
        src[i] = (uint8_t)(i / 10);
    int cb = b2_chunk_compress(cc, src, sizeof src, chunk, sizeof chunk);
    b2_cctx_free(cc);
    CHECK(cb > 0, "compress");
    CHECK(b2_inspect_buffer(chunk, (size_t)cb) == B2_KIND_CHUNK, "chunk buffer");
    CHECK(b2_inspect_buffer(chunk, (size_t)cb - 1) == B2_KIND_UNKNOWN, "chunk cut short");
    write_file(tmp_path(path, "c.b2chunk"), chunk, (size_t)cb);
    CHECK(b2_inspect_path(path) == B2_KIND_CHUNK, "chunk file");

    /* HDF5 by signature at 0, after a 512-byte user block, and not at 700 */
    memset(buf, 0, sizeof buf);
    memcpy(buf, sig, 8);
    CHECK(b2_inspect_buffer(buf, 8) == B2_KIND_HDF5, "hdf5 signature alone");
    write_file(tmp_path(path, "a.h5"), buf, 1000);
    CHECK(b2_inspect_path(path) == B2_KIND_HDF5, "hdf5 at 0");
    memset(buf, 0x5a, sizeof buf);
    memcpy(buf + 2048, sig, 8);
    CHECK(b2_inspect_buffer(buf, sizeof buf) == B2_KIND_HDF5, "hdf5 at 2048");
    CHECK(b2_inspect_buffer(buf, 2055) == B2_KIND_UNKNOWN, "hdf5 signature cut");
    write_file(tmp_path(path, "b.h5"), buf, sizeof buf);
    CHECK(b2_inspect_path(path) == B2_KIND_HDF5, "hdf5 after a user block");
    memset(buf, 0x5a, sizeof buf);
    memcpy(buf + 700, sig, 8);
    CHECK(b2_inspect_buffer(buf, sizeof buf) == B2_KIND_UNKNOWN, "signature at 700");

    /* unknown, empty, missing, NULL */
    CHECK(b2_inspect_buffer("hello, world", 12) == B2_KIND_UNKNOWN, "text");
    CHECK(b2_inspect_buffer(buf, 0) == B2_ERR_TRUNCATED, "empty buffer");
    CHECK(b2_inspect_buffer(NULL, 0) == B2_ERR_TRUNCATED, "NULL, empty");
    CHECK(b2_inspect_buffer(NULL, 5) == B2_ERR_INVALID_PARAM, "NULL buffer");
    CHECK(b2_inspect_path(NULL) == B2_ERR_INVALID_PARAM, "NULL path");
    write_file(tmp_path(path, "empty"), "", 0);
    CHECK(b2_inspect_path(path) == B2_ERR_TRUNCATED, "empty file");
    CHECK(b2_inspect_path(tmp_path(path, "missing")) == B2_ERR_NOT_FOUND, "missing file");
    CHECK(b2_inspect_path("/dev/null") == B2_ERR_UNSUPPORTED, "a device");
    CHECK(b2_schunk_frame_info(NULL, NULL) == B2_ERR_INVALID_PARAM, "NULL handle");
    CHECK(b2_schunk_frame_entry(NULL, 0, NULL) == B2_ERR_INVALID_PARAM, "NULL handle entry");
    CHECK(b2_kind_name(-1) == NULL && b2_kind_name(6) == NULL, "kind names out of range");
    CHECK(!strcmp(b2_kind_name(B2_KIND_FRAME), "cframe") && !strcmp(b2_kind_name(B2_KIND_HDF5), "hdf5"),
          "kind names");
}

/* Each reference vector's kind, and a frame's header and index against its manifest. */
static int vectors(const char *dir, const char *file)
{
    char mpath[4096], path[4096];
    snprintf(mpath, sizeof mpath, "%s/%s", dir, file);
    jnode *root = json_load(mpath);
    const jnode *vs = json_get(root, "vectors");
    int n = 0;
    for (size_t i = 0; vs && i < vs->nkids; i++) {
        const jnode *v = &vs->kids[i];
        const char *kind = json_str(v, "kind", ""), *id = json_str(v, "id", "?");
        snprintf(path, sizeof path, "%s/%s", dir, json_str(v, "path", ""));
        int k = b2_inspect_path(path);
        CHECK(k >= 0 && !strcmp(b2_kind_name(k), kind), "%s: kind %d, manifest says %s", id, k, kind);
        n++;
        if (k == B2_KIND_FRAME || k == B2_KIND_B2ND || k == B2_KIND_CHUNK) {
            size_t len;
            uint8_t *d = test_read_file(path, &len);
            CHECK(d && b2_inspect_buffer(d, len) == k, "%s: buffer kind", id);
            free(d);
        }
        b2_schunk *s;
        if (k < B2_KIND_FRAME || k > B2_KIND_B2ND || t_open(path, B2_OPEN_READONLY, &s) < 0)
            continue;
        b2_frame_info fi;
        CHECK(b2_schunk_frame_info(s, &fi) == B2_OK, "%s: frame_info", id);
        const jnode *fr = json_get(v, "frame"), *p = json_get(v, "params");
        /* json_num's default: a field the manifest leaves out is not compared */
        CHECK(fi.nchunks == (int64_t)json_num(fr, "nchunks", (double)fi.nchunks) &&
                  fi.nbytes == (int64_t)json_num(fr, "nbytes", (double)fi.nbytes) &&
                  fi.typesize == (int32_t)json_num(fr, "typesize", fi.typesize) &&
                  fi.chunksize == (int32_t)json_num(fr, "chunksize", fi.chunksize) &&
                  fi.sparse == (k == B2_KIND_SFRAME),
              "%s: nchunks %lld nbytes %lld", id, (long long)fi.nchunks, (long long)fi.nbytes);
        CHECK(fi.codec == (int)json_num(p, "codec_id", fi.codec) &&
                  fi.clevel == (int)json_num(p, "clevel", fi.clevel) &&
                  fi.splitmode == (int)json_num(p, "splitmode_id", fi.splitmode),
              "%s: codec %d clevel %d splitmode %d", id, fi.codec, fi.clevel, fi.splitmode);
        const jnode *fl = json_get(p, "filters");
        for (int f = 0; fl && f < (int)fl->nkids && f < B2_MAX_FILTERS; f++)
            CHECK(fi.filters[f] == (int)fl->kids[f].num, "%s: filter %d", id, f);
        CHECK(fi.dead_bytes >= 0 && fi.dead_bytes == b2_schunk_dead_bytes(s), "%s: dead bytes %lld",
              id, (long long)fi.dead_bytes);
        int64_t nbytes = 0;
        for (int64_t c = 0; c < fi.nchunks; c++) {
            b2_frame_entry e;
            int rc = b2_schunk_frame_entry(s, c, &e);
            CHECK(rc == B2_OK && e.cbytes == b2_schunk_chunk_cbytes(s, c) &&
                      e.special == b2_schunk_chunk_special(s, c),
                  "%s: entry %lld", id, (long long)c);
            nbytes += rc == B2_OK ? e.nbytes : 0;
        }
        CHECK(nbytes == fi.nbytes, "%s: entries hold %lld bytes of %lld", id, (long long)nbytes,
              (long long)fi.nbytes);
        b2_schunk_free(s);
    }
    json_free(root);
    return n;
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/b2_inspectXXXXXX");
    if (!mkdtemp(tmpdir)) {
        printf("cannot make a scratch directory\n");
        return 1;
    }
    built_frames();
    other_kinds();
    const char *dir = getenv("B2_INTEROP_DIR");
    char sub[4096];
    jnode *man = test_interop_manifest();
    if (!man) {
        test_rm_tree(tmpdir);
        return 77;
    }
    json_free(man);
    int n = vectors(dir, "manifest.json");
    snprintf(sub, sizeof sub, "%s/compat", dir);
    n += vectors(sub, "manifest.json");
    snprintf(sub, sizeof sub, "%s/plugins", dir);
    n += vectors(sub, "manifest.json");
    CHECK(n >= 369 + 30, "%d reference vectors", n);
    test_rm_tree(tmpdir);
    return b2t_summary("frame inspection");
}
