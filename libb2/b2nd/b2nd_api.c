/* SPDX-License-Identifier: BSD-3-Clause */
/* The public array functions of b2nd_api.h's table, generated: each runs its
 * body and keeps a failure's message in the handle. */
#include "b2nd_internal.h"

B2_ND_HANDLE_API(B2_HANDLE_WRAP)
