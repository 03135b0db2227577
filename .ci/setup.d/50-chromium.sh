#!/usr/bin/env bash
# Debian's Chromium for the browser tests of `tracegate view` (test/view/browser.test.ts drives it
# with playwright-core at /usr/bin/chromium; no browser download). Idempotent.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
