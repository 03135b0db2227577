# Sourced by .ci/setup.d/*.sh: apt-get with retries. A mirror that answers 5xx or a package list
# gone stale between the update and the install (404 on a .deb) is a moment's trouble, not a
# reason for CI to fail: up to three tries, refreshing the lists between them.
apt_update() {
  local try
  for try in 1 2 3; do
    DEBIAN_FRONTEND=noninteractive apt-get update -qq && return 0
    echo "apt-get update failed (try $try of 3)" >&2; sleep $(( try * 5 ))
  done
  return 1
}
apt_install() { # apt_install PACKAGE...
  local try
  for try in 1 2 3; do
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" && return 0
    echo "apt-get install $* failed (try $try of 3)" >&2; sleep $(( try * 5 ))
    apt_update || true
  done
  return 1
}
