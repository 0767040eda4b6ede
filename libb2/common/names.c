/* SPDX-License-Identifier: BSD-3-Clause */
/* The names of the built-in and registered-plugin codecs, filters and special
 * kinds, by id and back. Pure tables: the public lookups that also know user
 * ids (b2_codec_name, ...) are in registry.c, which consults these first. */
#include <string.h>

#include "b2_chunk.h"
#include "registry.h"

static const char *const codec_names[] = {"blosclz", "lz4", "lz4hc", NULL, "zlib", "zstd"};
/* Registered plugin codecs 32..37 (doc/format/plugins.md; 36 and 37 are only named). */
static const char *const plugin_codec_names[] = {"ndlz", "zfp_acc", "zfp_prec", "zfp_rate",
                                                 "openhtj2k", "grok"};
static const char *const filter_names[] = {"none", "shuffle", "bitshuffle", "delta", "trunc_prec"};
/* Registered plugin filters 32..36 (doc/format/plugins.md). */
static const char *const plugin_filter_names[] = {"ndcell", "ndmean", "bytedelta_buggy",
                                                  "bytedelta", "int_trunc"};
static const char *const special_names[] = {"none", "zeros", "nan", "value", "uninit"};

int b2_builtin_codec_id(const char *name)
{
    for (int i = 0; i < 6; i++)
        if (codec_names[i] && name && !strcmp(name, codec_names[i]))
            return i;
    for (int i = 0; i < 6; i++)
        if (name && !strcmp(name, plugin_codec_names[i]))
            return B2_CODEC_NDLZ + i;
    return -1;
}

int b2_builtin_filter_id(const char *name)
{
    for (int i = 0; i < 5; i++)
        if (name && !strcmp(name, filter_names[i]))
            return i;
    for (int i = 0; i < 5; i++)
        if (name && !strcmp(name, plugin_filter_names[i]))
            return B2_FILTER_NDCELL + i;
    return -1;
}

const char *b2_builtin_codec_name(int id)
{
    if (id >= 0 && id < 6)
        return codec_names[id];
    if (id >= B2_CODEC_NDLZ && id < B2_CODEC_NDLZ + 6)
        return plugin_codec_names[id - B2_CODEC_NDLZ];
    return NULL;
}

const char *b2_builtin_filter_name(int id)
{
    if (id >= 0 && id < 5)
        return filter_names[id];
    if (id >= B2_FILTER_NDCELL && id <= B2_FILTER_INT_TRUNC)
        return plugin_filter_names[id - B2_FILTER_NDCELL];
    return NULL;
}

const char *b2_special_name(int special)
{
    return special >= 0 && special < 5 ? special_names[special] : NULL;
}
