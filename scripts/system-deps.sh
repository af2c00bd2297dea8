#!/usr/bin/env bash
# The system tools `npm test` needs besides npm (its `pretest` step, and .ci/run):
#   chromium                 browser tests (playwright-core drives Debian's chromium; no browser download)
#   nginx, redis-server      the multi-process test (deploy/nginx/physics.conf.template in front of two servers on Redis)
#   docker-compose           test/deploy validates docker-compose.yml with it (no Docker engine needed)
# As root on Debian it installs what is missing with apt-get and starts a local Redis. Anywhere else it
# names exactly what is missing and exits 0: the tests that need a missing tool do not run, and the test
# run lists each of them as NOT RUN at the end.
set -uo pipefail

# command -> Debian package (and apt-get options)
declare -A PACKAGE=([chromium]="chromium" [nginx]="nginx-light" [redis-server]="redis-server" [docker-compose]="docker-compose")
ORDER=(chromium nginx redis-server docker-compose)

missing=()
for tool in "${ORDER[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done

if [ "${#missing[@]}" -gt 0 ]; then
  packages=()
  for tool in "${missing[@]}"; do packages+=("${PACKAGE[$tool]}"); done
  why=""
  [ "$EUID" = "0" ] || why="not root"
  [ -f /etc/debian_version ] || why="${why:+$why, }not Debian"
  command -v apt-get >/dev/null 2>&1 || why="${why:+$why, }no apt-get"
  if [ -z "$why" ]; then
    echo "system-deps: installing ${packages[*]} (apt-get, for ${missing[*]})" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq || true
    # --no-install-recommends: docker-compose would otherwise pull in the Docker engine.
    if ! apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null; then
      echo "system-deps: apt-get install ${packages[*]} failed; the tests that need them will be listed as NOT RUN" >&2
    fi
  else
    echo "system-deps: missing ${missing[*]} ($why, so not installed). On Debian, as root:" >&2
    echo "  apt-get install --no-install-recommends ${packages[*]}" >&2
    echo "system-deps: without chromium the browser test files fail naming it; tests needing the others are listed as NOT RUN" >&2
  fi
fi

# The multi-process test (and server/README.md's two-process commands) need a Redis on 127.0.0.1:6379.
if command -v redis-server >/dev/null 2>&1 && ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null ||
    echo "system-deps: could not start redis-server on 127.0.0.1:6379" >&2
fi
exit 0
