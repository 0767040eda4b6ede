/* SPDX-License-Identifier: BSD-3-Clause */
/* Recognising what a file holds from its bytes (never its name): a chunk, a
 * contiguous frame, a b2nd array (a frame with a "b2nd" metalayer) or, for a
 * directory, a sparse frame. Only cheap structural checks are done here; the
 * library validates everything properly when the object is opened. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <sys/stat.h>

#include "b2_internal.h"
#include "b2cli.h"

const char *b2cli_kind_name(int kind)
{
    switch (kind) {
    case B2CLI_KIND_CHUNK: return "chunk";
    case B2CLI_KIND_CFRAME: return "cframe";
    case B2CLI_KIND_SFRAME: return "sframe";
    case B2CLI_KIND_B2ND: return "b2nd";
    default: return "unknown";
    }
}

int b2cli_detect_dir(const char *path)
{
    char buf[4096];
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return B2CLI_KIND_UNKNOWN;
    if ((size_t)snprintf(buf, sizeof buf, "%s/chunks.b2frame", path) >= sizeof buf)
        return B2CLI_KIND_UNKNOWN;
    if (stat(buf, &st) != 0 || !S_ISREG(st.st_mode))
        return B2CLI_KIND_UNKNOWN;
    return B2CLI_KIND_SFRAME;
}

/* Frame header: msgpack fixarray (0x9X), fixstr of 8 (0xA8) "b2frame\0", then
 * an int32 marker (0xD2) and the big-endian header length at byte 11. The
 * metalayers section starts at byte 87 (see doc/format/frame.md). */
int b2cli_is_frame(const uint8_t *d, size_t n)
{
    return n >= 15 && (d[0] & 0xF0) == 0x90 && d[1] == 0xA8 &&
           !memcmp(d + 2, "b2frame\0", 8) && d[10] == 0xD2;
}

/* A b2nd array is a frame with a metalayer named "b2nd": look for its name
 * (fixstr 0xA4 "b2nd") among the metalayer names of the header. */
static int frame_has_b2nd(const uint8_t *d, size_t n)
{
    uint32_t hlen = b2_load_be32(d + 11);
    size_t end = hlen < n ? hlen : n;
    for (size_t i = 87; i + 5 <= end; i++)
        if (d[i] == 0xA4 && !memcmp(d + i + 1, "b2nd", 4))
            return 1;
    return 0;
}

int b2cli_detect_buffer(const uint8_t *data, size_t size)
{
    b2_chunk_info info;
    if (b2cli_is_frame(data, size))
        return frame_has_b2nd(data, size) ? B2CLI_KIND_B2ND : B2CLI_KIND_CFRAME;
    if (b2_chunk_get_info(data, size, &info) == B2_OK && (size_t)info.cbytes == size)
        return B2CLI_KIND_CHUNK;
    return B2CLI_KIND_UNKNOWN;
}
