/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-chunk checksums (doc/format/checksums.md): xxh64 of each chunk's stored
 * bytes, kept in the vlmetalayer "b2.checksums" so that c-blosc2 reads (and
 * carries along) frames that hold them.
 *
 * This file keeps the table (schunk_checksums.c has the public calls on top).
 * In memory the handle keeps one entry per chunk position. Writes update the
 * entry of the chunk they store (frame_sums_put and friends, called by
 * schunk_write.c once the index changed), and each commit serialises the table
 * before the trailer is built. Each entry records what identifies its chunk
 * (index entry, stored size), so a frame that a writer without checksums
 * changed later reads as stale where it changed, not as damaged. */
#include <string.h>
#include <xxhash.h>

#include "frame_internal.h"

#define SUMS_MAGIC "B2CK"
#define SUMS_VERSION 1
#define SUMS_HASH_XXH64 1
#define SUMS_SEED 0
#define SUMS_HEADER 24
#define SUMS_ENTRY 21 /* 8 (index entry) + 8 (hash) + 4 (stored bytes) + 1 (flags) */
#define SUMS_COVERED 1u
#define SUMS_COMMIT 1 /* b2_frame_sums_apply: the caller commits */
#define SUMS_COVER 2  /* and hashes the chunks not covered first */
/* The table must fit a chunk (and its msgpack wrapper) as one vlmetalayer. */
#define SUMS_MAX_ENTRIES ((INT32_MAX - 64 - SUMS_HEADER) / SUMS_ENTRY)

typedef struct sum_entry {
    int64_t entry;  /* the index entry (offset, chunk file id or special code) */
    int32_t cbytes; /* stored bytes of a regular chunk; 0 for a special entry */
    uint32_t flags; /* SUMS_COVERED: hash describes the chunk now at this position */
    uint64_t hash;
} sum_entry;

struct frame_sums {
    int maintain;    /* rewrite the table on commits (policies KEEP and ON) */
    int bad;         /* the stored table does not parse: why says how */
    char why[96];
    int64_t n, cap;  /* n: the frame's chunk count */
    sum_entry *e;
};

static uint64_t hash_entry(int64_t entry)
{
    uint8_t le[8];
    b2_store_le64(le, (uint64_t)entry);
    return XXH64(le, sizeof le, SUMS_SEED);
}

void b2_frame_sums_free(frame_sums *t)
{
    if (t) {
        free(t->e);
        free(t);
    }
}

static int sums_reserve(b2_schunk *s, int64_t n)
{
    frame_sums *t = s->check.table;
    B2_FAIL_IF(n > SUMS_MAX_ENTRIES, B2_ERR_DOES_NOT_FIT,
               "checksums of %lld chunks exceed one vlmetalayer (at most %d)", (long long)n,
               (int)SUMS_MAX_ENTRIES);
    if (n <= t->cap)
        return B2_OK;
    int64_t cap = t->cap ? t->cap * 2 : 16;
    cap = cap < n ? n : cap;
    int rc = FRAME_MEM_CHECK(s, cap * (int64_t)sizeof(sum_entry), "the checksum table");
    if (rc < 0)
        return rc;
    sum_entry *e = realloc(t->e, (size_t)cap * sizeof *e);
    if (!e)
        return B2_FAIL(B2_ERR_NOMEM, "checksums of %lld chunks", (long long)n);
    t->e = e;
    t->cap = cap;
    return B2_OK;
}

/* ---- the position bookkeeping writes call (no-ops without a table) ---- */

int b2_frame_sums_put(b2_schunk *s, int64_t pos, int insert, const uint8_t *chunk, int32_t cbytes)
{
    frame_sums *t = s->check.table;
    if (!t)
        return B2_OK;
    if (insert) {
        int rc = sums_reserve(s, t->n + 1);
        if (rc < 0)
            return rc;
        memmove(t->e + pos + 1, t->e + pos, (size_t)(t->n - pos) * sizeof *t->e);
        t->n++;
    }
    sum_entry *e = &t->e[pos];
    int64_t cur = frame_entry(s, pos);
    e->entry = cur;
    e->cbytes = chunk ? cbytes : 0;
    /* A table left as it was (B2_CHECKSUMS_IGNORE) does not vouch for new bytes. */
    e->flags = t->maintain ? SUMS_COVERED : 0;
    e->hash = !t->maintain ? 0 : chunk ? XXH64(chunk, (size_t)cbytes, SUMS_SEED) : hash_entry(cur);
    return B2_OK;
}

