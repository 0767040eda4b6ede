/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal side of the user filter and codec registry (registry.c; public
 * side in b2_plugin.h): lookups and the calls into user functions, which turn
 * their failures into recorded errors naming the id. */
#ifndef B2_REGISTRY_H
#define B2_REGISTRY_H

#include "b2_chunk_experimental.h"
#include "b2_plugin_experimental.h"
#include "b2_internal.h"

/* Whether id is in the user range 160..255. */
static inline int b2_is_user_id(int id)
{
    return id >= B2_USER_ID_FIRST && id <= B2_USER_ID_LAST;
}

/* The entry for id as seen with registry r (NULL: the process table only), or
 * NULL when none. Entries never change once visible, so the pointer stays valid
 * (process table: until exit; r: until it is freed). */
B2_HIDDEN const b2_user_filter *b2_user_filter_find(const b2_registry *r, int id);
B2_HIDDEN const b2_user_codec *b2_user_codec_find(const b2_registry *r, int id);

/* Record and yield B2_ERR_UNSUPPORTED for an unregistered user id, in the
 * caller's name; what is "filter" or "codec", where (may be "") says where the
 * id was met. */
#define B2_USER_MISSING(what, id, where)                                              \
    B2_FAIL(B2_ERR_UNSUPPORTED,                                                       \
            "%s id %d%s is not registered (user ids need b2_register_%s or a registry)", \
            (what), (int)(id), (where), (what))

/* Run one direction of f on n bytes (c: everything but id and user, which come
 * from f). Returns 0 or a recorded negative error. */
B2_HIDDEN int b2_user_filter_run(const b2_user_filter *f, int forward, b2_plugin_call c,
                                 const uint8_t *src, uint8_t *dst, int32_t n);
/* Compress with a user codec: its length, 0 (store raw), or a recorded error
 * (a length above dstcap counts as an error: the codec overran its buffer). */
B2_HIDDEN int b2_user_codec_compress(const b2_user_codec *uc, b2_plugin_call c,
                                     const uint8_t *src, int32_t srclen, uint8_t *dst,
                                     int32_t dstcap);
/* Decompress with a user codec: bytes produced or a recorded error. */
B2_HIDDEN int b2_user_codec_decompress(const b2_user_codec *uc, b2_plugin_call c,
                                       const uint8_t *src, int32_t srclen, uint8_t *dst,
                                       int32_t dstlen);

/* Built-in and plugin names only (names.c): the id, or -1 (nothing recorded).
 * Registration refuses names these already use. */
B2_HIDDEN int b2_builtin_codec_id(const char *name);
B2_HIDDEN int b2_builtin_filter_id(const char *name);
/* The name of a built-in or plugin id, or NULL (names.c). */
B2_HIDDEN const char *b2_builtin_codec_name(int id);
B2_HIDDEN const char *b2_builtin_filter_name(int id);
/* Id of a process-table entry with this name, or -1. */
B2_HIDDEN int b2_user_codec_id(const char *name);
B2_HIDDEN int b2_user_filter_id(const char *name);

#endif
