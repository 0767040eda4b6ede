/* SPDX-License-Identifier: BSD-3-Clause */
/* A one-line progress bar on stderr for long operations. It is drawn only when
 * stderr is a terminal (never into logs or pipes) and the job is big enough to
 * be worth it: B2_PROGRESS_MIN_BYTES (default 100 MB) lets tests force it on
 * small inputs. Redrawn at most once per 0.1% so it costs nothing measurable. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "b2cli.h"
#include "progress.h"

#define DEFAULT_MIN_BYTES (100LL * 1000 * 1000)
#define BAR_WIDTH 30

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int64_t min_bytes(void)
{
    const char *e = getenv("B2_PROGRESS_MIN_BYTES");
    int64_t v;
    if (e && b2cli_parse_int(e, 0, INT64_MAX, 1, &v) == 0)
        return v;
    return DEFAULT_MIN_BYTES;
}

static void draw(b2cli_progress *p, int permille)
{
    int fill = permille * BAR_WIDTH / 1000;
    double el = now() - p->start;
    fprintf(stderr, "\r%s [", p->label);
    for (int i = 0; i < BAR_WIDTH; i++)
        fputc(i < fill ? '#' : ' ', stderr);
    fprintf(stderr, "] %3d.%d%%  %.1f/%.1f MB  %.1f MB/s ", permille / 10, permille % 10,
            p->done / 1e6, p->total / 1e6, el > 0 ? p->done / el / 1e6 : 0.0);
    fflush(stderr);
}

void b2cli_progress_start(b2cli_progress *p, const char *label, int64_t total)
{
    p->total = total;
    p->done = 0;
    p->last_permille = -1;
    p->label = label;
    p->start = now();
    p->active = total > 0 && total >= min_bytes() && isatty(STDERR_FILENO);
    if (p->active)
        draw(p, 0);
}

void b2cli_progress_add(b2cli_progress *p, int64_t n)
{
    int pm;
    p->done += n;
    if (!p->active)
        return;
    pm = p->done >= p->total ? 1000 : (int)(p->done * 1000 / p->total);
    if (pm != p->last_permille) {
        p->last_permille = pm;
        draw(p, pm);
    }
}

void b2cli_progress_end(b2cli_progress *p)
{
    if (!p->active)
        return;
    /* Clear the line: the bar is transient, messages that follow start clean. */
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->active = 0;
}
