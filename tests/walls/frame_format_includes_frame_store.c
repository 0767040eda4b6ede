/* SPDX-License-Identifier: BSD-3-Clause */
/* Must NOT compile with frame/format's include path: the format sub-layer does
 * not know where the bytes live (frame/store is above it). */
#include "frame_store.h"
