/* SPDX-License-Identifier: BSD-3-Clause */
/* python-blosc2's containers built of frames, named so that b2 refuses them
 * rather than show their frames as data: stores (EmbedStore .b2e; DictStore,
 * TreeStore and CTable as a .b2d directory or a .b2z zip), BatchArray,
 * ObjectArray, ListArray, saved lazy expressions (b2o / LazyArray metalayer),
 * Proxy and RemoteArray caches. The markers are python-blosc2 4.x's: the fixed
 * metalayer its blosc2.open dispatches on, and a store's embed.b2e index frame
 * (b2embed / b2dict / b2tree). The same rules as b2blosc.open (array.py). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "b2cli.h"
#include "obj.h"

static const struct {
    const char *meta, *kind;
} meta_kinds[] = {
    {"b2embed", "a python-blosc2 EmbedStore (.b2e)"},
    {"b2dict", "the index frame (embed.b2e) of a python-blosc2 DictStore"},
    {"b2tree", "the index frame (embed.b2e) of a python-blosc2 TreeStore"},
    {"b2remote_store", "a python-blosc2 RemoteStore (b2remote_store metalayer)"},
    {"batcharray", "a python-blosc2 BatchArray (batcharray metalayer, variable-length blocks)"},
    {"vlarray", "a python-blosc2 ObjectArray (vlarray metalayer, variable-length blocks)"},
    {"listarray", "a python-blosc2 ListArray (listarray metalayer, variable-length blocks)"},
    {"LazyArray", "a saved lazy expression (LazyArray metalayer)"},
    {"proxy-source", "a python-blosc2 Proxy cache (proxy-source metalayer)"},
};

static const struct {
    const char *b2o, *kind;
} b2o_kinds[] = {
    {"lazyexpr", "a saved lazy expression (b2o metalayer, a python-blosc2 LazyExpr)"},
    {"lazyudf", "a saved lazy UDF (b2o metalayer, a python-blosc2 LazyUDF)"},
    {"c2array", "a saved python-blosc2 C2Array reference (b2o metalayer)"},
    {"remote_array", "a python-blosc2 RemoteArray cache (b2o metalayer)"},
};

/* The msgpack string after the msgpack string "kind" in a small map (b2o's
 * {"kind": ..., "version": 1}): into out (NUL-terminated), 0; -1 if none. */
static int mp_kind(const uint8_t *b, int32_t n, char *out, size_t cap)
{
    static const uint8_t key[] = {0xa4, 'k', 'i', 'n', 'd'};
    for (int32_t i = 0; i + (int32_t)sizeof key < n; i++) {
        int32_t p = i + (int32_t)sizeof key, len;
        if (memcmp(b + i, key, sizeof key))
            continue;
        if (b[p] >= 0xa0 && b[p] <= 0xbf)
            len = b[p] & 0x1f, p += 1;
        else if (b[p] == 0xd9 && p + 1 < n)
            len = b[p + 1], p += 2;
        else
            return -1;
        if (p + len > n || (size_t)len >= cap)
            return -1;
        memcpy(out, b + p, (size_t)len);
        out[len] = '\0';
        return 0;
    }
    return -1;
}

static void put(char *buf, size_t cap, const char *s) { snprintf(buf, cap, "%s", s); }

/* b2o's kind named into buf. */
static void b2o_kind(const b2_schunk *s, char *buf, size_t cap)
{
    uint8_t *c = NULL;
    int32_t n = 0;
    char k[64] = "?";
    if (b2_schunk_meta_get(s, "b2o", &c, &n) >= 0)
        mp_kind(c, n, k, sizeof k);
    free(c);
    for (size_t i = 0; i < sizeof b2o_kinds / sizeof *b2o_kinds; i++)
        if (!strcmp(k, b2o_kinds[i].b2o)) {
            put(buf, cap, b2o_kinds[i].kind);
            return;
        }
    snprintf(buf, cap, "a saved python-blosc2 object (b2o metalayer, kind '%s')", k);
}

