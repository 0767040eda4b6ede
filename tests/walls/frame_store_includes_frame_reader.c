/* SPDX-License-Identifier: BSD-3-Clause */
/* Must NOT compile with frame/store's include path: frame/export/ is what the
 * object sub-layer offers the layers above, not something a store uses. */
#include "frame_reader.h"
