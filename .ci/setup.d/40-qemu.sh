#!/usr/bin/env bash
# qemu-user and the arm64 C library, so test/install/arm64.test.ts runs the
# linux-arm64 release binary here: qemu-aarch64-static -L /usr/aarch64-linux-gnu.
# Idempotent: installs only what is missing.
set -euo pipefail
. "$(dirname "$0")/../apt.sh"
if command -v qemu-aarch64-static >/dev/null && [ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ]; then
  exit 0
fi
apt_install qemu-user-static libc6-arm64-cross