int b2cli_py_frame_kind(b2_schunk *s, char *buf, size_t cap)
{
    uint8_t *c = NULL;
    int32_t n = 0;
    int ctable;
    for (size_t i = 0; i < sizeof meta_kinds / sizeof *meta_kinds; i++) {
        for (int j = 0; j < b2_schunk_meta_count(s); j++) {
            const char *name = b2_schunk_meta_name(s, j);
            if (name && !strcmp(name, meta_kinds[i].meta))
                return put(buf, cap, meta_kinds[i].kind), 1;
        }
    }
    for (int j = 0; j < b2_schunk_meta_count(s); j++) {
        const char *name = b2_schunk_meta_name(s, j);
        if (name && !strcmp(name, "b2o"))
            return b2o_kind(s, buf, cap), 1;
    }
    /* a CTable's manifest (_meta.b2f): no metalayer, vlmetalayer kind "ctable" */
    if (b2_schunk_meta_count(s) > 0 || b2_schunk_vlmeta_get(s, "kind", &c, &n) < 0)
        return 0;
    ctable = n == 7 && !memcmp(c, "\xa6" "ctable", 7);
    free(c);
    if (ctable)
        put(buf, cap, "the manifest (_meta.b2f) of a python-blosc2 CTable");
    return ctable;
}

/* b2cli_py_frame_kind of the frame at offset in path; 0 when it does not open. */
static int frame_kind_at(const char *path, int64_t offset, char *buf, size_t cap)
{
    b2_schunk *s = NULL;
    int found;
    if (b2cli_frame_open(path, offset, B2_OPEN_READONLY, &s) < 0)
        return 0;
    found = b2cli_py_frame_kind(s, buf, cap);
    b2_schunk_free(s);
    return found;
}

/* A store named from its index frame (embed.b2e) and whether it has a CTable
 * manifest; where is ".b2d, a directory of frames" or ".b2z, a zip of frames". */
static void store_kind(const char *index, int index_found, int ctable, const char *where,
                       char *buf, size_t cap)
{
    const char *name = "DictStore or TreeStore";
    if (ctable)
        name = "CTable";
    else if (index_found && strstr(index, "TreeStore"))
        name = "TreeStore";
    else if (index_found && strstr(index, "DictStore"))
        name = "DictStore";
    snprintf(buf, cap, "a python-blosc2 %s (%s)", name, where);
}

