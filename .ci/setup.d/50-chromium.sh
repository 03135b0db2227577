#!/usr/bin/env bash
# Debian's Chromium for the browser tests of `tracegate view` (test/view/browser.test.ts drives it
# with playwright-core at /usr/bin/chromium; no browser download). Idempotent.
set -euo pipefail
. "$(dirname "$0")/../apt.sh"
if [ -x /usr/bin/chromium ]; then exit 0; fi
apt_install chromium fonts-dejavu-core >/dev/null
