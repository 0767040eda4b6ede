/* SPDX-License-Identifier: BSD-3-Clause */
/* Must NOT compile with frame/format's include path: the format sub-layer is
 * the bytes alone and knows nothing of the handle (frame/object). */
#include "frame_internal.h"
