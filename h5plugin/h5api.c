/* SPDX-License-Identifier: BSD-3-Clause */
/* Run-time resolution of the HDF5 API (see h5api.h for why).
 *
 * Where the symbols are looked for, in order:
 *  1. the library containing the caller's address (the HDF5 that dlopen'ed us);
 *  2. the global namespace (programs linked against libhdf5, e.g. h5dump);
 *  3. every loaded object: Python loads h5py's extension modules RTLD_LOCAL,
 *     which hides their libhdf5 from RTLD_DEFAULT.
 * A process may hold several libhdf5 copies (PyTables', netCDF4's and h5py's
 * wheels each bring one), and more than one may run filter 32026 (xarray
 * reading one file through netCDF4, another through h5py). So there is one
 * table per library (a slot, keyed by the library's load address), up to
 * B2_H5_MAX_LIBS: each library that loads us (H5PLget_plugin_info) or that we
 * register with gets its own slot and its own filter class (plugin.c), whose
 * callbacks select that slot for the calling thread (b2_h5_api_enter). The
 * slots are process-wide state by nature (the HDF5 libraries are): each is
 * written once under a mutex and read-only afterwards. The primary slot is
 * the one b2_h5_register/_with chose (b2blosc.h5's box reader and writer
 * serve that library); until then the first slot filled. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "h5api.h"

/* A slot: the tables of one HDF5 library. */
typedef struct lib_slot {
    b2_h5_api api;
    b2_h5_read_api rd;
    int rd_state;     /* 0 not resolved yet, 1 resolved, -1 a required symbol missing */
    const void *base; /* the library's load address (dladdr's dli_fbase) */
} lib_slot;

static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;
static lib_slot slots[B2_H5_MAX_LIBS];
static int nslots;       /* slots[0 .. nslots-1] are filled (under api_lock; published with a release store) */
static int primary = -1; /* set by b2_h5_api_make_primary */
/* The slot of the HDF5 running a callback of ours on this thread (plugin.c's
 * per-slot thunks set it for the call's duration); NULL elsewhere. */
static _Thread_local const b2_h5_api *cur_api;

/* Fill *a from handle h; returns 1 when every symbol was found. */
static int resolve_from(void *h, b2_h5_api *a)
{
    memset(a, 0, sizeof *a);
#define SYM(field, name)                                                    \
    do {                                                                    \
        void *p_ = dlsym(h, name);                                          \
        if (!p_)                                                            \
            return 0;                                                       \
        memcpy(&a->field, &p_, sizeof p_); /* object->function pointer */   \
    } while (0)
    SYM(Pget_chunk, "H5Pget_chunk");
    SYM(Pget_filter_by_id2, "H5Pget_filter_by_id2");
    SYM(Pmodify_filter, "H5Pmodify_filter");
    SYM(Tget_size, "H5Tget_size");
    SYM(Tget_class, "H5Tget_class");
    SYM(Tget_super, "H5Tget_super");
    SYM(Tclose, "H5Tclose");
    SYM(Epush2, "H5Epush2");
    SYM(allocate_memory, "H5allocate_memory");
    SYM(free_memory, "H5free_memory");
    SYM(Zregister, "H5Zregister");
#undef SYM
#define OPT(field, name)                                                    \
    do {                                                                    \
        void *p_ = dlsym(h, name);                                          \
        memcpy(&a->field, &p_, sizeof p_);                                  \
    } while (0)
    OPT(get_libversion, "H5get_libversion");
    OPT(Eget_current_stack, "H5Eget_current_stack");
    OPT(Eset_current_stack, "H5Eset_current_stack");
    OPT(Eclose_stack, "H5Eclose_stack");
    a->err_cls = dlsym(h, "H5E_ERR_CLS_g");
    a->maj_pline = dlsym(h, "H5E_PLINE_g");
    a->min_callback = dlsym(h, "H5E_CALLBACK_g");
    a->handle = h;
#undef OPT
    a->parallel = dlsym(h, "H5Pset_fapl_mpio") != NULL;
    return a->err_cls && a->maj_pline && a->min_callback;
}

/* Try the already-loaded object named path (never loads anything new). */
static int resolve_loaded(const char *path, b2_h5_api *a)
{
    if (!path || !*path)
        return 0;
    void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    if (dlsym(h, "H5Pget_chunk") && resolve_from(h, a))
        return 1; /* keep the reference: the library stays loaded while we are */
    dlclose(h);
    return 0;
}

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    return resolve_loaded(info->dlpi_name, data);
}

