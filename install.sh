#!/bin/sh
# tracegate installer: downloads the compressed release binary for this
# machine (.xz, or .gz without xz), checks the download against SHA256SUMS,
# decompresses it, and puts it in ~/.local/bin (or $TRACEGATE_INSTALL_DIR).
#
#   curl -fsSL https://github.com/tracegate/tracegate/releases/latest/download/install.sh | sh
#   curl -fsSL .../install.sh | sh -s -- --register          # also register the Claude Code hooks
#   curl -fsSL .../install.sh | sh -s -- --register --gate   # ... with Stop as the oracle gate
#   ./install.sh --from-source                               # in a checkout: npm ci && npm run build
#
# Environment:
#   TRACEGATE_DOWNLOAD_URL  where the release assets are (default: the latest GitHub release)
#   TRACEGATE_INSTALL_DIR   where the binary goes (default: $HOME/.local/bin)
#   TRACEGATE_COMPRESSION   xz or gz (default: xz when installed, else gz)
#
# POSIX sh only (no bashisms): it runs under dash, busybox ash and bash alike.
# On any failure it exits non-zero and installs nothing.
set -eu

DEFAULT_URL="https://github.com/tracegate/tracegate/releases/latest/download"
BASE_URL=${TRACEGATE_DOWNLOAD_URL:-$DEFAULT_URL}
BASE_URL=${BASE_URL%/}

say() { printf '%s\n' "tracegate-install: $*"; }
die() {
  printf '%s\n' "tracegate-install: error: $*" >&2
  exit 1
}

usage() {
  cat <<'EOF'
usage: install.sh [--register [--gate] [--scope user|project|local]] [--from-source]

  --register     after installing, run `tracegate install` (registers the Claude Code hooks)
  --gate         with --register: register Stop as the oracle gate
  --scope S      with --register: settings scope (default user)
  --from-source  build from this checkout (npm ci && npm run build) instead of downloading

environment: TRACEGATE_DOWNLOAD_URL (release assets), TRACEGATE_INSTALL_DIR (default ~/.local/bin),
             TRACEGATE_COMPRESSION (xz or gz; default xz when installed)
EOF
}

register=0
gate=0
scope=""
from_source=0
while [ $# -gt 0 ]; do
  case $1 in
    --register) register=1 ;;
    --gate) gate=1 ;;
    --scope)
      [ $# -ge 2 ] || die "--scope needs a value"
      scope=$2
      shift
      ;;
    --scope=*) scope=${1#--scope=} ;;
    --from-source) from_source=1 ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      usage >&2
      die "unknown argument: $1"
      ;;
  esac
  shift
done
if [ "$gate" = 1 ] && [ "$register" = 0 ]; then die "--gate only makes sense with --register"; fi
if [ -n "$scope" ] && [ "$register" = 0 ]; then die "--scope only makes sense with --register"; fi

if [ -z "${HOME:-}" ] && [ -z "${TRACEGATE_INSTALL_DIR:-}" ]; then die "HOME is not set; set TRACEGATE_INSTALL_DIR"; fi
install_dir=${TRACEGATE_INSTALL_DIR:-$HOME/.local/bin}

detect_platform() {
  os=$(uname -s 2>/dev/null || echo unknown)
  arch=$(uname -m 2>/dev/null || echo unknown)
  case $os in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
    *) die "unsupported operating system: $os (release binaries exist for Linux, macOS and Windows; try --from-source)" ;;
  esac
  case $arch in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) die "unsupported architecture: $arch (release binaries exist for x64 and arm64; try --from-source)" ;;
  esac
  # A Rosetta shell on Apple silicon reports x86_64: take the native binary.
  if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then
    arch=arm64
  fi
  if [ "$os" = windows ] && [ "$arch" != x64 ]; then die "unsupported platform: windows-$arch (only windows-x64 is released)"; fi
  asset="tracegate-$os-$arch"
  exe=tracegate
  if [ "$os" = windows ]; then
    asset="$asset.exe"
    exe=tracegate.exe
  fi
}

download() { # URL FILE [bar]: with "bar" and a terminal on stderr, a progress bar
  if [ "${3:-}" = bar ] && [ -t 2 ]; then
    if command -v curl >/dev/null 2>&1; then
      curl -fL --retry 2 -# -o "$2" "$1"
    elif command -v wget >/dev/null 2>&1; then
      wget -q --show-progress -O "$2" "$1" || wget -O "$2" "$1"
    else
      die "neither curl nor wget is available"
    fi
    return
  fi
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1"
  else
    die "neither curl nor wget is available"
  fi
}

# The binaries are published compressed: xz (smallest) when this machine has
# it, else gzip. TRACEGATE_COMPRESSION=gz|xz picks one.
pick_compression() {
  case ${TRACEGATE_COMPRESSION:-} in
    xz | gz) ext=$TRACEGATE_COMPRESSION ;;
    "") if command -v xz >/dev/null 2>&1; then ext=xz; else ext=gz; fi ;;
    *) die "TRACEGATE_COMPRESSION must be xz or gz, not $TRACEGATE_COMPRESSION" ;;
  esac
  if [ "$ext" = xz ]; then
    command -v xz >/dev/null 2>&1 || die "xz is not installed; unset TRACEGATE_COMPRESSION to use gzip"
  else
    command -v gzip >/dev/null 2>&1 || die "neither xz nor gzip is installed; install one of them"
  fi
}

