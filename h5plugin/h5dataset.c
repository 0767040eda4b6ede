/* SPDX-License-Identifier: BSD-3-Clause */
/* b2_h5_dataset_refusal: whether a dataset can take the direct read or write
 * path, with what either path learns of the dataset on the way. The two paths
 * word a few refusals differently (the writer names a missing filter and MPI-IO
 * files); each keeps its wording. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5dataset.h"

/* hdf5.h's H5F_ACC_RDWR expands to calls into libhdf5, which we never link */
#define ACC_RDWR 0x0001u

/* The writer's datatype checks on the file type ftype ("" when it passes). */
static const char *type_refusal(const b2_h5_read_api *h, hid_t ftype, hid_t mem_type)
{
    /* HDF5's API reports variable-length strings as H5T_STRING only: strings
     * inside compound or array types are refused whatever their kind */
    if (h->Tdetect_class(ftype, H5T_VLEN) != 0 || h->Tdetect_class(ftype, H5T_REFERENCE) != 0 ||
        h->Tis_variable_str(ftype) != 0 ||
        (b2_h5_api_get(NULL)->Tget_class(ftype) != H5T_STRING &&
         h->Tdetect_class(ftype, H5T_STRING) != 0))
        return "the datatype is variable-length (or holds strings) or a reference";
    if (mem_type != H5P_DEFAULT && h->Tequal(mem_type, ftype) <= 0)
        return "the memory type differs from the file type (conversion)";
    return "";
}

/* The writer's refusal of a pipeline of nf filters whose first is not Blosc2. */
static const char *writer_filter_refusal(const b2_h5_read_api *h, hid_t dcpl, int nf)
{
    const char *why = "the dataset has no filter 32026 (Blosc2)";
    for (int i = 1; i < nf; i++) {
        unsigned fl2;
        size_t n2 = 0;
        if (h->Pget_filter2(dcpl, (unsigned)i, &fl2, &n2, NULL, 0, NULL, NULL) == B2_H5_FILTER_ID)
            why = "the filter pipeline is not Blosc2 alone";
    }
    return why;
}

/* Layout, filter pipeline and chunk shape (into c->cdims); for the writer, the
 * cd_values parsed into c->p too. */
static const char *pipeline_refusal(const b2_h5_read_api *h, hid_t dcpl, b2_h5_dset_check *c,
                                    char *why_buf, size_t cap)
{
    if (h->Pget_layout(dcpl) != H5D_CHUNKED)
        return "the dataset is not chunked";
    int nf = h->Pget_nfilters(dcpl);
    unsigned flags = 0, cd[B2_H5_MAX_CDVALUES];
    size_t ncd = B2_H5_MAX_CDVALUES;
    if (nf < 1 || h->Pget_filter2(dcpl, 0, &flags, &ncd, cd, 0, NULL, NULL) != B2_H5_FILTER_ID)
        return c->write ? writer_filter_refusal(h, dcpl, nf)
                        : "the filter pipeline is not Blosc2 alone";
    if (nf != 1)
        return "the filter pipeline is not Blosc2 alone";
    const b2_h5_api *base = b2_h5_api_get(NULL);
    if (!base || base->Pget_chunk(dcpl, c->rank, c->cdims) != c->rank)
        return "unreadable chunk shape";
    if (c->write) {
        char err[200];
        if (ncd > B2_H5_MAX_CDVALUES)
            ncd = B2_H5_MAX_CDVALUES;
        if (b2_h5_params_parse(ncd, cd, 1, &c->p, err, sizeof err) < 0) {
            snprintf(why_buf, cap, "the filter cannot compress with these cd_values: %.70s", err);
            return why_buf;
        }
    }
    return "";
}

