#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""net.py port | wait PORT SECONDS | get PORT PATH: for the server tests
and benchmarks.

port: prints a TCP port of 127.0.0.1 nobody listens on (the kernel's
choice: never a system instance's default port).
wait: exit status 0 once 127.0.0.1:PORT accepts a connection, 1 if it
does not within SECONDS.
get: prints the body of http://127.0.0.1:PORT/PATH (a new connection);
exit status 1 on an error or a status other than 200.
"""
import socket
import sys
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def wait(port, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            socket.create_connection(('127.0.0.1', port), timeout=1).close()
            return 0
        except OSError:
            time.sleep(0.1)
    return 1


def get(port, path):
    url = 'http://127.0.0.1:%d/%s' % (port, path.lstrip('/'))
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            sys.stdout.write(r.read().decode())
            return 0 if r.status == 200 else 1
    except OSError as e:
        print('%s: %s' % (url, e), file=sys.stderr)
        return 1


def main():
    if sys.argv[1:2] == ['port']:
        print(free_port())
        return 0
    if sys.argv[1:2] == ['wait'] and len(sys.argv) == 4:
        return wait(int(sys.argv[2]), float(sys.argv[3]))
    if sys.argv[1:2] == ['get'] and len(sys.argv) == 4:
        return get(int(sys.argv[2]), sys.argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