decompress() { # IN OUT
  if [ "$ext" = xz ]; then xz -dc "$1" >"$2"; else gzip -dc "$1" >"$2"; fi
}

sha256_of() { # FILE
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | awk '{print $1}'
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | awk '{print $1}'
  else
    die "neither sha256sum nor shasum is available to verify the download"
  fi
}

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t tracegate)
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

detect_platform

if [ "$from_source" = 1 ]; then
  # The checkout is the directory holding this script, or the current one.
  case $0 in
    */*) src=$(cd "$(dirname "$0")" && pwd) ;;
    *) src=$(pwd) ;;
  esac
  [ -f "$src/package.json" ] && grep -q '"name": *"tracegate"' "$src/package.json" ||
    die "--from-source must run from a tracegate checkout (./install.sh --from-source)"
  command -v npm >/dev/null 2>&1 || die "--from-source needs Node and npm"
  # A checkout that already ran `npm ci` (the README's first command) is not
  # installed again: npm writes node_modules/.package-lock.json on every install.
  if [ -f "$src/node_modules/.package-lock.json" ] && ! [ "$src/package-lock.json" -nt "$src/node_modules/.package-lock.json" ]; then
    say "building from source in $src (npm run build; node_modules is up to date)"
    (cd "$src" && npm run build) || die "build failed in $src (run npm ci there, then try again)"
  else
    say "building from source in $src (npm ci && npm run build)"
    (cd "$src" && npm ci && npm run build) || die "build failed in $src"
  fi
  built="$src/dist/$exe"
  [ -f "$built" ] || built="$src/dist/tracegate"
  [ -f "$built" ] || die "the build did not produce dist/tracegate"
  cp "$built" "$tmp/$asset"
else
  pick_compression
  file="$asset.$ext"
  say "downloading $file from $BASE_URL"
  download "$BASE_URL/SHA256SUMS" "$tmp/SHA256SUMS" || die "download failed: $BASE_URL/SHA256SUMS (check TRACEGATE_DOWNLOAD_URL)"
  expected=$(awk -v a="$file" '$2 == a || $2 == "*" a {print $1; exit}' "$tmp/SHA256SUMS")
  [ -n "$expected" ] || die "$BASE_URL/SHA256SUMS has no entry for $file (this platform is not in that release)"
  download "$BASE_URL/$file" "$tmp/$file" bar || die "download failed: $BASE_URL/$file"
  # The checksum is of what was downloaded, before anything reads it.
  actual=$(sha256_of "$tmp/$file")
  if [ "$actual" != "$expected" ]; then
    die "checksum mismatch for $file (expected $expected, got $actual): refusing to install"
  fi
  say "checksum ok ($actual)"
  decompress "$tmp/$file" "$tmp/$asset" || die "cannot decompress $file (is the download complete?)"
fi

chmod 755 "$tmp/$asset"
version=$("$tmp/$asset" --version 2>/dev/null) || die "the downloaded binary does not run on this machine"

mkdir -p "$install_dir" || die "cannot create $install_dir"
# Copy next to the target, then rename: a running tracegate is never half-overwritten.
cp "$tmp/$asset" "$install_dir/.$exe.new.$$" || die "cannot write to $install_dir"
chmod 755 "$install_dir/.$exe.new.$$"
mv -f "$install_dir/.$exe.new.$$" "$install_dir/$exe" || {
  rm -f "$install_dir/.$exe.new.$$"
  die "cannot install into $install_dir"
}
say "installed $version to $install_dir/$exe"

# What to type next: the bare name when the dir is on PATH, else the full path.
run_as=tracegate
case ":${PATH:-}:" in
  *":$install_dir:"*) ;;
  *)
    run_as="$install_dir/$exe"
    say "$install_dir is not on your PATH. Add it:"
    say "  sh/bash/zsh:  echo 'export PATH=\"$install_dir:\$PATH\"' >> ~/.profile   (or ~/.bashrc, ~/.zshrc), then open a new shell"
    say "  fish:         fish_add_path $install_dir"
    say "until then, run it by its full path: $run_as"
    ;;
esac

if [ "$register" = 1 ]; then
  set -- install
  if [ "$gate" = 1 ]; then set -- "$@" --gate; fi
  if [ -n "$scope" ]; then set -- "$@" --scope "$scope"; fi
  "$install_dir/$exe" "$@" || die "tracegate install failed (the binary is installed; run: $install_dir/$exe install)"
else
  say "next: register the Claude Code hooks with: $run_as install   (--gate to gate Stop on an oracle)"
  say "then check it with: $run_as doctor"
fi
