#!/usr/bin/env bash
# Installs the pinned real n8n into the cache (once per machine) and prints its folder.
# VOICEAI_N8N_VERSION picks another line of scripts/n8n-lines.json; the default is its primary line.
# Why the flags: Kafka's native module cannot build offline (hence --ignore-scripts), linkedom 0.18.15
# needs a package missing from the registry (pinned to 0.18.12), sqlite3 must be rebuilt for Node 24,
# and n8n 1.x depends on xlsx from a download URL outside the registry (the registry's 0.18.5 replaces it).
# The install happens in a scratch folder that is renamed when complete, so an interrupted or
# concurrent install never leaves a half-installed n8n behind the final name.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/node24.sh"
N8N_VERSION="${VOICEAI_N8N_VERSION:-$(node -p "require('$here/n8n-lines.json').primary")}"
dir="$VOICEAI_CACHE/n8n-$N8N_VERSION"
if [ -f "$dir/.installed" ]; then echo "$dir"; exit 0; fi
echo "[voiceai] installing n8n $N8N_VERSION into $dir (first time only, a few minutes)" >&2
work="$dir.partial.$$"
trap 'rm -rf "$work"' EXIT
rm -rf "$work" && mkdir -p "$work"
overrides='"linkedom": "0.18.12"'
case "$N8N_VERSION" in 1.*) overrides="$overrides, \"xlsx\": \"0.18.5\"" ;; esac
cat > "$work/package.json" <<JSON
{ "name": "voiceai-n8n-host", "private": true, "version": "1.0.0",
  "dependencies": { "n8n": "$N8N_VERSION" },
  "overrides": { $overrides } }
JSON
# sqlite3 is n8n's database driver: its native module must match the Node that runs n8n (24).
nodedir="$(dirname "$(dirname "$(command -v node)")")"
[ -d "$nodedir/include/node" ] && export npm_config_nodedir="$nodedir"
# Called through `npm test`/`npm start`, npm hands this script the project's ignore-scripts=true
# (.npmrc) as npm_config_ignore_scripts; the sqlite3 rebuild must run its build script regardless.
( cd "$work" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2 \
  && npm_config_ignore_scripts=false npm rebuild sqlite3 --ignore-scripts=false --loglevel=error >&2 \
  && node -e 'require("sqlite3")' ) || { echo "[voiceai] n8n install failed (see above)" >&2; exit 1; }
touch "$work/.installed"
if [ -f "$dir/.installed" ]; then
  echo "$dir"; exit 0  # another run finished first
fi
rm -rf "$dir"
mv "$work" "$dir"
echo "$dir"
