/* SPDX-License-Identifier: BSD-3-Clause */
/* What every file of the HDF5 filter shares: the filter builds on libb2's
 * installed headers only, and records its failures in libb2's per-thread error
 * record (b2_helpers_experimental.h) with the same macros the library uses. */
#ifndef B2_H5COMMON_H
#define B2_H5COMMON_H

#include "b2_common.h"
#include "b2_helpers_experimental.h"

/* Functions shared between the filter's files, not exported from the plugin. */
#define B2_HIDDEN __attribute__((visibility("hidden")))

/* Record a failure (printf-style detail) and yield code. */
#define B2_FAIL(code, ...) (b2_error_record((code), __func__, __VA_ARGS__), (code))
/* Return a recorded failure from the calling function when cond holds. */
#define B2_FAIL_IF(cond, code, ...)                  \
    do {                                             \
        if (cond)                                    \
            return B2_FAIL((code), __VA_ARGS__);     \
    } while (0)
/* The detail of the thread's last failure, to build on. */
#define b2_err_detail() b2_error_detail()

#endif
