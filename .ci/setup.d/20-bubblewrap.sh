#!/usr/bin/env bash
# The reference oracle runs each job's test command under bubblewrap
# (`tracegate oracle serve` refuses to start without it unless --no-sandbox).
set -eu
. "$(dirname "$0")/../apt.sh"
if ! command -v bwrap >/dev/null 2>&1; then
  apt_install bubblewrap >/dev/null
fi
bwrap --version
