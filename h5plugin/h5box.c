/* SPDX-License-Identifier: BSD-3-Clause */
/* The box a read fills: H5Dread of a part of it, copies between C-order
 * layouts, strides, growing buffers, and the report's first reason (shared by
 * the serial (h5read.c) and parallel (h5readpar.c) paths). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5read_int.h"

/* The report's reason, unless one is already there (the first one counts). */
void b2_h5_note(b2_h5_read_report *rep, const char *fmt, const char *arg)
{
    if (rep && !rep->reason[0])
        snprintf(rep->reason, sizeof rep->reason, fmt, arg);
}

/* H5Dread of the part [lo, hi) (dataset coordinates) of the box into its place in buf. */
int b2_h5_dread_part(reader *r, const hsize_t *lo, const hsize_t *hi)
{
    hsize_t moff[MAXDIM], cnt[MAXDIM];
    for (int d = 0; d < r->rank; d++) {
        moff[d] = lo[d] - r->start[d];
        cnt[d] = hi[d] - lo[d];
    }
    hid_t ms = r->h->Screate_simple(r->rank, r->count, NULL);
    int rc = ms < 0 ? -1 : 0;
    if (rc == 0)
        rc = r->h->Sselect_hyperslab(ms, H5S_SELECT_SET, moff, NULL, cnt, NULL) < 0 ? -1 : 0;
    if (rc == 0)
        rc = r->h->Sselect_hyperslab(r->fspace, H5S_SELECT_SET, lo, NULL, cnt, NULL) < 0 ? -1 : 0;
    /* the dataset's own type when the caller gave none */
    hid_t mt = r->mem_type != H5P_DEFAULT ? r->mem_type : r->h->Dget_type(r->dset);
    if (rc == 0)
        rc = mt < 0 || r->h->Dread(r->dset, mt, ms, r->fspace, H5P_DEFAULT, r->buf) < 0 ? -1 : 0;
    if (mt >= 0 && mt != r->mem_type)
        b2_h5_api_get(NULL)->Tclose(mt);
    if (ms >= 0)
        r->h->Sclose(ms);
    return rc < 0 ? B2_FAIL(B2_ERR_IO, "H5Dread failed") : B2_OK;
}

/* Grow *p to n bytes (contents kept); -1 without memory. */
int b2_h5_grow(uint8_t **p, size_t *cap, size_t n)
{
    if (*cap >= n)
        return 0;
    uint8_t *q = realloc(*p, n);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Copy an nd box of cnt elements between C-order layouts with element strides. */
void b2_h5_copy_box(int nd, const hsize_t *cnt, size_t ts, uint8_t *dst, const int64_t *dstr,
                     const uint8_t *src, const int64_t *sstr)
{
    size_t run = (size_t)cnt[nd - 1] * ts;
    hsize_t idx[MAXDIM] = {0};
    for (;;) {
        int64_t doff = 0, soff = 0;
        for (int d = 0; d < nd - 1; d++) {
            doff += (int64_t)idx[d] * dstr[d];
            soff += (int64_t)idx[d] * sstr[d];
        }
        memcpy(dst + doff * (int64_t)ts, src + soff * (int64_t)ts, run);
        int d = nd - 2;
        while (d >= 0 && ++idx[d] == cnt[d])
            idx[d--] = 0;
        if (d < 0)
            return;
    }
}

/* C-order element strides of an nd extent. */
void b2_h5_strides_of(int nd, const hsize_t *ext, int64_t *str)
{
    int64_t s = 1;
    for (int d = nd - 1; d >= 0; d--) {
        str[d] = s;
        s *= (int64_t)ext[d];
    }
}

const char *b2_h5_coords_text(char *s, size_t cap, int rank, const hsize_t *off,
                              const hsize_t *unit)
{
    size_t k = 0;
    for (int d = 0; d < rank && k + 24 < cap; d++)
        k += (size_t)snprintf(s + k, cap - k, "%s%llu", d ? "," : "(",
                              (unsigned long long)(unit ? off[d] / unit[d] * unit[d] : off[d]));
    snprintf(s + k, cap - k, ")");
    return s;
}
