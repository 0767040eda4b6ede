# SPDX-License-Identifier: BSD-3-Clause
# Cross build for aarch64 Linux with Debian's gcc-aarch64-linux-gnu against the sysroot
# scripts/cross.sh unpacks (cmake/toolchain-debian-cross.cmake); tests under qemu-user.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(B2_CROSS_TRIPLET aarch64-linux-gnu)
set(B2_CROSS_QEMU_ARCH aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-debian-cross.cmake)
