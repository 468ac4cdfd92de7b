#!/usr/bin/env python3
"""RSS of a gangway server under 300 connections that each send half of a 1 MiB body and stop.

Usage: scripts/half-sent-bodies.py PATH-TO-GANGWAY (for example .build/debug/gangway). It starts
`gangway serve --demo` in a temporary directory, measures, and stops it.
"""
import shutil, socket, subprocess, sys, tempfile, time

binary = sys.argv[1]
data = tempfile.mkdtemp(prefix="gangway-rss-")
proc = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", data, "--bcrypt-cost", "4", "--demo"],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
port = None
for line in proc.stdout:
    if "listening on" in line:
        port = int(line.strip().rsplit(":", 1)[1].split()[0].strip("/"))
        break
def rss():
    with open(f"/proc/{proc.pid}/status") as f:
        for l in f:
            if l.startswith("VmRSS"):
                return int(l.split()[1]) // 1024
time.sleep(1)
before = rss()
socks = []
half = b"a" * (512 * 1024)
for kind in range(300):
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(5)
    head = (f"POST /apps/checks/logs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer gw_guess{kind}\r\n"
            f"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
    try:
        s.sendall(head + f"{len(half):x}\r\n".encode() + half + b"\r\n")
    except OSError:
        pass
    socks.append(s)
time.sleep(5)
during = rss()
open_count = 0
for s in socks:
    try:
        s.setblocking(False)
        d = s.recv(1)
        if d != b"":
            open_count += 1
    except BlockingIOError:
        open_count += 1
    except OSError:
        pass
print(f"RSS before {before} MiB, with 300 half-sent bodies {during} MiB (+{during - before} MiB); connections still open after 5 s: {open_count}")
for s in socks:
    s.close()
proc.terminate()
proc.wait()
shutil.rmtree(data, ignore_errors=True)
