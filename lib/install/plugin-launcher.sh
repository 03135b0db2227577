#!/bin/sh
# tracegate plugin launcher: runs the executable for this machine, shipped
# beside this script as tracegate-<os>-<arch>. Claude Code runs it for every
# hook event with the event JSON on stdin. When no executable fits (an
# unsupported platform, a half-copied plugin) it drains stdin and exits 0 with
# no output, so a broken install never breaks a session.
dir=$(dirname "$0")
case $(uname -s 2>/dev/null) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) os=unknown ;;
esac
case $(uname -m 2>/dev/null) in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) arch=unknown ;;
esac
# A Rosetta shell on Apple silicon reports x86_64; the native binary is faster.
if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null)" = 1 ]; then
  arch=arm64
fi
bin="$dir/tracegate-$os-$arch"
if [ -x "$bin" ]; then
  exec "$bin" "$@"
fi
cat >/dev/null 2>&1
exit 0
