# SPDX-License-Identifier: BSD-3-Clause
# Cross build for aarch64 Linux with Debian's gcc-aarch64-linux-gnu (tools/cross.sh).
# The foreign-architecture libraries come from Debian's multiarch :arm64 packages
# in /usr/lib/aarch64-linux-gnu; tests run under qemu-user (no binfmt needed).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# No -L /usr/aarch64-linux-gnu: that cross libc is older than the multiarch libc6
# the :arm64 libraries pull into /lib/aarch64-linux-gnu, and a loader from one with
# the libc of the other hangs or smashes the stack. The host's / holds a
# consistent loader + libc pair for the target.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static)
# pkg-config sees the foreign .pc files (plus any directory the caller puts in
# PKG_CONFIG_PATH), not the host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
