#!/usr/bin/env bash
# Make sure Debian's chromium is there for the real-browser tests. Without root
# or apt-get, say so: those tests then skip with the reason.
set -uo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "==> installing Debian's chromium for the browser tests"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "could not install chromium; browser tests will skip" >&2
else
  echo "chromium not found and cannot be installed here; browser tests will skip" >&2
fi
exit 0
