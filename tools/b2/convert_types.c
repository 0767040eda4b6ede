/* SPDX-License-Identifier: BSD-3-Clause */
/* `b2 convert`: element types between HDF5 and NumPy typestrs. What filter
 * 32026 stores (its parameters, block shape and frame header) comes from the
 * plugin itself (b2_h5_chunk_params, b2_h5_frame_set_stored_fields). */
#include <string.h>

#include "convert.h"

#ifdef B2CLI_HAVE_HDF5

/* ---- types ---- */

/* Whether compound type t (sz bytes) is h5py's complex: members "r" and "i",
 * floats of half its size at offsets 0 and sz/2; *o gets their byte order. */
static int is_complex(hid_t t, size_t sz, char *o)
{
    if (H5Tget_nmembers(t) != 2)
        return 0;
    int ok = 1;
    for (unsigned i = 0; i < 2 && ok; i++) {
        char *name = H5Tget_member_name(t, i);
        hid_t m = H5Tget_member_type(t, i);
        ok = name && !strcmp(name, i ? "i" : "r") && m >= 0 && H5Tget_class(m) == H5T_FLOAT &&
             H5Tget_size(m) == sz / 2 && H5Tget_member_offset(t, i) == i * (sz / 2);
        if (ok && i == 0)
            *o = H5Tget_order(m) == H5T_ORDER_BE ? '>' : '<';
        if (m >= 0)
            H5Tclose(m);
        H5free_memory(name);
    }
    return ok;
}

/* NumPy typestr for an HDF5 type, or -1 for types without one fixed size. */
int conv_dtype_of(hid_t t, char *buf, size_t cap)
{
    size_t sz = H5Tget_size(t);
    H5T_class_t cl = H5Tget_class(t);
    if (sz == 0 || cl == H5T_VLEN || cl == H5T_NO_CLASS || (cl == H5T_STRING && H5Tis_variable_str(t) > 0))
        return -1;
    char o = H5Tget_order(t) == H5T_ORDER_BE ? '>' : '<';
    if (cl == H5T_INTEGER && (sz == 1 || sz == 2 || sz == 4 || sz == 8))
        snprintf(buf, cap, "%c%c%zu", sz == 1 ? '|' : o, H5Tget_sign(t) == H5T_SGN_NONE ? 'u' : 'i', sz);
    else if (cl == H5T_FLOAT && (sz == 2 || sz == 4 || sz == 8))
        snprintf(buf, cap, "%cf%zu", o, sz);
    else if (cl == H5T_STRING)
        snprintf(buf, cap, "|S%zu", sz);
    else if (cl == H5T_COMPOUND && (sz == 8 || sz == 16) && is_complex(t, sz, &o))
        snprintf(buf, cap, "%cc%zu", o, sz);
    else
        snprintf(buf, cap, "|V%zu", sz);
    return 0;
}

/* HDF5 type for a NumPy typestr of item size ts (opaque when unknown). */
hid_t conv_h5type_of(const char *dt, int32_t ts)
{
    hid_t t = -1;
    char o = dt ? dt[0] : 0, k = dt && dt[0] ? dt[1] : 0;
    int be = o == '>';
    if ((k == 'i' || k == 'u') && (ts == 1 || ts == 2 || ts == 4 || ts == 8)) {
        static const hid_t *ints[2][2][4] = {
            {{&H5T_STD_I8LE_g, &H5T_STD_I16LE_g, &H5T_STD_I32LE_g, &H5T_STD_I64LE_g},
             {&H5T_STD_I8BE_g, &H5T_STD_I16BE_g, &H5T_STD_I32BE_g, &H5T_STD_I64BE_g}},
            {{&H5T_STD_U8LE_g, &H5T_STD_U16LE_g, &H5T_STD_U32LE_g, &H5T_STD_U64LE_g},
             {&H5T_STD_U8BE_g, &H5T_STD_U16BE_g, &H5T_STD_U32BE_g, &H5T_STD_U64BE_g}}};
        int w = ts == 1 ? 0 : ts == 2 ? 1 : ts == 4 ? 2 : 3;
        H5open(); /* the predefined type ids exist once the library is open */
        t = H5Tcopy(*ints[k == 'u'][be][w]);
    } else if (k == 'b' && ts == 1) {
        t = H5Tcopy(H5T_STD_U8LE);
    } else if (k == 'f' && ts == 4) {
        t = H5Tcopy(be ? H5T_IEEE_F32BE : H5T_IEEE_F32LE);
    } else if (k == 'f' && ts == 8) {
        t = H5Tcopy(be ? H5T_IEEE_F64BE : H5T_IEEE_F64LE);
    } else if (k == 'c' && (ts == 8 || ts == 16)) { /* h5py's complex */
        hid_t f = ts == 8 ? (be ? H5T_IEEE_F32BE : H5T_IEEE_F32LE) : (be ? H5T_IEEE_F64BE : H5T_IEEE_F64LE);
        t = H5Tcreate(H5T_COMPOUND, (size_t)ts);
        H5Tinsert(t, "r", 0, f);
        H5Tinsert(t, "i", (size_t)ts / 2, f);
    } else if (k == 'S') {
        t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, (size_t)ts);
        H5Tset_strpad(t, H5T_STR_NULLPAD);
    } else {
        t = H5Tcreate(H5T_OPAQUE, (size_t)ts);
    }
    return t;
}

#endif
