"""A member on an island: a network namespace of its own on this machine, joined to
the rest by one veth pair, so that its Akka remoting can be cut while its database
and HTTP stay reachable (the cluster test's partition, cluster_test.py).

    root namespace                         the island (namespace tbcut<pid>)
    10.213.N.1 (veth tbv<pid>r)  <------>  10.213.N.2 (veth tbv<pid>n), its own lo
    the other members' remoting            the member: remoting, HTTP
    a relay to the database (127.0.0.1)

The database listens on loopback only, so the island reaches it through a relay
in this process, listening on 10.213.N.1. `cut()` drops, inside the island, every
TCP segment between the member's remoting port and the others' (iptables there);
`heal()` flushes those rules. Nothing is changed outside the island but its veth
end; `close()` deletes the namespace, which takes its rules and the veth pair
with it, and `sweep()` deletes islands left by a harness that died.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading

PREFIX = "tbcut"
NET = "10.213"


class NetcutError(Exception):
    pass


def _run(*argv: str, stdin: str | None = None) -> str:
    r = subprocess.run(list(argv), capture_output=True, text=True, input=stdin)
    if r.returncode != 0:
        raise NetcutError(f"{' '.join(argv)}: {(r.stderr or r.stdout).strip()}")
    return r.stdout


def missing() -> str | None:
    """Why islands cannot be made here (None when they can)."""
    if os.geteuid() != 0:
        return "a network namespace and iptables need root"
    for tool in ("ip", "iptables"):
        if not shutil.which(tool):
            return f"no '{tool}' on PATH (./tradebench installs iptables from the system's packages when it may)"
    return None


def sweep() -> None:
    """Deletes the islands of harness processes that are no longer running."""
    try:
        names = _run("ip", "netns", "list").split()
    except NetcutError:
        return
    for name in names:
        if name.startswith(PREFIX) and name[len(PREFIX):].isdigit():
            pid = int(name[len(PREFIX):])
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                subprocess.run(["ip", "netns", "del", name], capture_output=True)
                subprocess.run(["ip", "link", "del", f"tbv{pid}r"], capture_output=True)


class _Relay:
    """TCP relay: LISTEN_HOST:port -> UPSTREAM, one thread per direction of each connection."""

    def __init__(self, listen_host: str, upstream: tuple[str, int]):
        self.upstream = upstream
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind((listen_host, 0))
        self.server.listen(256)
        self.port = self.server.getsockname()[1]
        self.closed = False
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                c, _ = self.server.accept()
            except OSError:
                return
            try:
                u = socket.create_connection(self.upstream, timeout=10)
                u.settimeout(None)
            except OSError:
                c.close()
                continue
            for s in (c, u):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.conns += [c, u]
            threading.Thread(target=self._pipe, args=(c, u), daemon=True).start()
            threading.Thread(target=self._pipe, args=(u, c), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                b = src.recv(65536)
                if not b:
                    break
                dst.sendall(b)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        self.closed = True
        for s in [self.server, *self.conns]:
            try:
                s.close()
            except OSError:
                pass


class Island:
    """One namespace with its veth pair and a relay to the database; use as a context manager."""

    def __init__(self, db_host: str, db_port: int):
        pid = os.getpid()
        self.ns = f"{PREFIX}{pid}"
        self.veth_root, self.veth_ns = f"tbv{pid}r", f"tbv{pid}n"
        self.db_upstream = (db_host, db_port)
        self.relay: _Relay | None = None
        self.outside = self.inside = ""
        self.db_port = 0

    def _free_subnet(self) -> int:
        used = _run("ip", "-o", "-4", "addr", "show")
        for k in range(os.getpid() % 200, os.getpid() % 200 + 250):
            n = 1 + k % 250
            if f" {NET}.{n}." not in used:
                return n
        raise NetcutError(f"no free {NET}.N.0/30 on this machine")

    def open(self) -> Island:
        why = missing()
        if why:
            raise NetcutError(why)
        sweep()
        n = self._free_subnet()
        self.outside, self.inside = f"{NET}.{n}.1", f"{NET}.{n}.2"
        try:
            _run("ip", "netns", "add", self.ns)
            _run("ip", "link", "add", self.veth_root, "type", "veth", "peer", "name", self.veth_ns)
            _run("ip", "link", "set", self.veth_ns, "netns", self.ns)
            _run("ip", "addr", "add", f"{self.outside}/30", "dev", self.veth_root)
            _run("ip", "link", "set", self.veth_root, "up")
            self.exec("ip", "link", "set", "lo", "up")
            self.exec("ip", "addr", "add", f"{self.inside}/30", "dev", self.veth_ns)
            self.exec("ip", "link", "set", self.veth_ns, "up")
            self.exec("iptables", "-S")   # the firewall works in here before anything relies on it
            self.relay = _Relay(self.outside, self.db_upstream)
            self.db_port = self.relay.port
        except (NetcutError, OSError):
            self.close()
            raise
        return self

    def exec(self, *argv: str, stdin: str | None = None) -> str:
        return _run("ip", "netns", "exec", self.ns, *argv, stdin=stdin)

    def prefix(self) -> list[str]:
        """The argv prefix that runs a command on the island."""
        return ["ip", "netns", "exec", self.ns]

    def cut(self, own_port: int, others: list[int]) -> None:
        """Drops remoting both ways: the island's connections to the others' ports, and theirs to its own.
        The rules take effect together (one iptables-restore) by the time this returns."""
        ports = ",".join(str(p) for p in others)
        rules = [
            ["OUTPUT", "-p", "tcp", "-d", self.outside, "-m", "multiport", "--dports", ports, "-j", "DROP"],
            ["INPUT", "-p", "tcp", "-s", self.outside, "-m", "multiport", "--sports", ports, "-j", "DROP"],
            ["INPUT", "-p", "tcp", "--dport", str(own_port), "-j", "DROP"],
            ["OUTPUT", "-p", "tcp", "--sport", str(own_port), "-j", "DROP"],
        ]
        table = "*filter\n" + "".join("-A " + " ".join(r) + "\n" for r in rules) + "COMMIT\n"
        self.exec("iptables-restore", "--noflush", stdin=table)

    def heal(self) -> None:
        self.exec("iptables", "-F")

    def close(self) -> None:
        if self.relay:
            self.relay.close()
            self.relay = None
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)
        subprocess.run(["ip", "link", "del", self.veth_root], capture_output=True)

    def __enter__(self) -> Island:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()
