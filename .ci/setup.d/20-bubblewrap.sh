#!/bin/sh
# The reference oracle runs each job's test command under bubblewrap
# (`tracegate oracle serve` refuses to start without it unless --no-sandbox).
set -eu
if ! command -v bwrap >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
fi
bwrap --version
