#!/usr/bin/env python3
"""tools/console.py [SOCKET] -- `make console`: type into the kernel's serial
console while `make debug` runs in another terminal.

make debug (tools/debug.sh) puts the guest's serial port on a Unix socket,
BUILD/debug-console.sock (QEMU -chardev socket,...,logfile=BUILD/debug-serial.log:
the log is kept, pg-log still reads it). This attaches to it: what the
kernel prints appears here, what you type goes to the guest (the terminal
is put in raw mode, so ^C reaches the guest's shell as it would on a serial
line). Ctrl-] detaches. Started before make debug, it waits (up to 10
minutes) for the socket to appear. With standard input not a terminal
(a script), it sends what it reads and keeps printing until the guest's
side closes.
"""
import os
import select
import socket
import sys
import termios
import time
import tty

DETACH = b"\x1d"          # Ctrl-]
WAIT_S = 600


def connect(path):
    """A socket connected to path, waiting for make debug to create it."""
    said = False
    deadline = time.monotonic() + WAIT_S
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except (FileNotFoundError, ConnectionRefusedError):
            s.close()
            if time.monotonic() > deadline:
                sys.exit("console: %s did not appear" % path)
            if not said:
                print("console: waiting for %s (start make debug in another terminal)" % path,
                      file=sys.stderr)
                said = True
            time.sleep(0.2)


def pump(sock, tty_in):
    """Copy socket -> stdout and stdin -> socket until either side ends."""
    fds = [sock, sys.stdin.fileno()]
    while True:
        ready, _, _ = select.select(fds, [], [])
        if sock in ready:
            data = sock.recv(4096)
            if not data:
                return
            os.write(sys.stdout.fileno(), data)
        if sys.stdin.fileno() in ready:
            data = os.read(sys.stdin.fileno(), 4096)
            if not data or (tty_in and DETACH in data):
                if data:
                    return
                fds.remove(sys.stdin.fileno())     # a script's end: keep printing
                continue
            sock.sendall(data)


def main(argv):
    path = argv[1] if len(argv) > 1 else os.path.join("build", "debug-console.sock")
    sock = connect(path)
    tty_in = os.isatty(sys.stdin.fileno())
    print("console: attached to %s%s" % (path, " (Ctrl-] detaches)" if tty_in else ""),
          file=sys.stderr)
    saved = termios.tcgetattr(sys.stdin) if tty_in else None
    try:
        if tty_in:
            tty.setraw(sys.stdin.fileno())
        pump(sock, tty_in)
    finally:
        if saved:
            termios.tcsetattr(sys.stdin, termios.TCSADRAIN, saved)
    print("\r\nconsole: detached", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
