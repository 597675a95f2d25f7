#!/usr/bin/env bash
# Entry point behind every npm script (`npm start`, `npm test`, `npm run sandbox`, ...): they work on a
# machine that has only Node 20 and npm. Node 24 comes first on PATH, dependencies are installed from
# the lock file when they are missing or stale, then the job runs. Extra arguments go to the job's tool.
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
    # To stderr: `npm run sandbox -- --json` promises the connection JSON as its first stdout line.
    npm install --no-audit --no-fund --loglevel=error >&2
    deps_stamp > node_modules/.voiceai-deps
  fi
}

build() { rm -rf dist && npx tsc -p tsconfig.json && npx gulp build:icons --silent; }
# ESLint (n8n's community-node rules) and prettier (n8n's starter settings, .prettierrc.js).
lint() { npx eslint --max-warnings 0 . "$@" && npx prettier --check --log-level warn .; }
n8n_dir() { bash scripts/n8n-install.sh; }
# The n8n lines the package is tested on, from scripts/n8n-lines.json (the one place naming them).
lines() { node -p "const l=require('./scripts/n8n-lines.json'); $1"; }
PRIMARY_N8N="$(lines 'l.primary')"
OTHER_LINES="$(lines 'l.lines.map((x) => x.version).filter((v) => v !== l.primary).join(" ")')"
EVERY_LINE_FILES="$(lines 'l.everyLine.map((n) => "test/e2e/" + n + ".e2e.test.ts").join(" ")')"
has_editor() { [ "$(lines "l.lines.find((x) => x.version === '$1').editor")" = true ]; }
line_dir() { VOICEAI_N8N_VERSION="$1" n8n_dir; }
# The files of "everyLine" in a real n8n of one line (the primary runs them with the other e2e files).
every_line_on() {
  local version="$1"; shift
  VOICEAI_N8N_DIR="$(line_dir "$version")" npx jest --config test/e2e/jest.config.js --runInBand \
    $EVERY_LINE_FILES "$@"
}
# The editor check of every line that has one, one line after another (one Chromium at a time).
editor_stream() {
  local version status=0
  for version in $PRIMARY_N8N $OTHER_LINES; do
    has_editor "$version" || continue
    editor_on "$version" --json --outputFile=".tmp/editor-$version.json" || status=$?
  done
  return "$status"
}
editor_on() {
  local version="$1"; shift
  VOICEAI_N8N_DIR="$(line_dir "$version")" npx jest --config test/e2e/jest.config.js --runInBand \
    --testMatch '**/*.browser.test.ts' "$@"
}

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
    mkdir -p .tmp
    # The other lines' n8n install in the background while the first suites run.
    for version in $OTHER_LINES; do line_dir "$version" > ".tmp/install-$version.log" 2>&1 & done
    build
    # Lint and the tests' type check side by side: one core each.
    lint > .tmp/lint.log 2>&1 &
    lint_pid=$!
    npx tsc -p tsconfig.test.json
    wait "$lint_pid" || { cat .tmp/lint.log; exit 1; }
    cat .tmp/lint.log
    # Before the jest suites: the HTTP Request node suite loads n8n's own node from this install.
    export VOICEAI_N8N_DIR="$(n8n_dir)"
    rm -f .tmp/*.json
    reports=(.tmp/unit.json .tmp/e2e-$PRIMARY_N8N.json)
    status=0
    # Most of their time is waiting on sandboxes and n8n processes: more workers than the two cores.
    # Measured on 2 cores, nothing else running: unit 164 s with jest's default (one worker) against
    # 87 s with three; e2e 402 s in band (2026-11-26 run) against 261 s with two.
    npx jest --config jest.config.js --maxWorkers=3 --json --outputFile=.tmp/unit.json || status=$?
    npx jest --config test/e2e/jest.config.js --maxWorkers=2 --json \
      --outputFile=".tmp/e2e-$PRIMARY_N8N.json" || status=$?
    # The other lines' installs must be complete before anything asks for them again.
    wait
    reports+=(.tmp/queue.json)
    # Alone: its load keeps both cores busy, and n8n answers 503 when its event loop starves.
    npx jest --config test/queue/jest.config.js --runInBand --json --outputFile=.tmp/queue.json || status=$?
    ensure_chromium
    # Then, side by side (each file starts its own n8n and sandbox; they share nothing), each
    # printing when it is done: every line's editor check, and each other line's everyLine files.
    for version in $PRIMARY_N8N $OTHER_LINES; do
      has_editor "$version" && reports+=(".tmp/editor-$version.json")
    done
    editor_stream > .tmp/stream-editor.log 2>&1 &
    pids=("$!")
    for version in $OTHER_LINES; do
      reports+=(".tmp/lines-$version.json")
      every_line_on "$version" --json --outputFile=".tmp/lines-$version.json" \
        > ".tmp/stream-$version.log" 2>&1 &
      pids+=("$!")
    done
    for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
    for log in editor $OTHER_LINES; do cat ".tmp/stream-$log.log"; done
    node scripts/summarize-jest.js "${reports[@]}"
    exit "$status"
    ;;
  editor)
    ensure_deps
    ensure_chromium
    build
    export VOICEAI_N8N_DIR="$(n8n_dir)"
    exec npx jest --config test/e2e/jest.config.js --runInBand --testMatch '**/*.browser.test.ts' "${@:2}"
    ;;
  build) ensure_deps; build ;;
  lint) ensure_deps; lint "${@:2}" ;;
  sandbox) ensure_deps; exec npx tsx sandbox/cli.ts "${@:2}" ;;
  simulate) ensure_deps; exec npx tsx sandbox/simulate.ts "${@:2}" ;;
  quick)
    # `npm run test:unit`: every suite that needs no n8n install (jest.quick.config.js), on a fresh build.
    ensure_deps
    build
    exec npx jest --config jest.quick.config.js --maxWorkers=3 "${@:2}"
    ;;
  unit|e2e)
    ensure_deps
    # The unit suites (one of them) load n8n's HTTP Request node from it; the e2e suites run it.
    export VOICEAI_N8N_DIR="${VOICEAI_N8N_DIR:-$(n8n_dir)}"
    if [ "$job" = unit ]; then exec npx jest --config jest.config.js "${@:2}"; fi
    exec npx jest --config test/e2e/jest.config.js --runInBand "${@:2}"
    ;;
  compat)
    # `npm run test:compat [-- VERSION]`: the everyLine files on every other line, or on VERSION.
    ensure_deps
    build
    versions="$OTHER_LINES"
    if [ -n "${2:-}" ] && [[ "$2" != -* ]]; then versions="$2"; set -- "$1" "${@:3}"; fi
    for version in $versions; do every_line_on "$version" "${@:2}"; done
    ;;
  check-package) ensure_deps; build; exec node scripts/check-package.mjs "${@:2}" ;;
  docs) ensure_deps; exec npx tsx scripts/operations-table.ts "${@:2}" ;;
  house-count) ensure_deps; exec npx tsx scripts/house-count.ts "${@:2}" ;;
  format) ensure_deps; exec npx prettier --write . "${@:2}" ;;
  format-check) ensure_deps; exec npx prettier --check . "${@:2}" ;;
  demo)
    ensure_deps
    build
    export VOICEAI_N8N_DIR="$(n8n_dir)"
    exec npx tsx scripts/demo.ts "${@:2}"
    ;;
  dev)
    # `npm run dev`: the sandbox and the primary line's n8n, rebuilt and restarted on each change.
    ensure_deps
    build
    export VOICEAI_N8N_DIR="$(n8n_dir)"
    exec npx tsx scripts/dev.ts "${@:2}"
    ;;
  bench)
    ensure_deps
    build
    export VOICEAI_N8N_DIR="$(n8n_dir)"
    exec npx tsx bench/run.ts "${@:2}"
    ;;
  bench-profile)
    ensure_deps
    build
    export VOICEAI_N8N_DIR="$(n8n_dir)"
    exec npx tsx bench/profileTrigger.ts "${@:2}"
    ;;
  *)
    echo "usage: scripts/run.sh test|editor|demo|dev|bench|bench-profile|build|lint|sandbox|simulate|quick|unit|e2e|compat|check-package|docs|house-count|format|format-check [args]" >&2
    exit 2
    ;;
esac
