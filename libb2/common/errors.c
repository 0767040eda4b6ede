/* SPDX-License-Identifier: BSD-3-Clause */
/* Error strings, detailed error messages and version (b2_common.h).
 *
 * The detail of a failure is formatted where it happens (B2_FAIL in
 * b2_internal.h) into a record owned by the calling thread, and success paths
 * never touch it. Entry points taking a context or handle copy the record into
 * it when they fail. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "b2_common.h"
#include "b2_helpers_experimental.h"
#include "b2_internal.h"

const char *b2_strerror(int code)
{
    switch (code) {
    case B2_OK: return "success";
    case B2_ERR_INVALID_PARAM: return "invalid parameter";
    case B2_ERR_TRUNCATED: return "input is truncated";
    case B2_ERR_INVALID_HEADER: return "invalid or corrupted header";
    case B2_ERR_CORRUPT: return "corrupted compressed data";
    case B2_ERR_UNSUPPORTED: return "unsupported format feature";
    case B2_ERR_NOMEM: return "out of memory";
    case B2_ERR_DST_TOO_SMALL: return "destination buffer too small";
    case B2_ERR_CODEC: return "codec library error";
    case B2_ERR_FILTER: return "filter cannot be applied";
    case B2_ERR_IO: return "I/O error";
    case B2_ERR_THREAD: return "could not start a thread";
    case B2_ERR_NOT_FOUND: return "not found";
    case B2_ERR_RANGE: return "out of range";
    case B2_ERR_EXISTS: return "already exists";
    case B2_ERR_FORMAT: return "unrecognised format";
    case B2_ERR_DOES_NOT_FIT: return "data does not fit the format limits";
    case B2_ERR_READ_ONLY: return "handle is read-only";
    case B2_ERR_BAD_CODEC: return "unknown codec";
    case B2_ERR_LIMIT: return "memory limit exceeded";
    case B2_ERR_CHECKSUM: return "checksum mismatch";
    case B2_ERR_CALLBACK: return "a user callback failed";
    default: return code < 0 ? "unknown error" : "not an error code";
    }
}

const char *b2_version(void) { return B2_VERSION_STRING; }

/* The calling thread's last failure. count lets a worker pool tell whether a
 * run recorded anything. */
static _Thread_local b2_errinfo tls_err;
static _Thread_local unsigned tls_count;

static _Thread_local char tls_detail[B2_ERRMSG_LEN]; /* the detail part alone */
static _Thread_local const char *tls_func;           /* and the function */

/* Copy src into dst (cap bytes); text too long ends at a word boundary with
 * "..." instead of mid-word (a hash or a path is never cut in two). */
static void fit_text(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n < cap) {
        memmove(dst, src, n + 1);
        return;
    }
    size_t cut = cap - 4; /* room for "..." and the NUL */
    while (cut > cap / 2 && src[cut] != ' ')
        cut--;
    while (cut > 0 && (src[cut - 1] == ' ' || src[cut - 1] == ':' || src[cut - 1] == ','))
        cut--;
    memmove(dst, src, cut);
    memcpy(dst + cut, "...", 4);
}

/* Record code with detail: "<strerror>: <detail>", or the detail alone when it
 * already says the code's text (a caller wrapping an inner message). Function
 * names are added only in a B2_ERROR_FUNCS build (doc/library.md, errors). */
static int set_msg(int code, const char *func, const char *detail)
{
    char full[2 * B2_ERRMSG_LEN];
    const char *what = b2_strerror(code);
    tls_func = func;
    if (detail != tls_detail)
        fit_text(tls_detail, sizeof tls_detail, detail);
    tls_err.code = code;
    if (!detail[0])
        snprintf(full, sizeof full, "%s", what);
    else if (strstr(detail, what))
        snprintf(full, sizeof full, "%s", detail);
    else
        snprintf(full, sizeof full, "%s: %s", what, detail);
#ifdef B2_ERROR_FUNCS
    size_t n = strlen(full);
    snprintf(full + n, sizeof full - n, " (%s)", func);
#else
    (void)func;
#endif
    fit_text(tls_err.msg, sizeof tls_err.msg, full);
    tls_count++;
    return code;
}

int b2_err_record(int code, const char *func, const char *fmt, ...)
{
    char detail[2 * B2_ERRMSG_LEN]; /* the arguments may point into tls_detail */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return set_msg(code, func, detail);
}

int b2_err_record_code(int code, const char *func) { return set_msg(code, func, ""); }

int b2_error_record(int code, const char *func, const char *fmt, ...)
{
    char detail[2 * B2_ERRMSG_LEN] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, sizeof detail, fmt, ap);
        va_end(ap);
    }
    return set_msg(code, func ? func : "?", detail);
}

const char *b2_error_detail(void) { return b2_err_detail(); }

/* Frames and arrays may be shared by threads for reading, and two of those
 * reads may fail at once: their copies into the handle's record take turns
 * (failures are rare; the lock costs nothing on success paths). */
static pthread_mutex_t keep_lock = PTHREAD_MUTEX_INITIALIZER;

int b2_err_keep(b2_errinfo *e, int code, const char *func)
{
    /* An error returned without a record (or a stale record of another code)
     * still gets a message naming the entry point. */
    if (tls_err.code != code)
        b2_err_record_code(code, func);
    if (e) {
        pthread_mutex_lock(&keep_lock);
        *e = tls_err;
        pthread_mutex_unlock(&keep_lock);
    }
    return code;
}

int b2_err_prefix(int code, const char *func, const char *what)
{
    if (tls_err.code != code)
        b2_err_record_code(code, func);
    size_t n = strlen(what);
    if (!strncmp(tls_detail, what, n) && tls_detail[n] == ':')
        return code; /* already says so */
    char detail[2 * B2_ERRMSG_LEN];
    snprintf(detail, sizeof detail, tls_detail[0] ? "%s: %s" : "%s", what, tls_detail);
    return set_msg(code, tls_func, detail);
}

const char *b2_err_detail(void) { return tls_err.code ? tls_detail : ""; }

const char *b2_err_text(const b2_errinfo *e) { return e && e->code ? e->msg : ""; }

unsigned b2_err_count(void) { return tls_count; }
const b2_errinfo *b2_err_thread(void) { return &tls_err; }
void b2_err_set_thread(const b2_errinfo *e)
{
    tls_err = *e;
    tls_count++;
}

const char *b2_last_error_message(void) { return tls_err.code ? tls_err.msg : ""; }
int b2_last_error_code(void) { return tls_err.code; }

const char *b2_looks_like(const uint8_t *p, size_t n)
{
    static const struct {
        const char *magic, *kind;
    } kinds[] = {
        {"\x93NUMPY", "; it looks like an .npy array"},
        {"\x89HDF\r\n\x1a\n", "; it looks like an HDF5 file"},
        {"PK\x03\x04", "; it looks like a zip archive (a .b2z or .npz?)"},
        {"\x1f\x8b", "; it looks like gzip data"},
        {"\x89PNG", "; it looks like a PNG image"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t m = strlen(kinds[i].magic);
        if (n >= m && !memcmp(p, kinds[i].magic, m))
            return kinds[i].kind;
    }
    return "";
}

int b2_mem_check(int64_t limit, int64_t need, const char *what, const char *setter)
{
    limit = b2_mem_limit_or_default(limit);
    if (need <= limit)
        return B2_OK;
    return B2_FAIL(B2_ERR_LIMIT, "%s needs %lld bytes, over the limit of %lld (%s raises it)", what,
                   (long long)need, (long long)limit, setter);
}