/* The load address of the object holding p, or NULL. */
static const void *object_base(const void *p)
{
    Dl_info di;
    return p && dladdr(p, &di) ? di.dli_fbase : NULL;
}

static const void *table_base(const b2_h5_api *a)
{
    void *reg;
    memcpy(&reg, &a->Zregister, sizeof reg);
    return object_base(reg);
}

/* With api_lock held: the slot of the library at base, or -1. */
static int find_slot(const void *base)
{
    for (int i = 0; base && i < nslots; i++)
        if (slots[i].base == base)
            return i;
    return -1;
}

/* With api_lock held: the slot of table a's library, added when new; -1 when
 * every slot is taken by other libraries. */
static int add_slot(const b2_h5_api *a)
{
    const void *base = table_base(a);
    int i = find_slot(base);
    if (i >= 0 || nslots == B2_H5_MAX_LIBS)
        return i;
    slots[nslots].api = *a;
    slots[nslots].base = base;
    /* release: a filter call that sees the new count (b2_h5_api_enter, no lock)
     * sees the slot filled */
    __atomic_store_n(&nslots, nslots + 1, __ATOMIC_RELEASE);
    return nslots - 1;
}

/* With api_lock held: the slot of the library containing hint (resolved and
 * added when new), -1 when it is no usable HDF5, -2 when no slot is left. */
static int slot_for(const void *hint, b2_h5_api *tmp)
{
    Dl_info di;
    if (!hint || !dladdr(hint, &di) || !di.dli_fname)
        return -1;
    int i = find_slot(di.dli_fbase);
    if (i >= 0)
        return i;
    if (!resolve_loaded(di.dli_fname, tmp) || table_base(tmp) != di.dli_fbase)
        return -1; /* not an HDF5, or its symbols come from another object */
    i = add_slot(tmp);
    return i >= 0 ? i : -2;
}

/* With api_lock held: the primary slot, else the first, else the HDF5 found
 * in the global namespace or among the loaded objects; -1 when none. */
static int slot_default(void)
{
    if (primary >= 0)
        return primary;
    if (nslots > 0)
        return 0;
    b2_h5_api a;
    if (resolve_from(RTLD_DEFAULT, &a) || dl_iterate_phdr(phdr_cb, &a) != 0)
        return add_slot(&a);
    return -1;
}

/* The table for hint's library; when hint lies in no HDF5 (or is NULL) and
 * not strict, the default one. A library refused for want of a slot is told
 * why (an error pushed to it) and gets NULL, never another library's table. */
static const b2_h5_api *lookup(const void *hint, int strict)
{
    b2_h5_api tmp;
    pthread_mutex_lock(&api_lock);
    int i = hint ? slot_for(hint, &tmp) : -1;
    if (i == -1 && !strict)
        i = slot_default();
    const b2_h5_api *res = i >= 0 ? &slots[i].api : NULL;
    pthread_mutex_unlock(&api_lock);
    Dl_info di;
    if (i == -2 && dladdr(hint, &di)) /* tmp holds that library's table */
        b2_h5_error(&tmp, 1, __FILE__, __func__, __LINE__,
                    "blosc2 filter: %d other HDF5 libraries of this process run filter "
                    "32026 already, the most it serves: %s is refused",
                    B2_H5_MAX_LIBS, di.dli_fname ? di.dli_fname : "this one");
    return res;
}

const b2_h5_api *b2_h5_api_get(const void *hint)
{
    if (!hint && cur_api)
        return cur_api;
    return lookup(hint, 0);
}

const b2_h5_api *b2_h5_api_for(const void *hint)
{
    return lookup(hint, 1);
}

int b2_h5_api_index(const b2_h5_api *api)
{
    for (int i = 0; i < B2_H5_MAX_LIBS; i++)
        if (api == &slots[i].api)
            return i;
    return -1;
}

const b2_h5_api *b2_h5_api_enter(int slot)
{
    const b2_h5_api *prev = cur_api;
    /* once per filter call: an acquire load pairs with the store that published
     * the slot (slots are written once, under api_lock), no lock per chunk */
    int n = __atomic_load_n(&nslots, __ATOMIC_ACQUIRE);
    cur_api = slot >= 0 && slot < n ? &slots[slot].api : NULL;
    return prev;
}

void b2_h5_api_leave(const b2_h5_api *prev)
{
    cur_api = prev;
}

