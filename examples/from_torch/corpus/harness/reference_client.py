"""`autoplugin check --reference` command that asks a running `reference.py --serve SOCKET` for
the case in DIR (started without site packages: a case costs a few milliseconds).

    python3 -S reference_client.py SOCKET DIR
"""
import socket
import sys


def main(path, folder):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        try:
            connection.connect(path)
        except OSError as error:
            sys.stderr.write(f"no reference server answers at {path} ({error}); its output is in "
                             f"{path}.log\n")
            return 1
        connection.sendall((folder + "\n").encode())
        answer = connection.makefile().read()
    if answer.strip() != "ok":
        sys.stderr.write(answer)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
