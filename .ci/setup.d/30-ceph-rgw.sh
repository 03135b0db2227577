#!/usr/bin/env bash
# A real S3 server for the sync tests: Ceph RGW from Debian (one mon, one memstore OSD, radosgw)
# on 127.0.0.1, left running for `npm test`. Tests find it through /tmp/tracegate-rgw/s3.json
# (endpoint, keys, bucket); rclone is for bench/sync. Idempotent: a healthy running RGW is kept.
set -euo pipefail
. "$(dirname "$0")/../apt.sh"
cd "$(dirname "$0")/../.."
DIR=${TRACEGATE_RGW_DIR:-/tmp/tracegate-rgw}
need=()
for p in ceph-mon ceph-osd radosgw curl python3 rclone; do dpkg -s "$p" >/dev/null 2>&1 || need+=("$p"); done
if [ ${#need[@]} -gt 0 ]; then
  apt_install "${need[@]}"
fi
if [ -f "$DIR/s3.json" ] && [ -f "$DIR/rgw.pid" ] && kill -0 "$(cat "$DIR/rgw.pid")" 2>/dev/null \
   && curl -sf -o /dev/null "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["endpoint"])' "$DIR/s3.json")/"; then
  echo "RGW already running: $(cat "$DIR/s3.json")"
  exit 0
fi
# up.sh retries the CLI and restarts a stalled OSD itself; a second whole cluster is the last resort.
for attempt in 1 2; do
  [ -d "$DIR" ] && KILL=1 test/support/ceph-rgw/down.sh "$DIR"
  if test/support/ceph-rgw/up.sh "$DIR"; then exit 0; fi
  echo "RGW start attempt $attempt failed" >&2
done
exit 1
