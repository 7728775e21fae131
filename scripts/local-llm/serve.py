"""Serves a GGUF model with llama.cpp's OpenAI-compatible HTTP server on 127.0.0.1.

Usage: serve.py MODEL_PATH ADDRESS_FILE [ALIAS]

Starts the server on a free loopback port, writes the address it listens on to ADDRESS_FILE
(as `host:port`) once it is serving, and keeps serving until it receives SIGTERM or SIGINT.
"""

import os
import signal
import sys
import threading

import xllamacpp


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: serve.py MODEL_PATH ADDRESS_FILE [ALIAS]", file=sys.stderr)
        return 2
    model_path, address_file = sys.argv[1], sys.argv[2]
    alias = sys.argv[3] if len(sys.argv) > 3 else "local-model"
    threads = int(os.environ.get("INTENT_LLM_THREADS", "2"))

    params = xllamacpp.CommonParams()
    params.model.path = model_path
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.n_ctx = int(os.environ.get("INTENT_LLM_CTX", "4096"))
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.n_parallel = 1
    params.model_alias = {alias}
    params.offline = True

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    server = xllamacpp.Server(params)
    address = server.listening_address
    tmp = address_file + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        out.write(str(address))
    os.replace(tmp, address_file)

    stop.wait()
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