void b2_frame_sums_delete(b2_schunk *s, int64_t pos)
{
    frame_sums *t = s->check.table;
    if (t && pos < t->n) {
        memmove(t->e + pos, t->e + pos + 1, (size_t)(t->n - pos - 1) * sizeof *t->e);
        t->n--;
    }
}

int b2_frame_sums_reorder(b2_schunk *s, const int64_t *order)
{
    frame_sums *t = s->check.table;
    if (!t || t->n == 0)
        return B2_OK;
    sum_entry *e = malloc((size_t)t->n * sizeof *e);
    if (!e)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    for (int64_t i = 0; i < t->n; i++)
        e[i] = t->e[order[i]];
    free(t->e);
    t->e = e;
    t->cap = t->n;
    return B2_OK;
}

int b2_frame_sums_reset(b2_schunk *s)
{
    frame_sums *t = s->check.table;
    if (!t)
        return B2_OK;
    int rc = sums_reserve(s, s->ix.nchunks);
    if (rc < 0)
        return rc;
    t->n = s->ix.nchunks;
    for (int64_t i = 0; i < t->n; i++) {
        int64_t cur = frame_entry(s, i);
        t->e[i] = (sum_entry){cur, 0, t->maintain ? SUMS_COVERED : 0, t->maintain ? hash_entry(cur) : 0};
    }
    return B2_OK;
}

/* ---- the stored table ---- */

/* Serialise the table into the vlmetalayer before a commit builds the trailer. */
int b2_frame_sums_store(b2_schunk *s)
{
    frame_sums *t = s->check.table;
    if (!t || !t->maintain)
        return B2_OK;
    /* msgpack bin 32 around the table, so that msgpack readers of vlmetalayers
     * (python-blosc2) see bytes rather than a decoding error */
    size_t body = SUMS_HEADER + (size_t)t->n * SUMS_ENTRY, len = 5 + body;
    uint8_t *buf = malloc(len);
    if (!buf)
        return B2_FAIL(B2_ERR_NOMEM, "checksums of %lld chunks", (long long)t->n);
    buf[0] = 0xC6;
    b2_store_be32(buf + 1, (uint32_t)body);
    uint8_t *p = buf + 5;
    memcpy(p, SUMS_MAGIC, 4);
    p[4] = SUMS_VERSION;
    p[5] = SUMS_HASH_XXH64;
    p[6] = SUMS_ENTRY, p[7] = 0;
    b2_store_le64(p + 8, SUMS_SEED);
    b2_store_le64(p + 16, (uint64_t)t->n);
    /* columns (entries, hashes, sizes, flags) compress better than records:
     * the hashes stay as they are, the rest shrinks to little */
    uint8_t *ent = p + SUMS_HEADER, *hsh = ent + 8 * t->n, *csz = hsh + 8 * t->n, *flg = csz + 4 * t->n;
    for (int64_t i = 0; i < t->n; i++) {
        sum_entry e = t->e[i];
        e.entry = frame_entry(s, i); /* memory frames move chunks when others change */
        if (b2_frame_index_special(e.entry) > 0)
            e = (sum_entry){e.entry, 0, SUMS_COVERED, hash_entry(e.entry)};
        b2_store_le64(ent + 8 * i, (uint64_t)e.entry);
        b2_store_le64(hsh + 8 * i, e.hash);
        b2_store_le32(csz + 4 * i, (uint32_t)e.cbytes);
        flg[i] = (uint8_t)e.flags;
    }
    int rc = b2_frame_vlmeta_put(s, B2_FRAME_SUMS_NAME, buf, (int32_t)len, 1);
    free(buf);
    return rc;
}

static int table_bad(frame_sums *t, const char *why)
{
    t->bad = 1;
    snprintf(t->why, sizeof t->why, "%s", why);
    return B2_OK;
}

static int cmp_entry(const void *a, const void *b)
{
    int64_t x = ((const sum_entry *)a)->entry, y = ((const sum_entry *)b)->entry;
    return (x > y) - (x < y);
}

/* Give position i the stored entry that describes its chunk: the one at the
 * same position, or (regular chunks, which have unique entries) the one with
 * the same index entry, where another writer moved chunks. */
