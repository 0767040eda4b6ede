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

static int set_msg(int code, const char *func, const char *detail)
{
    tls_func = func;
    if (detail != tls_detail)
        snprintf(tls_detail, sizeof tls_detail, "%s", detail);
    tls_err.code = code;
    if (detail[0])
        snprintf(tls_err.msg, sizeof tls_err.msg, "%s: %s (%s)", b2_strerror(code), detail, func);
    else
        snprintf(tls_err.msg, sizeof tls_err.msg, "%s (%s)", b2_strerror(code), func);
    tls_count++;
    return code;
}

int b2_err_record(int code, const char *func, const char *fmt, ...)
{
    char detail[B2_ERRMSG_LEN]; /* the arguments may point into tls_detail */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return set_msg(code, func, detail);
}

int b2_err_record_code(int code, const char *func) { return set_msg(code, func, ""); }

int b2_error_record(int code, const char *func, const char *fmt, ...)
{
    char detail[B2_ERRMSG_LEN] = "";
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
    char detail[B2_ERRMSG_LEN];
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

int b2_mem_check(int64_t limit, int64_t need, const char *what, const char *setter)
{
    limit = b2_mem_limit_or_default(limit);
    if (need <= limit)
        return B2_OK;
    return B2_FAIL(B2_ERR_LIMIT, "%s needs %lld bytes, over the limit of %lld (%s raises it)", what,
                   (long long)need, (long long)limit, setter);
}
