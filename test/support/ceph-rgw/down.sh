#!/usr/bin/env bash
# Stop the daemons up.sh started, by the PIDs it recorded in DIR/*.pid: rgw, then osd, then mon
# (rgw and osd hang on SIGTERM once the mon is gone), each SIGTERM then SIGKILL after 5 s.
# KILL=1: SIGKILL all at once (fine for memstore test clusters).
DIR=${1:?usage: $0 DIR}
alive() { local st; st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) && [ "$st" != Z ]; }
for n in rgw osd.0 mon.a; do
  f="$DIR/$n.pid"; [ -f "$f" ] || continue
  p=$(cat "$f"); rm -f "$f"
  if [ "${KILL:-0}" = 1 ]; then kill -9 "$p" 2>/dev/null; continue; fi
  kill "$p" 2>/dev/null || continue
  for _ in $(seq 1 50); do alive "$p" || break; sleep 0.1; done
  alive "$p" && kill -9 "$p" 2>/dev/null
done
# Strays whose pid file is gone (a start that failed half-way, or a DIR wiped under running
# daemons): anything still started with this DIR's ceph.conf.
conf="-c $DIR/ceph.conf"
ps -eo pid=,args= | awk -v c="$conf" 'index($0, c) && $2 ~ /(ceph-mon|ceph-osd|radosgw)$/ {print $1}' \
  | while read -r p; do kill -9 "$p" 2>/dev/null; done
exit 0