int b2_h5_api_make_primary(const b2_h5_api *api)
{
    int i = b2_h5_api_index(api);
    pthread_mutex_lock(&api_lock);
    int rc = i < 0 ? -1 : primary >= 0 && primary != i ? -3 : 0;
    if (rc == 0)
        primary = i;
    pthread_mutex_unlock(&api_lock);
    return rc;
}

const b2_h5_api *b2_h5_api_peek(void)
{
    pthread_mutex_lock(&api_lock);
    int i = primary >= 0 ? primary : nslots > 0 ? 0 : -1;
    const b2_h5_api *res = i >= 0 ? &slots[i].api : NULL;
    pthread_mutex_unlock(&api_lock);
    return res;
}

const void *b2_h5_anchor_address(const char *anchor)
{
    if (!anchor || !*anchor)
        return NULL;
    void *h = dlopen(anchor, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return NULL;
    /* dlsym on a handle searches the object, then its dependencies in load
     * order: the HDF5 that the anchor's own calls are bound to. */
    const void *p = dlsym(h, "H5Zregister");
    dlclose(h); /* only drops our NOLOAD reference: the anchor stays loaded */
    return p;
}

/* Push msg onto a copy of the thread's error stack and make the copy current.
 * HDF5 1.14.4+ and 2.x pause the error stack while a filter runs
 * (H5E_pause_stack in H5Z_pipeline), so H5Epush2(H5E_DEFAULT, ...) is dropped
 * and users saw only "filter returned failure during read". A copy
 * (H5Eget_current_stack: takes the entries, empties the current stack) is
 * not paused; H5Eset_current_stack puts the entries back with ours on top and
 * closes the copy. Returns 0 when that HDF5 lacks the calls. */
static int push_kept(const b2_h5_api *api, const char *file, const char *func,
                     unsigned line, const char *msg)
{
    if (!api->Eget_current_stack || !api->Eset_current_stack || !api->Eclose_stack)
        return 0;
    hid_t copy = api->Eget_current_stack();
    if (copy < 0)
        return 0;
    api->Epush2(copy, file, func, line, *api->err_cls, *api->maj_pline, *api->min_callback,
                "%s", msg);
    if (api->Eset_current_stack(copy) < 0) {
        api->Eclose_stack(copy);
        return 0;
    }
    return 1;
}

void b2_h5_error(const b2_h5_api *api, int keep, const char *file, const char *func,
                unsigned line, const char *fmt, ...)
{
    if (!api || !api->Epush2)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (keep && push_kept(api, file, func, line, msg))
        return;
    /* The message goes through "%s" so that '%' in it is never interpreted. */
    api->Epush2(H5E_DEFAULT, file, func, line, *api->err_cls, *api->maj_pline,
                *api->min_callback, "%s", msg);
}

/* H5Dchunk_iter has the callback of b2_h5_chunk_iter_op from HDF5 1.10.10,
 * 1.12.3 and 1.14.0 on (HDFGroup/hdf5 #1969: offsets in elements; #2074: an
 * hsize_t size, in 1.14.0 through #2330); earlier releases that export it
 * (1.12.1's was reverted, the 1.13 development series) call it otherwise. */
static int chunk_iter_usable(const b2_h5_api *base)
{
    unsigned maj = 0, min = 0, rel = 0;
    if (!base->get_libversion || base->get_libversion(&maj, &min, &rel) < 0)
        return 0;
    if (maj != 1)
        return maj > 1;
    return (min == 10 && rel >= 10) || (min == 12 && rel >= 3) || min >= 14;
}

/* Fill *a from the library of base; 1 when every required symbol is there. */
static int resolve_read(const b2_h5_api *base, b2_h5_read_api *a)
{
    void *h = base->handle;
#define SYM(field, name, required)                                          \
    do {                                                                    \
        void *p_ = dlsym(h, name);                                          \
        if (!p_ && (required))                                              \
            return 0;                                                       \
        memcpy(&a->field, &p_, sizeof p_);                                  \
    } while (0)
    SYM(Dget_space, "H5Dget_space", 1);
    SYM(Dget_type, "H5Dget_type", 1);
    SYM(Dget_create_plist, "H5Dget_create_plist", 1);
    SYM(Dread, "H5Dread", 1);
    SYM(Dget_chunk_info_by_coord, "H5Dget_chunk_info_by_coord", 0); /* HDF5 >= 1.10.5 */
    SYM(Dget_chunk_storage_size, "H5Dget_chunk_storage_size", 0); /* HDF5 >= 1.10.3 */
    if (chunk_iter_usable(base))
        SYM(Dchunk_iter, "H5Dchunk_iter", 0); /* the same name in 2.0 */
    SYM(Dread_chunk, "H5Dread_chunk", 0); /* HDF5 1.10.3 .. 1.14 */
    if (!a->Dread_chunk)
        SYM(Dread_chunk, "H5Dread_chunk1", 0); /* the same call, renamed in 2.0 */
    SYM(Dread_chunk2, "H5Dread_chunk2", 0);    /* HDF5 >= 2.0: bounded by a size */
    SYM(Eget_auto2, "H5Eget_auto2", 1);
    SYM(Eset_auto2, "H5Eset_auto2", 1);
    SYM(Sget_simple_extent_ndims, "H5Sget_simple_extent_ndims", 1);
    SYM(Sget_simple_extent_dims, "H5Sget_simple_extent_dims", 1);
    SYM(Sget_simple_extent_type, "H5Sget_simple_extent_type", 1);
    SYM(Screate_simple, "H5Screate_simple", 1);
    SYM(Sselect_hyperslab, "H5Sselect_hyperslab", 1);
    SYM(Sclose, "H5Sclose", 1);
    SYM(Pget_layout, "H5Pget_layout", 1);
    SYM(Pget_nfilters, "H5Pget_nfilters", 1);
    SYM(Pget_filter2, "H5Pget_filter2", 1);
    SYM(Pget_userblock, "H5Pget_userblock", 1);
    SYM(Pget_driver, "H5Pget_driver", 1);
    SYM(Pclose, "H5Pclose", 1);
    SYM(Tequal, "H5Tequal", 1);
    SYM(Iget_file_id, "H5Iget_file_id", 1);
    SYM(Fget_name, "H5Fget_name", 1);
    SYM(Fget_intent, "H5Fget_intent", 1);
    SYM(Fflush, "H5Fflush", 1);
    SYM(Fget_access_plist, "H5Fget_access_plist", 1);
    SYM(Fget_create_plist, "H5Fget_create_plist", 1);
    SYM(Fclose, "H5Fclose", 1);
    SYM(FD_sec2_init, "H5FD_sec2_init", 0); /* up to 1.14 */
    SYM(FD_sec2_id_g, "H5FD_SEC2_id_g", 0); /* from 2.0 */
    SYM(open, "H5open", 1);
    if (!a->FD_sec2_init && !a->FD_sec2_id_g)
        return 0; /* no way to tell a plain file from any other driver */
    SYM(Dwrite, "H5Dwrite", 1);
    SYM(Dwrite_chunk, "H5Dwrite_chunk", 0); /* HDF5 >= 1.10.3 */
    SYM(Pget_fill_time, "H5Pget_fill_time", 1);
    SYM(Pfill_value_defined, "H5Pfill_value_defined", 1);
    SYM(Pget_fill_value, "H5Pget_fill_value", 1);
    SYM(Tdetect_class, "H5Tdetect_class", 1);
    SYM(Tis_variable_str, "H5Tis_variable_str", 1);
    SYM(FD_mpio_init, "H5FD_mpio_init", 0);
    SYM(FD_mpio_id_g, "H5FD_MPIO_id_g", 0);
#undef SYM
    return 1;
}

const b2_h5_read_api *b2_h5_read_api_get(void)
{
    int i = b2_h5_api_index(b2_h5_api_get(NULL));
    if (i < 0)
        return NULL;
    pthread_mutex_lock(&api_lock);
    lib_slot *sl = &slots[i];
    if (sl->rd_state == 0)
        sl->rd_state = resolve_read(&sl->api, &sl->rd) ? 1 : -1;
    const b2_h5_read_api *res = sl->rd_state > 0 ? &sl->rd : NULL;
    pthread_mutex_unlock(&api_lock);
    return res;
}

/* From 2.0 the id variables are set when the library initialises: H5open
 * first (it is a no-op when HDF5 is initialised, as it is when a dataset is
 * open). */
static hid_t driver_id(const b2_h5_read_api *h, hid_t (*init)(void), const hid_t *id_g)
{
    if (init)
        return init();
    if (!id_g || h->open() < 0)
        return H5I_INVALID_HID;
    return *id_g;
}

hid_t b2_h5_driver_sec2(const b2_h5_read_api *h)
{
    return driver_id(h, h->FD_sec2_init, h->FD_sec2_id_g);
}

hid_t b2_h5_driver_mpio(const b2_h5_read_api *h)
{
    return driver_id(h, h->FD_mpio_init, h->FD_mpio_id_g);
}
