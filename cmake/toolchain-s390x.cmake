# SPDX-License-Identifier: BSD-3-Clause
# Cross build for s390x Linux (big-endian) with Debian's gcc-s390x-linux-gnu against the
# sysroot scripts/cross.sh unpacks (cmake/toolchain-debian-cross.cmake); tests under qemu-user.
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(B2_CROSS_TRIPLET s390x-linux-gnu)
set(B2_CROSS_QEMU_ARCH s390x)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-debian-cross.cmake)
