#!/bin/sh
# A recording hook for capturing what a real client sends (test/e2e/support/capture.ts):
#   record-hook.sh DIR EVENT [BLOCK_JSON]
# Saves stdin as DIR/<ns>-<pid>-EVENT.json and exits 0. With BLOCK_JSON it
# prints that on stdout the first time EVENT fires (refusing one stop).
dir=$1
event=$2
f="$dir/$(date +%s%N)-$$-$event.json"
cat > "$f.part" && mv "$f.part" "$f"
if [ -n "$3" ] && mkdir "$dir/.blocked-$event" 2>/dev/null; then
  printf '%s\n' "$3"
fi
exit 0
