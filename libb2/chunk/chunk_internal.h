/* Internal declarations of the chunk layer (shared by decoder and encoder). */
#ifndef B2_CHUNK_INTERNAL_H
#define B2_CHUNK_INTERNAL_H

#include "b2_chunk.h"
#include "b2_internal.h"
#include "codecs.h"
#include "filters.h"

/* Whether the pipeline of a parsed header contains a DELTA slot. */
static inline int b2_info_has_delta(const b2_chunk_info *info)
{
    for (int i = 0; i < B2_MAX_FILTERS; i++)
        if (info->filters[i] == B2_FILTER_DELTA)
            return 1;
    return 0;
}

/* Fill a pipeline description from a parsed header. */
static inline void b2_info_pipeline(const b2_chunk_info *info, b2_pipeline *p)
{
    memcpy(p->filters, info->filters, 6);
    memcpy(p->metas, info->filters_meta, 6);
    p->typesize = info->typesize;
    p->version = info->version;
}

#endif
