#!/usr/bin/env bash
# Make sure the Debian tools some tests use are there: chromium (real-browser tests), a CJK
# font (fonts-noto-cjk: without one, Chinese renders as empty boxes in the browser tests and
# the screenshots in docs/images) and docker-compose (validates docker-compose.yml with
# `docker-compose config`). Without root or apt-get, say so: those tests then skip with the reason.
set -uo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
has_cjk_font() {
  if command -v fc-list >/dev/null 2>&1; then
    [ -n "$(fc-list :lang=zh family 2>/dev/null)" ]
  else
    dpkg -s fonts-noto-cjk >/dev/null 2>&1
  fi
}
has_cjk_font || missing+=(fonts-noto-cjk)
command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1 \
  || missing+=(docker-compose)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "==> installing Debian's ${missing[*]} for the tests"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null) \
    || echo "could not install ${missing[*]}; the tests that need them will skip" >&2
else
  echo "${missing[*]} not found and cannot be installed here; the tests that need them will skip" >&2
fi
exit 0
