# launch.sh — sourced by the server test scripts. launch_server LOG ARGS…: starts
# `$BIN serve --port 0 ARGS` with stderr in LOG, waits (60 s at most) for its "listening" line and
# sets LAUNCHED_PID and LAUNCHED_PORT; a server that exits or never listens fails the script with
# its stderr (the process killed).
launch_server() {
    local log=$1 port=
    shift
    "$BIN" serve --port 0 "$@" 2>"$log" &
    LAUNCHED_PID=$!
    for _ in $(seq 600); do
        port=$(sed -n 's/^tessera serve: listening on http:\/\/127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$log")
        [ -n "$port" ] && break
        kill -0 "$LAUNCHED_PID" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        kill -KILL "$LAUNCHED_PID" 2>/dev/null
        echo "FAIL: server did not start ($log): $(cat "$log")" >&2
        exit 1
    fi
    LAUNCHED_PORT=$port
}
