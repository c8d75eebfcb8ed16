#!/usr/bin/env python3
"""A reference for `autoplugin check --reference` that starts once for all cases of a run.

A reference command receives a case folder (case.json, input<k>.npy) and writes its outputs; a
Python reference that imports PyTorch (and initialises CUDA) per case spends seconds on each.
A script that computes a case in a function `compute(folder)` serves it instead:

    import reference_server                      # this file, beside it on sys.path
    reference_server.serve(SOCKET, compute)      # answers every case on the Unix socket

and the run gives `check` this file as its reference, which forwards each folder and waits:

    autoplugin check LIB.so --case cases.json --reference "python3 -S tools/reference_server.py SOCKET"

The protocol: the client sends the folder's path and a newline; the server answers "ok", or
"error: " and the traceback. The socket appears once the server is ready (its imports done).
The client uses the standard library only, started without site packages.
"""
import os
import socket
import sys
import time
import traceback


def serve(path, compute):
    """Answers cases on the Unix socket `path` until the process is stopped."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path + ".part")
    os.rename(path + ".part", path)  # appears whole: a client never meets a half-made socket
    server.listen(4)
    while True:
        connection, _ = server.accept()
        with connection:
            folder = connection.makefile().readline().strip()
            try:
                compute(folder)
                answer = "ok\n"
            except Exception:  # noqa: BLE001 - the client reports it, the server goes on
                answer = "error: " + traceback.format_exc()
            connection.sendall(answer.encode())


def wait_for(path, process, seconds=300):
    """Waits until the server `process` (a subprocess.Popen) has made its socket at `path`;
    False when it exited or the time ran out."""
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        if process.poll() is not None or time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def ask(path, folder):
    """The client: 0 when the server computed the case, else 1 with its message on stderr."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        try:
            connection.connect(path)
        except OSError as error:
            sys.stderr.write(f"no reference server answers at {path} ({error})\n")
            return 1
        connection.sendall((folder + "\n").encode())
        answer = connection.makefile().read()
    if answer.strip() != "ok":
        sys.stderr.write(answer)
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: reference_server.py SOCKET CASE_FOLDER (the client side)")
    sys.exit(ask(sys.argv[1], sys.argv[2]))