static void match_entries(b2_schunk *s, const sum_entry *tab, int64_t m, sum_entry *sorted)
{
    frame_sums *t = s->check.table;
    for (int64_t i = 0; i < t->n; i++) {
        int64_t cur = frame_entry(s, i);
        sum_entry *e = &t->e[i];
        *e = (sum_entry){cur, 0, 0, 0};
        if (i < m && tab[i].entry == cur) {
            *e = tab[i];
        } else if (sorted) { /* special entries: any equal one hashes alike */
            sum_entry key = {cur, 0, 0, 0};
            const sum_entry *f = bsearch(&key, sorted, (size_t)m, sizeof key, cmp_entry);
            if (f)
                *e = *f;
        }
    }
}

static int parse_table(b2_schunk *s, const uint8_t *c, int32_t len)
{
    frame_sums *t = s->check.table;
    uint32_t body = len >= 5 && c[0] == 0xC6 ? b2_load_be32(c + 1) : 0;
    if (len < 5 + SUMS_HEADER || c[0] != 0xC6 || body != (uint32_t)len - 5)
        return table_bad(t, "its vlmetalayer is not a msgpack bin 32 of the table");
    const uint8_t *p = c + 5;
    if (memcmp(p, SUMS_MAGIC, 4) || p[4] != SUMS_VERSION || p[5] != SUMS_HASH_XXH64 ||
        p[6] != SUMS_ENTRY || b2_load_le64(p + 8) != SUMS_SEED)
        return table_bad(t, "unknown magic, version, hash, entry size or seed");
    uint64_t m = b2_load_le64(p + 16);
    if (m != (body - SUMS_HEADER) / SUMS_ENTRY || (body - SUMS_HEADER) % SUMS_ENTRY)
        return table_bad(t, "its entry count disagrees with its size");
    int rc = sums_reserve(s, s->ix.nchunks);
    sum_entry *tab = rc < 0 ? NULL : malloc((size_t)(2 * m + 1) * sizeof *tab);
    if (rc < 0 || !tab)
        return rc < 0 ? rc : B2_FAIL_CODE(B2_ERR_NOMEM);
    const uint8_t *ent = p + SUMS_HEADER, *hsh = ent + 8 * m, *csz = hsh + 8 * m, *flg = csz + 4 * m;
    for (uint64_t i = 0; i < m; i++)
        tab[i] = (sum_entry){(int64_t)b2_load_le64(ent + 8 * i), (int32_t)b2_load_le32(csz + 4 * i),
                             flg[i], b2_load_le64(hsh + 8 * i)};
    memcpy(tab + m, tab, (size_t)m * sizeof *tab);
    qsort(tab + m, (size_t)m, sizeof *tab, cmp_entry);
    t->n = s->ix.nchunks;
    match_entries(s, tab, (int64_t)m, m ? tab + m : NULL);
    free(tab);
    return B2_OK;
}

/* New bookkeeping: every chunk uncovered (special entries are covered when stored). */
int b2_frame_sums_new(b2_schunk *s)
{
    s->check.table = calloc(1, sizeof *s->check.table);
    if (!s->check.table)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    int rc = sums_reserve(s, s->ix.nchunks);
    if (rc < 0)
        return rc;
    s->check.table->n = s->ix.nchunks;
    for (int64_t i = 0; i < s->ix.nchunks; i++)
        s->check.table->e[i] = (sum_entry){frame_entry(s, i), 0, 0, 0};
    return B2_OK;
}

int b2_frame_sums_load(b2_schunk *s, int policy)
{
    b2_frame_sums_free(s->check.table);
    s->check.table = NULL;
    s->check.policy = policy;
    int i = b2_frame_vlmeta_find(s, B2_FRAME_SUMS_NAME);
    if (i < 0)
        return B2_OK;
    uint8_t *c = NULL;
    int32_t len = 0;
    int rc = b2_frame_vlmeta_decode(s, i, &c, &len);
    if (rc < 0 && rc != B2_ERR_NOMEM && rc != B2_ERR_LIMIT)
        rc = B2_OK; /* an undecodable table: reads go on, checks say it is damaged */
    if (rc >= 0 && (rc = b2_frame_sums_new(s)) >= 0) {
        s->check.table->maintain = s->io.writable && (policy == B2_CHECKSUMS_KEEP || policy == B2_CHECKSUMS_ON);
        rc = c ? parse_table(s, c, len) : table_bad(s->check.table, "its vlmetalayer does not decode");
    }
    free(c);
    return rc;
}

