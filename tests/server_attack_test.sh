#!/usr/bin/env bash
# server_attack_test.sh — issue 14's attacks against `tessera serve` (tests/server/attack.mjs):
# slowloris, stalled unauthenticated uploads, parse before admission, early errors, request
# smuggling, NUL in strings, half-close, paths in errors, key and origin checks, log flooding.
# Four servers (three on the text fixture, one on Qwen2-VL's), loopback only, port 0; each is stopped with SIGTERM and must
# exit 0 with no sanitizer report. Skips (77) without node or the openai package under .oracles.
set -u
BIN=${TS_BIN:?TS_BIN must name the tessera binary}
ROOT=$(cd "${TS_ROOT:-.}" && pwd) || exit 1
cd "$ROOT" || exit 1
if ! command -v node >/dev/null || [ ! -f "$ROOT/.oracles/node_modules/openai/index.mjs" ]; then
    echo "SKIP: node or .oracles/node_modules/openai is missing (scripts/install-deps)"
    exit 77
fi
# 2,000 slowloris sockets on each side of loopback, plus the server's own.
ulimit -n "$(ulimit -Hn)" 2>/dev/null
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 6000 ]; then
    echo "SKIP: the descriptor limit ($(ulimit -n)) is below the 6000 the slowloris case needs"
    exit 77
fi
TXT=tests/fixtures/qwen2/model
KEY=tessera-attack-key-5678
TMP=$(mktemp -d)
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT
export ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=16
export UBSAN_OPTIONS=print_stacktrace=1
failed=0

# start NAME ARGS...: sets PORT_NAME and PID_NAME.
source "$ROOT/tests/server/launch.sh"
start() {
    local name=$1
    shift
    launch_server "$TMP/$name.err" "$@"
    PIDS+=("$LAUNCHED_PID")
    printf -v "PORT_$name" %s "$LAUNCHED_PORT"
    printf -v "PID_$name" %s "$LAUNCHED_PID"
}

stop() {
    local name=$1 pid=$2 rc
    kill -TERM "$pid"
    for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { echo "FAIL: $name did not stop within 30 s"; kill -KILL "$pid"; failed=1; }
    wait "$pid"
    rc=$?
    [ "$rc" -eq 0 ] || { echo "FAIL: $name exited $rc"; failed=1; }
    if grep -qE 'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:' "$TMP/$name.err"; then
        echo "FAIL: $name: sanitizer report:"
        head -c 8000 "$TMP/$name.err"
        failed=1
    fi
}

printf '%s\n' "$KEY" >"$TMP/key"
start open -m "$TXT" --max-connections 4096 --max-connections-per-ip 0
start keyed -m "$TXT" --api-key-file "$TMP/key"
start vl -m tests/fixtures/qwen2_vl/model --image-max-tokens 64 --max-request-pixels 40000000
start tight -m "$TXT" --slots 1 --queue 1 --capacity 32768 --header-timeout 2 --body-timeout 3 --max-connections-per-ip 16
TS_ROOT=$ROOT TS_PORT=$PORT_open TS_VL_PORT=$PORT_vl TS_KEY_PORT=$PORT_keyed TS_KEY_PID=$PID_keyed TS_TIGHT_PORT=$PORT_tight \
    TS_TIGHT_ERR=$TMP/tight.err TS_API_KEY=$KEY TS_OPENAI=unused TS_ORACLES=unused \
    timeout 300 node tests/server/attack.mjs || {
    echo "FAIL: attack.mjs (exit $?); the servers' logs:"
    for name in open keyed vl tight; do echo "--- $name"; tail -n 20 "$TMP/$name.err"; done
    failed=1
}
stop open "$PID_open"
stop keyed "$PID_keyed"
stop vl "$PID_vl"
stop tight "$PID_tight"
[ "$failed" -eq 0 ] && echo "server_attack_test: all passed"
exit "$failed"
