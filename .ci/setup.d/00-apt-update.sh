#!/usr/bin/env bash
# One package-list refresh for every later setup script (each then only runs apt-get install).
set -euo pipefail
if command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
fi
