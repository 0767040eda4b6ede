/* SPDX-License-Identifier: BSD-3-Clause */
/* Experimental plugin functions: they may change or go in any release, unlike
 * those of b2_plugin.h. Registries: user filters and codecs for one context
 * rather than the whole process (b2_*_set_registry attaches them). */
#ifndef B2_PLUGIN_EXPERIMENTAL_H
#define B2_PLUGIN_EXPERIMENTAL_H

#include "b2_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- registries attached to contexts ---- */

/* New empty registry (NULL when out of memory). Fill it before the contexts
 * using it start work; from then on it is only read, by any number of threads. */
B2_API b2_registry *b2_registry_new(void);
/* Free a registry (NULL is fine). Contexts it is attached to must not be used
 * afterwards (they keep a pointer, not a copy). */
B2_API void b2_registry_free(b2_registry *r);
/* Add a filter to r (same rules as b2_register_filter, within r). */
B2_API int b2_registry_add_filter(b2_registry *r, const b2_user_filter *f);
/* Add a codec to r (same rules as b2_register_codec, within r). */
B2_API int b2_registry_add_codec(b2_registry *r, const b2_user_codec *c);

/* Name of filter id as a context with registry r (may be NULL) sees it: a
 * built-in or plugin name, then r's entry, then the process table's; NULL when
 * unknown. b2_filter_name(id) is the same with r = NULL. */
B2_API const char *b2_registry_filter_name(const b2_registry *r, int id);
/* Name of codec id, as b2_registry_filter_name does for filters. */
B2_API const char *b2_registry_codec_name(const b2_registry *r, int id);

#ifdef __cplusplus
}
#endif

#endif
