/* SPDX-License-Identifier: BSD-3-Clause */
/* User filters and codecs (b2_plugin.h): the process table, registries
 * attached to contexts, lookups, and the calls into user functions.
 *
 * The process table is the library's one piece of global mutable state: a
 * program registers its ids once and every context sees them, as with the
 * reference's blosc2_register_*. Writers take a mutex; readers take none. A
 * slot is filled completely and only then marked visible with a release store;
 * a reader checks the mark with an acquire load and never looks at a slot that
 * is not visible, and a visible slot never changes again. So lookups on the
 * decoding path cost one atomic load and never wait for a registration. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"

#define NUSER (B2_USER_ID_LAST - B2_USER_ID_FIRST + 1)

typedef struct slot {
    int visible; /* written last (release): the fields below are complete */
    char name[B2_PLUGIN_NAME_MAX + 1];
    union {
        b2_user_filter f;
        b2_user_codec c;
    } def; /* def.*.name points at name */
} slot;

struct b2_registry {
    slot slots[2][NUSER]; /* [FILTER] and [CODEC], by id - 160 */
};

enum { FILTER = 0, CODEC = 1 };

static b2_registry process_table;
static pthread_mutex_t process_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *const kind_name[2] = {"filter", "codec"};

static slot *slot_of(const b2_registry *t, int kind, int id)
{
    /* callers pass user ids; the modulo only lets the compiler see the bound */
    return (slot *)&t->slots[kind][(unsigned)(id - B2_USER_ID_FIRST) % NUSER];
}

/* The slot for id in t if it is visible, else NULL. */
static const slot *visible(const b2_registry *t, int kind, int id)
{
    const slot *s = slot_of(t, kind, id);
    return __atomic_load_n(&s->visible, __ATOMIC_ACQUIRE) ? s : NULL;
}

/* ---- registration ---- */

/* What registration needs of either kind of entry, taken apart once. */
typedef struct entry {
    int kind, id;
    const char *name;
    int has_functions;
} entry;

static int check_entry(const entry *e)
{
    const char *k = kind_name[e->kind];
    B2_FAIL_IF(!b2_is_user_id(e->id), B2_ERR_INVALID_PARAM, "user %s id %d is not %d..%d", k,
               e->id, B2_USER_ID_FIRST, B2_USER_ID_LAST);
    B2_FAIL_IF(!e->has_functions, B2_ERR_INVALID_PARAM, "user %s %d: a function is NULL", k,
               e->id);
    B2_FAIL_IF(!e->name || !e->name[0] || strlen(e->name) > B2_PLUGIN_NAME_MAX,
               B2_ERR_INVALID_PARAM, "user %s %d: the name must have 1..%d bytes", k, e->id,
               B2_PLUGIN_NAME_MAX);
    return B2_OK;
}

static int same_entry(const slot *s, int kind, const void *def)
{
    if (kind == CODEC) {
        const b2_user_codec *a = &s->def.c, *b = def;
        return a->compress == b->compress && a->decompress == b->decompress &&
               a->user == b->user && !strcmp(a->name, b->name);
    }
    const b2_user_filter *a = &s->def.f, *b = def;
    return a->forward == b->forward && a->backward == b->backward && a->user == b->user &&
           !strcmp(a->name, b->name);
}

/* Add e (whose full definition is def) to t; the caller holds t's lock if any. */
static int add_entry(b2_registry *t, const entry *e, const void *def)
{
    const char *k = kind_name[e->kind];
    const slot *old = visible(t, e->kind, e->id);
    if (old)
        return same_entry(old, e->kind, def)
                   ? B2_OK
                   : B2_FAIL(B2_ERR_EXISTS, "user %s %d is already registered as '%s'", k,
                             e->id, old->name);
    int taken = e->kind == CODEC ? b2_builtin_codec_id(e->name) : b2_builtin_filter_id(e->name);
    B2_FAIL_IF(taken >= 0, B2_ERR_EXISTS, "user %s %d: the name '%s' is %s %d's", k, e->id,
               e->name, k, taken);
    for (int id = B2_USER_ID_FIRST; id <= B2_USER_ID_LAST; id++) {
        const slot *s = visible(t, e->kind, id);
        B2_FAIL_IF(s && !strcmp(s->name, e->name), B2_ERR_EXISTS,
                   "user %s %d: the name '%s' is already user %s %d's", k, e->id, e->name, k, id);
    }
    slot *s = slot_of(t, e->kind, e->id);
    memcpy(s->name, e->name, strlen(e->name) + 1);
    if (e->kind == CODEC) {
        s->def.c = *(const b2_user_codec *)def;
        s->def.c.name = s->name;
    } else {
        s->def.f = *(const b2_user_filter *)def;
        s->def.f.name = s->name;
    }
    __atomic_store_n(&s->visible, 1, __ATOMIC_RELEASE);
    return B2_OK;
}

static int add_checked(b2_registry *t, const entry *e, const void *def)
{
    int rc = check_entry(e);
    if (rc < 0)
        return rc;
    if (t != &process_table)
        return add_entry(t, e, def);
    pthread_mutex_lock(&process_lock);
    rc = add_entry(t, e, def);
    pthread_mutex_unlock(&process_lock);
    return rc;
}

static int add_filter(b2_registry *t, const b2_user_filter *f)
{
    if (!f)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "user filter is NULL");
    entry e = {FILTER, f->id, f->name, f->forward && f->backward};
    return add_checked(t, &e, f);
}

