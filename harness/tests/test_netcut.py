"""netcut.Island: the cluster test's partition. Needs root (a network namespace, iptables in it)."""
import socket
import subprocess
import sys
import threading

import pytest

from tradebench_harness.run import netcut

# root and iptables (the system tier installs it for the cluster test)
pytestmark = [pytest.mark.system,
              pytest.mark.skipif(netcut.missing() is not None, reason=f"islands need: {netcut.missing()}")]


def echo_server(host: str) -> socket.socket:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, 0))
    s.listen(16)

    def serve():
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            with c:
                c.sendall(c.recv(100))
    threading.Thread(target=serve, daemon=True).start()
    return s


def from_island(island: netcut.Island, host: str, port: int) -> bool:
    """Whether a connection from inside the island to HOST:PORT echoes within 2 s."""
    code = ("import socket,sys\n"
            "try:\n"
            f"    c = socket.create_connection(('{host}', {port}), timeout=2); c.sendall(b'ping')\n"
            "    sys.exit(0 if c.recv(4) == b'ping' else 1)\n"
            "except OSError:\n"
            "    sys.exit(1)\n")
    return subprocess.run(island.prefix() + [sys.executable, "-c", code], timeout=20).returncode == 0


def test_the_cut_drops_remoting_and_keeps_the_database_and_close_leaves_nothing():
    db = echo_server("127.0.0.1")                      # stands for the database, on loopback only
    with netcut.Island("127.0.0.1", db.getsockname()[1]) as island:
        peer = echo_server(island.outside)             # stands for another member's remoting port
        peer_port = peer.getsockname()[1]
        assert from_island(island, island.outside, island.db_port), "the relay reaches the database"
        assert from_island(island, island.outside, peer_port), "the other member, before the cut"
        island.cut(own_port=25599, others=[peer_port])
        assert not from_island(island, island.outside, peer_port), "the other member, cut off"
        assert from_island(island, island.outside, island.db_port), "the database, through the cut"
        island.heal()
        assert from_island(island, island.outside, peer_port), "the other member, healed"
        ns = island.ns
        peer.close()
    db.close()
    assert ns not in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
