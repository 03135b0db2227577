#!/usr/bin/env bash
# One package-list refresh for every later setup script (each then only runs apt-get install).
set -euo pipefail
. "$(dirname "$0")/../apt.sh"
if command -v apt-get >/dev/null; then
  apt_update
fi
