/* SPDX-License-Identifier: BSD-3-Clause */
/* NumPy dtype strings (the b2nd dtype with dtype_format 0). Only the simple
 * typestr form "<byteorder><kind><size>" is interpreted; anything else
 * (structured descriptions such as "[('x', '<f4'), ('y', '<i2')]") is kept as an
 * opaque label whose item size comes from the frame's typesize. The dtype never
 * changes how bytes are stored: it is a label (doc/format/b2nd.md §1). */
#include <stdio.h>
#include <string.h>

#include "b2nd_internal.h"

int32_t b2_nd_dtype_itemsize(const char *s)
{
    if (!s)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    if (s[0] == '[' || s[0] == '(' || s[0] == '{')
        return 0; /* structured: opaque */
    const char *p = s;
    if (*p == '<' || *p == '>' || *p == '|' || *p == '=')
        p++;
    char kind = *p++;
    if (!kind || !strchr("biufcVSUMm", kind))
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    if (*p < '0' || *p > '9')
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int64_t n = 0;
    while (*p >= '0' && *p <= '9') {
        n = n * 10 + (*p++ - '0');
        if (n > INT32_MAX)
            return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    }
    /* datetime/timedelta carry a unit suffix such as "[ns]" */
    if ((kind == 'M' || kind == 'm') && *p == '[') {
        const char *q = strchr(p, ']');
        if (!q || q[1])
            return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
        p = q + 1;
    }
    if (*p)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    switch (kind) {
    case 'b':
        return n == 1 ? 1 : B2_ERR_INVALID_PARAM;
    case 'i':
    case 'u':
        return n == 1 || n == 2 || n == 4 || n == 8 ? (int32_t)n : B2_ERR_INVALID_PARAM;
    case 'f':
        return n == 2 || n == 4 || n == 8 || n == 10 || n == 12 || n == 16 ? (int32_t)n
                                                                            : B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    case 'c':
        return n == 8 || n == 16 || n == 20 || n == 24 || n == 32 ? (int32_t)n
                                                                  : B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    case 'M':
    case 'm':
        return n == 8 ? 8 : B2_ERR_INVALID_PARAM;
    case 'U':
        return n >= 1 && n <= INT32_MAX / 4 ? (int32_t)(4 * n) : B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    default: /* V, S: n bytes */
        return n >= 1 ? (int32_t)n : B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    }
}

int b2_nd_dtype_default(int32_t typesize, char *buf, size_t cap)
{
    if (typesize <= 0 || !buf)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int n = snprintf(buf, cap, "|S%d", (int)typesize);
    if (n < 0 || (size_t)n >= cap)
        return B2_FAIL_CODE(B2_ERR_DST_TOO_SMALL);
    return n;
}
