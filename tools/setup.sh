#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Moved to scripts/setup.sh; this forwarder stays for one release.
exec bash "$(dirname "${BASH_SOURCE[0]}")/../scripts/setup.sh" "$@"
