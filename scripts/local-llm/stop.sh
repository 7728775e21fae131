#!/usr/bin/env bash
# Stops the server start.sh started, by the PID it recorded. Safe to call when none is running.
set -euo pipefail

LLM_HOME="${INTENT_LLM_HOME:-$HOME/.cache/intent-llm}"
PID_FILE="$LLM_HOME/server.pid"

if [[ ! -f "$PID_FILE" ]]; then
    exit 0
fi
pid="$(cat "$PID_FILE")"
if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "the server (PID $pid) did not stop on SIGTERM; sending SIGKILL" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
fi
rm -f "$PID_FILE" "$LLM_HOME/base_url" "$LLM_HOME/server.address"
