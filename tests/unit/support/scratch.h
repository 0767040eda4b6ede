/* SPDX-License-Identifier: BSD-3-Clause */
/* Scratch files for the tests: a private temporary directory and its removal. */
#ifndef TEST_SCRATCH_H
#define TEST_SCRATCH_H

/* Remove a file or a directory tree (sparse frames, scratch directories). */
void test_rm_tree(const char *path);

#endif
