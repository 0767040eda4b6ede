/* SPDX-License-Identifier: BSD-3-Clause */
/* The public super-chunk functions of frame_api.h's table, generated: each runs
 * its body and keeps a failure's message in the handle. */
#include "frame_internal.h"

B2_FRAME_HANDLE_API(B2_HANDLE_WRAP)
