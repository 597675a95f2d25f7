#!/usr/bin/env bash
# Entry points behind `npm start`, `npm test` and `npm run bench`: they work on a machine that has
# only Node 20 and npm. Node 24 comes first on PATH, dependencies are installed from the lock file
# when they are missing or stale, then the job runs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node24.sh

# npm ci is not usable here: the registry lacks some platform-only optional packages (other OSes'
# resolver bindings), which leaves the lock file "out of sync" for npm ci. npm install honours the lock.
deps_stamp() {
  node -p 'const c=require("crypto").createHash("sha256"),f=require("fs");for(const n of ["package.json","package-lock.json"])c.update(f.readFileSync(n));c.digest("hex")+"-"+process.version'
}

ensure_deps() {
  local have=""
  [ -f node_modules/.voiceai-deps ] && have="$(cat node_modules/.voiceai-deps)"
  if [ "$(deps_stamp)" != "$have" ]; then
    echo "[voiceai] installing dependencies (npm install, from the lock file)" >&2
    npm install --no-audit --no-fund --loglevel=error
    deps_stamp > node_modules/.voiceai-deps
  fi
}

build() { rm -rf dist && npm run build --silent; }

# The editor check drives Debian's Chromium; a fresh machine gets it from apt.
ensure_chromium() {
  command -v chromium >/dev/null && return
  echo "[voiceai] installing Debian's chromium (apt-get)" >&2
  local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
}

job="${1:-test}"
case "$job" in
  test)
    ensure_deps
    build
    npm run lint --silent
    npx tsc -p tsconfig.test.json
    # Before the jest suites: the HTTP Request node suite loads n8n's own node from this install.
    export VOICEAI_N8N_DIR="$(bash scripts/n8n-install.sh)"
    mkdir -p .tmp
    status=0
    npx jest --config jest.config.js --json --outputFile=.tmp/unit.json || status=$?
    npx jest --config test/e2e/jest.config.js --runInBand --json --outputFile=.tmp/e2e.json || status=$?
    npx jest --config test/queue/jest.config.js --runInBand --json --outputFile=.tmp/queue.json || status=$?
    node scripts/summarize-jest.js .tmp/unit.json .tmp/e2e.json .tmp/queue.json
    exit "$status"
    ;;
  editor)
    ensure_deps
    ensure_chromium
    build
    export VOICEAI_N8N_DIR="$(bash scripts/n8n-install.sh)"
    exec npx jest --config test/e2e/jest.config.js --runInBand --testMatch '**/*.browser.test.ts'
    ;;
  demo)
    ensure_deps
    build
    export VOICEAI_N8N_DIR="$(bash scripts/n8n-install.sh)"
    exec npx tsx scripts/demo.ts "${@:2}"
    ;;
  bench)
    ensure_deps
    build
    export VOICEAI_N8N_DIR="$(bash scripts/n8n-install.sh)"
    exec npx tsx bench/run.ts "${@:2}"
    ;;
  *)
    echo "usage: scripts/run.sh test|editor|demo|bench" >&2
    exit 2
    ;;
esac
