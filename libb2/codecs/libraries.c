/* SPDX-License-Identifier: BSD-3-Clause */
/* b2_codec_library: the external libraries this build's codecs (and frame
 * checksums) run on, with their versions, for bug reports. Versions come from
 * the library loaded in the process where it can tell (a distribution may
 * upgrade lz4 under an installed libb2), else from the header libb2 was built
 * with. */
#include <stdio.h>
#include <string.h>
#include <lz4.h>
#include <zstd.h>
#include <libdeflate.h>
#include <xxhash.h>
#ifdef B2_ZLIB_ENCODER_ZLIB
#include <zlib.h>
#endif
#ifdef B2_HAVE_ZFP
#include <zfp.h>
#endif
#include "b2_chunk_experimental.h"
#include "b2_internal.h"

static void set(b2_codec_library_info *info, const char *name, const char *version, int runtime,
                const char *uses)
{
    info->name = name;
    snprintf(info->version, sizeof info->version, "%s", version ? version : "");
    info->runtime = runtime;
    info->uses = uses;
}

/* "major.minor.patch" from a number packed as major*f*f + minor*f + patch. */
static void set_packed(b2_codec_library_info *info, const char *name, unsigned v, unsigned f,
                       const char *uses)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%u.%u.%u", v / (f * f), v / f % f, v % f);
    set(info, name, buf, 1, uses);
}

int b2_codec_library(int index, b2_codec_library_info *info)
{
    B2_FAIL_IF(!info, B2_ERR_INVALID_PARAM, "info is NULL");
    memset(info, 0, sizeof *info);
    /* the optional ones take the next index only when built in, so that the
     * list has no holes */
    int i = 0;
    if (index == i++) {
        set(info, "lz4", LZ4_versionString(), 1, "lz4 lz4hc");
        return B2_OK;
    }
    if (index == i++) {
        set(info, "zstd", ZSTD_versionString(), 1, "zstd");
        return B2_OK;
    }
    if (index == i++) {
#ifdef B2_ZLIB_ENCODER_ZLIB
        const char *uses = "zlib-decoding";
#else
        const char *uses = "zlib";
#endif
        set(info, "libdeflate", LIBDEFLATE_VERSION_STRING, 0, uses);
        return B2_OK;
    }
#ifdef B2_ZLIB_ENCODER_ZLIB
    if (index == i++) {
        set(info, "zlib", zlibVersion(), 1, "zlib-encoding");
        return B2_OK;
    }
#endif
#ifdef B2_HAVE_ZFP
    if (index == i++) {
        /* ZFP_MAKE_VERSION packs one hex digit per part (a tweak digit last) */
        set_packed(info, "zfp", zfp_library_version >> 4, 16, "zfp_acc zfp_prec zfp_rate");
        return B2_OK;
    }
#endif
    if (index == i++) {
#ifdef B2_HAVE_NDLZ
        const char *uses = "checksums ndlz-encoding";
#else
        const char *uses = "checksums";
#endif
        set_packed(info, "xxhash", XXH_versionNumber(), 100, uses);
        return B2_OK;
    }
    /* the end of the list: a plain return, no error recorded (callers loop to it) */
    return B2_ERR_RANGE;
}