static int dir_kind(const char *path, char *buf, size_t cap)
{
    struct stat st;
    char p[4096], index[200], meta[200];
    int found, ctable;
    snprintf(p, sizeof p, "%s/chunks.b2frame", path);
    if (stat(p, &st) == 0)
        return 0; /* a sparse frame */
    snprintf(p, sizeof p, "%s/embed.b2e", path);
    if (stat(p, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    found = frame_kind_at(p, 0, index, sizeof index);
    snprintf(p, sizeof p, "%s/_meta.b2f", path);
    ctable = stat(p, &st) == 0 && frame_kind_at(p, 0, meta, sizeof meta) && strstr(meta, "CTable");
    store_kind(index, found, ctable, ".b2d, a directory of frames", buf, cap);
    return 1;
}

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Read n bytes at off into b; 0 on success. */
static int read_at(FILE *f, int64_t off, uint8_t *b, size_t n)
{
    return fseeko(f, (off_t)off, SEEK_SET) || fread(b, 1, n, f) != n ? -1 : 0;
}

/* The zip's central directory: its offset and size (zip64 too); 0 on success. */
static int zip_cdir(FILE *f, int64_t fsize, int64_t *off, int64_t *size)
{
    uint8_t tail[65557], z[56];
    int64_t n = fsize < (int64_t)sizeof tail ? fsize : (int64_t)sizeof tail, e;
    if (n < 22 || read_at(f, fsize - n, tail, (size_t)n))
        return -1;
    for (e = n - 22; e >= 0 && memcmp(tail + e, "PK\5\6", 4); e--)
        ;
    if (e < 0)
        return -1;
    *size = (int64_t)le(tail + e + 12, 4);
    *off = (int64_t)le(tail + e + 16, 4);
    if (*off != 0xffffffff)
        return 0;
    /* zip64: the locator just before the record points at the zip64 record */
    if (e < 20 || memcmp(tail + e - 20, "PK\6\7", 4) ||
        read_at(f, (int64_t)le(tail + e - 20 + 8, 8), z, sizeof z) || memcmp(z, "PK\6\6", 4))
        return -1;
    *size = (int64_t)le(z + 40, 8);
    *off = (int64_t)le(z + 48, 8);
    return 0;
}

/* Where a central directory entry's local header is (zip64 extra field when the
 * 32-bit field is saturated). */
static int64_t entry_offset(const uint8_t *e, const uint8_t *end)
{
    int64_t off = (int64_t)le(e + 42, 4);
    const uint8_t *x = e + 46 + le(e + 28, 2), *xend = x + le(e + 30, 2);
    if (off != 0xffffffff)
        return off;
    while (x + 4 <= xend && xend <= end) {
        unsigned id = (unsigned)le(x, 2), len = (unsigned)le(x + 2, 2);
        if (x + 4 + len > xend)
            return -1;
        if (id == 1) { /* sizes first, each only when saturated in the entry */
            const uint8_t *v = x + 4;
            v += (le(e + 24, 4) == 0xffffffff ? 8 : 0) + (le(e + 20, 4) == 0xffffffff ? 8 : 0);
            return v + 8 <= x + 4 + len ? (int64_t)le(v, 8) : -1;
        }
        x += 4 + len;
    }
    return -1;
}

/* The byte offset of the uncompressed member name's data; -1 when there is no
 * such member, -2 when it is there but deflated or damaged. */
static int64_t zip_member(FILE *f, const uint8_t *cd, int64_t cdsize, const char *name)
{
    size_t nlen = strlen(name);
    const uint8_t *e = cd, *end = cd + cdsize;
    while (e + 46 <= end && !memcmp(e, "PK\1\2", 4)) {
        size_t fn = (size_t)le(e + 28, 2);
        const uint8_t *next = e + 46 + fn + le(e + 30, 2) + le(e + 32, 2);
        if (next > end)
            return -1;
        if (fn == nlen && !memcmp(e + 46, name, nlen)) {
            uint8_t lh[30];
            int64_t off = entry_offset(e, end);
            if (le(e + 10, 2) != 0 || off < 0 || read_at(f, off, lh, sizeof lh) ||
                memcmp(lh, "PK\3\4", 4))
                return -2; /* deflated (python-blosc2 refuses those too) or damaged */
            return off + 30 + (int64_t)le(lh + 26, 2) + (int64_t)le(lh + 28, 2);
        }
        e = next;
    }
    return -1;
}

static int zip_kind(const char *path, FILE *f, int64_t fsize, char *buf, size_t cap)
{
    int64_t cdoff, cdsize, index_at, meta_at;
    uint8_t *cd;
    char index[200] = "", meta[200] = "";
    int found = 0, ctable = 0;
    if (zip_cdir(f, fsize, &cdoff, &cdsize) || cdsize <= 0 || cdsize > (64 << 20) ||
        cdoff + cdsize > fsize || !(cd = malloc((size_t)cdsize)))
        return put(buf, cap, "a zip file whose central directory does not read"), 1;
    if (read_at(f, cdoff, cd, (size_t)cdsize)) {
        free(cd);
        return put(buf, cap, "a zip file whose central directory does not read"), 1;
    }
    index_at = zip_member(f, cd, cdsize, "embed.b2e");
    meta_at = zip_member(f, cd, cdsize, "_meta.b2f");
    free(cd);
    if (index_at == -1)
        return put(buf, cap, "a zip file without embed.b2e (not a Blosc2 frame, "
                             "nor a python-blosc2 store)"), 1;
    found = index_at >= 0 && frame_kind_at(path, index_at, index, sizeof index);
    ctable = meta_at >= 0 && frame_kind_at(path, meta_at, meta, sizeof meta) && strstr(meta, "CTable");
    store_kind(index, found, ctable, ".b2z, a zip of frames", buf, cap);
    return 1;
}

int b2cli_py_path_kind(const char *path, char *buf, size_t cap)
{
    struct stat st;
    uint8_t sig[4];
    FILE *f;
    int found = 0;
    if (stat(path, &st) != 0)
        return 0;
    if (S_ISDIR(st.st_mode))
        return dir_kind(path, buf, cap);
    if (!S_ISREG(st.st_mode) || !(f = fopen(path, "rb")))
        return 0;
    if (fread(sig, 1, 4, f) == 4 && (!memcmp(sig, "PK\3\4", 4) || !memcmp(sig, "PK\5\6", 4)))
        found = zip_kind(path, f, (int64_t)st.st_size, buf, cap);
    fclose(f);
    return found;
}

int b2cli_py_refuse(const char *path, const char *kind)
{
    if (!strncmp(kind, "a zip file", 10))
        return b2cli_data_error(path, "%s; b2 reads Blosc2 chunks, frames and b2nd arrays", kind),
               B2_ERR_FORMAT;
    return b2cli_data_error(path, "%s; b2 does not read its contents: open it with python-blosc2 "
                                  "(blosc2.open)%s", kind,
                            strstr(kind, ".b2d") ? " (the .b2nd files inside are arrays b2 reads)"
                                                 : ""),
           B2_ERR_UNSUPPORTED;
}
