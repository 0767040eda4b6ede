/* SHA-256 for the b2nd tests (checking decoded arrays against manifest digests). */
#ifndef B2ND_TEST_SHA256_H
#define B2ND_TEST_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* Digest of len bytes at data as 64 lowercase hex characters plus NUL in hex. */
void b2nd_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
