/* SPDX-License-Identifier: BSD-3-Clause */
/* CHECK for the C test programs (tests/unit/test_*.c, h5plugin/test/test_*.c).
 *
 * CHECK(cond, fmt, ...) counts one check; when cond is false it counts a failure
 * and prints "FAIL file:line: message" to stdout for the first B2T_MAX_PRINTED
 * failures (later ones are only counted). Each program includes this header
 * once: the counters are static, one pair per test program. */
#ifndef B2_TEST_CHECK_H
#define B2_TEST_CHECK_H

#include <stdio.h>

#define B2T_MAX_PRINTED 50

static long b2t_checks, b2t_failures;

#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        b2t_checks++;                                                                            \
        if (!(cond) && ++b2t_failures <= B2T_MAX_PRINTED) {                                      \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                          \
            printf(__VA_ARGS__);                                                                 \
            printf("\n");                                                                        \
        }                                                                                        \
    } while (0)

/* Prints "[what: ]N checks, M failures" and returns the exit status (1 if any
 * check failed, else 0). what may be NULL. */
static inline int b2t_summary(const char *what)
{
    if (what)
        printf("%s: ", what);
    printf("%ld checks, %ld failures\n", b2t_checks, b2t_failures);
    return b2t_failures ? 1 : 0;
}

#endif
