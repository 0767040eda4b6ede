/* SPDX-License-Identifier: BSD-3-Clause */
/* Must NOT compile with frame/store's include path: a store holds bytes and
 * knows nothing of the handle (frame/object is above it). */
#include "frame_internal.h"
