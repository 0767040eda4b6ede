/* SPDX-License-Identifier: BSD-3-Clause */
/* b2_codec_library (b2_chunk_experimental.h): the list of codec libraries is
 * lz4, zstd, libdeflate first, every entry has a name, a dotted version and
 * what it serves, names are not repeated, the end is B2_ERR_RANGE without an
 * error message (callers loop to it), and a NULL info is refused with one. */
#include <ctype.h>
#include <string.h>

#include "b2_chunk_experimental.h"
#include "b2_common.h"
#include "check.h"

/* "1.9.4", "1.5.4": digits with at least one dot, nothing else */
static int dotted(const char *v)
{
    int dots = 0;
    if (!isdigit((unsigned char)v[0]))
        return 0;
    for (const char *p = v; *p; p++) {
        if (*p == '.')
            dots++;
        else if (!isdigit((unsigned char)*p))
            return 0;
    }
    return dots >= 1;
}

int main(void)
{
    static const char *const first[] = {"lz4", "zstd", "libdeflate"};
    const char *names[16];
    int n = 0;
    for (;; n++) {
        b2_codec_library_info info;
        int rc = b2_codec_library(n, &info);
        if (rc == B2_ERR_RANGE)
            break;
        CHECK(rc == B2_OK, "entry %d: %d", n, rc);
        if (rc != B2_OK || n >= 16)
            break;
        CHECK(info.name && *info.name, "entry %d has a name", n);
        CHECK(dotted(info.version), "%s: version \"%s\"", info.name, info.version);
        CHECK(info.uses && *info.uses, "%s says what it serves", info.name);
        CHECK(info.runtime == 0 || info.runtime == 1, "%s: runtime %d", info.name, info.runtime);
        if (n < 3)
            CHECK(!strcmp(info.name, first[n]), "entry %d is %s, not %s", n, first[n], info.name);
        for (int j = 0; j < n; j++)
            CHECK(strcmp(names[j], info.name), "%s listed twice", info.name);
        names[n] = info.name;
        printf("%-10s %-8s %s (%s)\n", info.name, info.version, info.uses,
               info.runtime ? "run time" : "built with");
    }
    CHECK(n >= 4, "lz4, zstd, libdeflate and xxhash at least: %d", n);
    CHECK(!strcmp(names[n - 1], "xxhash"), "xxhash last: %s", names[n - 1]);
    CHECK(b2_last_error_code() == B2_OK, "the end of the list records no error: %s",
          b2_last_error_message());
    b2_codec_library_info info;
    CHECK(b2_codec_library(-1, &info) == B2_ERR_RANGE, "index -1");
    CHECK(b2_codec_library(0, NULL) == B2_ERR_INVALID_PARAM, "NULL info");
    CHECK(strstr(b2_last_error_message(), "info is NULL") != NULL, "NULL info message: %s",
          b2_last_error_message());
    return b2t_summary("codec libraries");
}
