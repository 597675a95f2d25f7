#!/usr/bin/env bash
# Entry points behind `npm start`, `npm test` and `npm run bench`: they work on a machine that has
# only Node 20 and npm. Node 24 comes first on PATH, dependencies are installed from the lock file
# when they are missing or stale, then the job runs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node24.sh

ensure_deps() {
  local want have=""
  want="$(node -p 'require("crypto").createHash("sha256").update(require("fs").readFileSync("package-lock.json")).digest("hex")')-$(node --version)"
  [ -f node_modules/.voiceai-lock ] && have="$(cat node_modules/.voiceai-lock)"
  if [ "$want" != "$have" ]; then
    echo "[voiceai] installing dependencies (npm ci)" >&2
    npm ci --no-audit --no-fund --loglevel=error
    echo "$want" > node_modules/.voiceai-lock
  fi
}

build() { rm -rf dist && npm run build --silent; }

job="${1:-test}"
case "$job" in
  test)
    ensure_deps
    build
    npm run lint --silent
    npx tsc -p tsconfig.test.json
    mkdir -p .tmp
    status=0
    npx jest --config jest.config.js --json --outputFile=.tmp/unit.json || status=$?
    export VOICEAI_N8N_DIR="$(bash scripts/n8n-install.sh)"
    npx jest --config test/e2e/jest.config.js --runInBand --json --outputFile=.tmp/e2e.json || status=$?
    node scripts/summarize-jest.js .tmp/unit.json .tmp/e2e.json
    exit "$status"
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
    echo "usage: scripts/run.sh test|demo|bench" >&2
    exit 2
    ;;
esac
