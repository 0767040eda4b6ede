/* SPDX-License-Identifier: BSD-3-Clause */
/* Must NOT compile with the codecs layer's include path: codecs and filters are
 * side by side, neither includes the other. */
#include "filters.h"