static int add_codec(b2_registry *t, const b2_user_codec *c)
{
    if (!c)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "user codec is NULL");
    entry e = {CODEC, c->id, c->name, c->compress && c->decompress};
    return add_checked(t, &e, c);
}

int b2_register_filter(const b2_user_filter *f) { return add_filter(&process_table, f); }

int b2_register_codec(const b2_user_codec *c) { return add_codec(&process_table, c); }

b2_registry *b2_registry_new(void) { return calloc(1, sizeof(b2_registry)); }

void b2_registry_free(b2_registry *r) { free(r); }

int b2_registry_add_filter(b2_registry *r, const b2_user_filter *f)
{
    return r ? add_filter(r, f) : B2_FAIL(B2_ERR_INVALID_PARAM, "registry is NULL");
}

int b2_registry_add_codec(b2_registry *r, const b2_user_codec *c)
{
    return r ? add_codec(r, c) : B2_FAIL(B2_ERR_INVALID_PARAM, "registry is NULL");
}

/* ---- lookups ---- */

static const slot *find(const b2_registry *r, int kind, int id)
{
    if (!b2_is_user_id(id))
        return NULL;
    const slot *s = r ? visible(r, kind, id) : NULL;
    return s ? s : visible(&process_table, kind, id);
}

const b2_user_filter *b2_user_filter_find(const b2_registry *r, int id)
{
    const slot *s = find(r, FILTER, id);
    return s ? &s->def.f : NULL;
}

const b2_user_codec *b2_user_codec_find(const b2_registry *r, int id)
{
    const slot *s = find(r, CODEC, id);
    return s ? &s->def.c : NULL;
}

static int id_by_name(int kind, const char *name)
{
    for (int id = B2_USER_ID_FIRST; name && id <= B2_USER_ID_LAST; id++) {
        const slot *s = visible(&process_table, kind, id);
        if (s && !strcmp(s->name, name))
            return id;
    }
    return -1;
}

int b2_user_codec_id(const char *name) { return id_by_name(CODEC, name); }
int b2_user_filter_id(const char *name) { return id_by_name(FILTER, name); }

const char *b2_registry_filter_name(const b2_registry *r, int id)
{
    const slot *s = find(r, FILTER, id);
    return s ? s->name : b2_is_user_id(id) ? NULL : b2_builtin_filter_name(id);
}

const char *b2_registry_codec_name(const b2_registry *r, int id)
{
    const slot *s = find(r, CODEC, id);
    return s ? s->name : b2_is_user_id(id) ? NULL : b2_builtin_codec_name(id);
}

/* ---- the public name lookups (b2_chunk.h): built-in names, then the process table ---- */

const char *b2_codec_name(int compcode)
{
    return b2_registry_codec_name(NULL, compcode);
}

int b2_codec_from_name(const char *name)
{
    int id = b2_builtin_codec_id(name);
    if (id < 0)
        id = b2_user_codec_id(name);
    return id >= 0 ? id : B2_FAIL_CODE(B2_ERR_NOT_FOUND);
}

const char *b2_filter_name(int id)
{
    return b2_registry_filter_name(NULL, id);
}

int b2_filter_from_name(const char *name)
{
    int id = b2_builtin_filter_id(name);
    if (id < 0)
        id = b2_user_filter_id(name);
    return id >= 0 ? id : B2_FAIL_CODE(B2_ERR_NOT_FOUND);
}

/* ---- calls ---- */

/* A user function's negative result as one of our codes (dflt when it is not one). */
static int as_code(int rc, int dflt)
{
    return rc <= B2_ERR_INVALID_PARAM && rc >= B2_ERR_BAD_CODEC ? rc : dflt;
}

int b2_user_filter_run(const b2_user_filter *f, int forward, b2_plugin_call c,
                       const uint8_t *src, uint8_t *dst, int32_t n)
{
    c.id = f->id;
    c.user = f->user;
    int rc = (forward ? f->forward : f->backward)(&c, src, dst, n);
    if (rc >= 0)
        return B2_OK;
    int code = as_code(rc, B2_ERR_FILTER);
    return B2_FAIL(code, "user filter %d (%s) %s returned %d", f->id, f->name,
                   forward ? "forward" : "backward", rc);
}

int b2_user_codec_compress(const b2_user_codec *uc, b2_plugin_call c, const uint8_t *src,
                           int32_t srclen, uint8_t *dst, int32_t dstcap)
{
    c.id = uc->id;
    c.user = uc->user;
    int rc = uc->compress(&c, src, srclen, dst, dstcap);
    if (rc < 0) {
        int code = as_code(rc, B2_ERR_CODEC);
        return B2_FAIL(code, "user codec %d (%s) compress returned %d", uc->id, uc->name, rc);
    }
    B2_FAIL_IF(rc > dstcap, B2_ERR_CODEC, "user codec %d (%s) reports %d bytes for room of %d",
               uc->id, uc->name, rc, (int)dstcap);
    return rc;
}

int b2_user_codec_decompress(const b2_user_codec *uc, b2_plugin_call c, const uint8_t *src,
                             int32_t srclen, uint8_t *dst, int32_t dstlen)
{
    c.id = uc->id;
    c.user = uc->user;
    c.clevel = 0;
    int rc = uc->decompress(&c, src, srclen, dst, dstlen);
    if (rc >= 0)
        return rc;
    int code = as_code(rc, B2_ERR_CORRUPT);
    return B2_FAIL(code, "user codec %d (%s) decompress returned %d", uc->id, uc->name, rc);
}
