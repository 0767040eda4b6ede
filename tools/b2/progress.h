/* SPDX-License-Identifier: BSD-3-Clause */
/* A progress bar on stderr (progress.c). */
#ifndef B2CLI_PROGRESS_H
#define B2CLI_PROGRESS_H

#include "b2cli.h"

/* Shown only when stderr is a terminal and total >= B2_PROGRESS_MIN_BYTES
 * (environment; default 100 MB). */
typedef struct b2cli_progress {
    int active;
    int64_t total, done;
    int last_permille;
    double start;
    const char *label;
} b2cli_progress;
void b2cli_progress_start(b2cli_progress *p, const char *label, int64_t total);
void b2cli_progress_add(b2cli_progress *p, int64_t n);
/* Erase the bar (leaves the terminal line clean). */
void b2cli_progress_end(b2cli_progress *p);

#endif
