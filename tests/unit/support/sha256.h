/* SPDX-License-Identifier: BSD-3-Clause */
/* SHA-256 for the tests (checking decoded bytes against manifest digests). */
#ifndef TEST_SHA256_H
#define TEST_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* Digest of len bytes at data as 64 lowercase hex characters plus NUL in hex. */
void test_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