/* ---- checking ---- */

int b2_frame_sums_check(b2_schunk *s, int64_t i, const uint8_t *chunk, int32_t cbytes)
{
    frame_sums *t = s->check.table;
    if (!t)
        return B2_CHECKSUM_NONE;
    B2_FAIL_IF(t->bad, B2_ERR_CHECKSUM, "chunk %lld: the checksum table is damaged (%s)",
               (long long)i, t->why);
    if (i >= t->n)
        return B2_CHECKSUM_STALE;
    const sum_entry *e = &t->e[i];
    int64_t cur = frame_entry(s, i);
    int special = b2_frame_index_special(cur) > 0;
    if (!(e->flags & SUMS_COVERED) || (special ? e->entry != cur : e->cbytes != cbytes))
        return B2_CHECKSUM_STALE;
    uint64_t h = special ? hash_entry(cur) : XXH64(chunk, (size_t)cbytes, SUMS_SEED);
    B2_FAIL_IF(h != e->hash, B2_ERR_CHECKSUM,
               "chunk %lld: its %d stored bytes hash to %016llx, the checksum is %016llx",
               (long long)i, (int)(special ? 8 : cbytes), (unsigned long long)h,
               (unsigned long long)e->hash);
    return B2_CHECKSUM_OK;
}


int b2_frame_sums_apply(b2_schunk *s, int policy)
{
    s->check.policy = policy;
    if (policy == B2_CHECKSUMS_OFF) {
        int had = s->check.table != NULL;
        b2_frame_sums_free(s->check.table);
        s->check.table = NULL;
        int rc = b2_frame_vlmeta_find(s, B2_FRAME_SUMS_NAME);
        if (rc >= 0)
            rc = b2_frame_vlmeta_put(s, B2_FRAME_SUMS_NAME, NULL, 0, 0);
        return rc >= 0 || had ? SUMS_COMMIT : B2_OK;
    }
    if (policy != B2_CHECKSUMS_ON && !s->check.table)
        return B2_OK; /* KEEP or IGNORE of nothing */
    int rc = s->check.table ? B2_OK : b2_frame_sums_new(s);
    if (rc < 0)
        return rc;
    frame_sums *t = s->check.table;
    if (t->bad && policy == B2_CHECKSUMS_ON) { /* start over from the bytes there now */
        t->bad = 0;
        for (int64_t i = 0; i < t->n; i++)
            t->e[i].flags = 0;
    }
    t->maintain = policy != B2_CHECKSUMS_IGNORE && !t->bad;
    if (!t->maintain)
        return B2_OK;
    return SUMS_COMMIT | (policy == B2_CHECKSUMS_ON ? SUMS_COVER : 0);
}

int b2_frame_sums_covered(const b2_schunk *s, int64_t i)
{
    return s->check.table && i < s->check.table->n && (s->check.table->e[i].flags & SUMS_COVERED);
}

/* A shallow copy t of a handle (frame_single.c) holding one chunk gets a table
 * of its own for that chunk, in a vlmetalayer array of its own: nothing of the
 * handle it copies changes. */
int b2_frame_sums_single(b2_schunk *t, const uint8_t *chunk, int32_t cbytes)
{
    int n = t->head.nvlmeta, self = b2_frame_vlmeta_find(t, B2_FRAME_SUMS_NAME);
    frame_meta *vl = malloc((size_t)(n + 1) * sizeof *vl);
    frame_sums *one = calloc(1, sizeof *one);
    sum_entry *e = malloc(sizeof *e);
    if (!vl || !one || !e) {
        free(vl), free(one), free(e);
        t->check.table = NULL;
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    memcpy(vl, t->head.vlmeta, (size_t)n * sizeof *vl);
    if (self >= 0)
        vl[self].content = NULL; /* the handle's: not freed when replaced */
    *one = (frame_sums){.maintain = 1, .n = 1, .cap = 1, .e = e};
    t->head.vlmeta = vl;
    t->head.vlmeta_cap = n + 1;
    t->check.table = one;
    return b2_frame_sums_put(t, 0, 0, chunk, cbytes);
}

void b2_frame_sums_single_free(b2_schunk *t)
{
    int self = b2_frame_vlmeta_find(t, B2_FRAME_SUMS_NAME);
    if (self >= 0)
        free(t->head.vlmeta[self].content);
    free(t->head.vlmeta);
    b2_frame_sums_free(t->check.table);
}