/* The writer's chunk size and fill value (into c->nbytes and c->fill). */
static const char *fill_refusal(const b2_h5_read_api *h, hid_t dcpl, hid_t ftype,
                                b2_h5_dset_check *c)
{
    c->p.nthreads = 1; /* threads work on chunks; the bytes do not depend on it */
    c->p.mem_limit = b2_h5_memory_limit_from_env();
    uint64_t n = c->ts;
    for (int d = 0; d < c->rank; d++)
        n *= c->cdims[d];
    c->nbytes = (size_t)n;
    if (n == 0 || n > 0xFFFFFFFFu)
        return "chunks of 4 GiB or more";
    H5D_fill_time_t ft = H5D_FILL_TIME_IFSET;
    H5D_fill_value_t fv = H5D_FILL_VALUE_UNDEFINED;
    if (h->Pget_fill_time(dcpl, &ft) < 0 || h->Pfill_value_defined(dcpl, &fv) < 0)
        return "unreadable fill value settings";
    if (ft != H5D_FILL_TIME_NEVER && fv != H5D_FILL_VALUE_UNDEFINED) {
        /* HDF5 fills a new chunk with it (H5D__chunk_lock); else zeros */
        if (!(c->fill = calloc(1, c->ts)) || h->Pget_fill_value(dcpl, ftype, c->fill) < 0)
            return "unreadable fill value";
    }
    return "";
}

/* The reader's file checks: user block, intent and name (into c). */
static const char *reader_file_refusal(const b2_h5_read_api *h, hid_t fid, hid_t fcpl,
                                       b2_h5_dset_check *c)
{
    unsigned intent = 0;
    if (fcpl < 0 || h->Pget_userblock(fcpl, &c->userblock) < 0)
        return "no file creation properties";
    if (h->Fget_intent(fid, &intent) >= 0)
        c->writable = (intent & ACC_RDWR) != 0;
    ssize_t len = h->Fget_name(fid, NULL, 0);
    if (len <= 0 || !(c->path = malloc((size_t)len + 1)) ||
        h->Fget_name(fid, c->path, (size_t)len + 1) != len)
        return "no file name";
    return "";
}

/* The file: its driver (sec2; the writer names MPI-IO), then the reader's checks. */
static const char *file_refusal(const b2_h5_read_api *h, hid_t dset, b2_h5_dset_check *c)
{
    hid_t fid = h->Iget_file_id(dset);
    if (fid < 0)
        return "no file";
    hid_t fapl = h->Fget_access_plist(fid);
    hid_t fcpl = c->write ? -1 : h->Fget_create_plist(fid);
    hid_t drv = fapl < 0 ? -1 : h->Pget_driver(fapl);
    const char *why = "";
    if (c->write && drv >= 0 && drv == b2_h5_driver_mpio(h))
        why = "the file uses MPI-IO";
    /* the writer also refuses a driver HDF5 cannot name (the reader never did) */
    else if (fapl < 0 || (c->write && drv < 0) || drv != b2_h5_driver_sec2(h))
        why = "the file driver is not sec2 (plain POSIX file)";
    else if (!c->write)
        why = reader_file_refusal(h, fid, fcpl, c);
    if (fapl >= 0)
        h->Pclose(fapl);
    if (fcpl >= 0)
        h->Pclose(fcpl);
    h->Fclose(fid);
    return why;
}

const char *b2_h5_dataset_refusal(const b2_h5_read_api *h, hid_t dset, b2_h5_dset_check *c,
                                  char *why_buf, size_t cap)
{
    if (c->write && !h->Dwrite_chunk)
        return "HDF5 older than 1.10.3 (no H5Dwrite_chunk)";
    if (!c->write && !h->Dget_chunk_info_by_coord)
        return "HDF5 older than 1.10.5 (no H5Dget_chunk_info_by_coord)";
    hid_t ftype = -1;
    const char *why = "";
    if (c->write) { /* the reader checks the memory type on each read */
        if ((ftype = h->Dget_type(dset)) < 0)
            return "the dataset has no datatype";
        why = type_refusal(h, ftype, c->mem_type);
    }
    hid_t dcpl = *why ? -1 : h->Dget_create_plist(dset);
    if (!*why && dcpl < 0)
        why = "no creation property list";
    if (!*why)
        why = pipeline_refusal(h, dcpl, c, why_buf, cap);
    if (!*why && c->write)
        why = fill_refusal(h, dcpl, ftype, c);
    if (dcpl >= 0)
        h->Pclose(dcpl);
    if (ftype >= 0)
        b2_h5_api_get(NULL)->Tclose(ftype);
    return *why ? why : file_refusal(h, dset, c);
}
