/* SPDX-License-Identifier: BSD-3-Clause */
/* Must NOT compile with the b2nd layer's include path: chunk internals are
 * below the frame layer, out of b2nd's reach. */
#include "chunk_internal.h"
