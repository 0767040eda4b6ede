/* SPDX-License-Identifier: BSD-3-Clause */
/* NumPy .npy files as `b2 compress` input (npy.h): the header (format versions
 * 1.0, 2.0 and 3.0) gives the dtype and the shape; the data follow it. Only
 * C-order arrays of a plain dtype are taken: a Fortran-order array would come
 * out transposed, and object or structured dtypes have no fixed item layout we
 * could store. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "npy.h"

static const uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

int b2cli_npy_is(const char *path)
{
    uint8_t b[6];
    FILE *f;
    if (!strcmp(path, "-") || !(f = fopen(path, "rb")))
        return 0;
    size_t got = fread(b, 1, sizeof b, f);
    fclose(f);
    return got == sizeof b && !memcmp(b, magic, sizeof b);
}

/* True on a little-endian machine. */
static int little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

/* The value after key 'name': in the header dict, or NULL. */
static const char *dict_value(const char *hdr, const char *name)
{
    char key[32];
    snprintf(key, sizeof key, "'%s'", name);
    const char *p = strstr(hdr, key);
    if (!p) {
        snprintf(key, sizeof key, "\"%s\"", name);
        if (!(p = strstr(hdr, key)))
            return NULL;
    }
    p += strlen(key);
    while (*p == ' ')
        p++;
    if (*p++ != ':')
        return NULL;
    while (*p == ' ')
        p++;
    return p;
}

/* Parse "(3, 4)", "(5,)" or "()" into h->shape. 0 or -1. */
static int parse_shape(const char *p, b2cli_npy *h)
{
    if (*p++ != '(')
        return -1;
    h->ndim = 0;
    for (;;) {
        while (*p == ' ' || *p == ',')
            p++;
        if (*p == ')')
            return 0;
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno || v < 0 || h->ndim == B2_ND_MAX_DIM)
            return -1;
        while (*end == 'L') /* Python 2 longs */
            end++;
        if (*end != ',' && *end != ')' && *end != ' ')
            return -1;
        h->shape[h->ndim++] = v;
        p = end;
    }
}

/* Check the header dict text and fill h. B2_OK or an error (message printed). */
static int parse_dict(const char *path, const char *hdr, b2cli_npy *h)
{
    const char *d = dict_value(hdr, "descr"), *f = dict_value(hdr, "fortran_order"),
               *s = dict_value(hdr, "shape");
    if (!d || !f || !s)
        return b2cli_data_error(path, ".npy header lacks 'descr', 'fortran_order' or 'shape'"),
               B2_ERR_FORMAT;
    if (*d == '[')
        return b2cli_data_error(path, ".npy structured dtypes are not supported"), B2_ERR_UNSUPPORTED;
    char q = *d;
    const char *e = (q == '\'' || q == '"') ? strchr(d + 1, q) : NULL;
    if (!e || (size_t)(e - d - 1) >= sizeof h->dtype)
        return b2cli_data_error(path, "malformed .npy dtype"), B2_ERR_FORMAT;
    memcpy(h->dtype, d + 1, (size_t)(e - d - 1));
    h->dtype[e - d - 1] = '\0';
    if (h->dtype[0] == '=') /* native order: this machine's */
        h->dtype[0] = little_endian() ? '<' : '>';
    if (h->dtype[1] == 'O')
        return b2cli_data_error(path, ".npy object dtype '%s' holds Python objects, not data",
                                h->dtype), B2_ERR_UNSUPPORTED;
    h->itemsize = b2_nd_dtype_itemsize(h->dtype);
    if (h->itemsize <= 0)
        return b2cli_data_error(path, ".npy dtype '%s' has no item size b2 knows", h->dtype),
               B2_ERR_UNSUPPORTED;
    if (!strncmp(f, "True", 4))
        return b2cli_data_error(path, ".npy array is in Fortran order; b2 takes C order "
                                "(save np.ascontiguousarray(a))"), B2_ERR_UNSUPPORTED;
    if (strncmp(f, "False", 5))
        return b2cli_data_error(path, "malformed .npy fortran_order"), B2_ERR_FORMAT;
    if (parse_shape(s, h) < 0)
        return b2cli_data_error(path, "malformed .npy shape"), B2_ERR_FORMAT;
    return B2_OK;
}

/* Whether the data size prod(shape) * itemsize overflows int64 (-1) or its value. */
static int64_t data_size(const b2cli_npy *h)
{
    int64_t n = h->itemsize;
    for (int i = 0; i < h->ndim; i++) {
        if (h->shape[i] != 0 && n > INT64_MAX / h->shape[i])
            return -1;
        n *= h->shape[i];
    }
    return n;
}

int b2cli_npy_read_header(const char *path, b2cli_npy *h)
{
    uint8_t pre[12];
    struct stat st;
    memset(h, 0, sizeof *h);
    memset(&st, 0, sizeof st);
    FILE *f = fopen(path, "rb");
    if (!f)
        return b2cli_data_error(path, "cannot open: %s", strerror(errno)), B2_ERR_IO;
    size_t got = fread(pre, 1, sizeof pre, f);
    int rc = B2_OK;
    uint32_t hlen = 0, plen = 0;
    if (got >= 8 && pre[6] >= 1 && pre[6] <= 3) {
        plen = pre[6] == 1 ? 10 : 12;
        hlen = pre[6] == 1 ? (uint32_t)(pre[8] | pre[9] << 8)
                           : (uint32_t)(pre[8] | pre[9] << 8 | pre[10] << 16 | (uint32_t)pre[11] << 24);
    }
    char *hdr = NULL;
    if (got < 8 || memcmp(pre, magic, 6)) {
        rc = B2_ERR_FORMAT, b2cli_data_error(path, "not a .npy file");
    } else if (pre[6] < 1 || pre[6] > 3) {
        rc = B2_ERR_UNSUPPORTED, b2cli_data_error(path, ".npy format version %u.%u is not one of 1.0, 2.0, 3.0",
                              pre[6], pre[7]);
    } else if (got < plen || hlen > (1u << 24) || fstat(fileno(f), &st) != 0 ||
               (uint64_t)st.st_size < (uint64_t)plen + hlen) {
        rc = B2_ERR_FORMAT, b2cli_data_error(path, "truncated .npy header");
    } else if (!(hdr = malloc((size_t)hlen + 1))) {
        rc = B2_ERR_NOMEM, b2cli_data_error(path, "out of memory");
    } else if (fseek(f, (long)plen, SEEK_SET) != 0 || fread(hdr, 1, hlen, f) != hlen) {
        rc = B2_ERR_FORMAT, b2cli_data_error(path, "truncated .npy header");
    } else {
        hdr[hlen] = '\0';
        rc = parse_dict(path, hdr, h);
    }
    free(hdr);
    fclose(f);
    if (rc < 0)
        return rc;
    h->offset = (int64_t)plen + hlen;
    h->nbytes = data_size(h);
    if (h->nbytes < 0 || (int64_t)st.st_size - h->offset != h->nbytes)
        return b2cli_data_error(path, ".npy header announces %lld data bytes, the file holds %lld",
                                (long long)h->nbytes, (long long)(st.st_size - h->offset)),
               B2_ERR_FORMAT;
    return B2_OK;
}
