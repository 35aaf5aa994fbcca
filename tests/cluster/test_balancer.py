"""HAProxy in front of two nodes, as the harness configures it (the same
modes as deploy/haproxy.cfg): telnet in TCP mode spread over both nodes,
each told the player's address by the PROXY protocol v2,
the web in HTTP mode with a websocket's upgrade passed through, and a dead
node taken out by the health checks so new players go to the other."""
import base64
import os
import re
import signal
import socket
import time

from cluster import HTTP_PORT, ROLE_IP, TELNET_PORT, run_in_ns


def telnet_banner(ip):
    """The first screen's bytes of a telnet connection."""
    with socket.create_connection((ip, TELNET_PORT), timeout=10) as s:
        data = b""
        end = time.monotonic() + 10
        while b"Your choice" not in data and time.monotonic() < end:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        return data


def http(ip, req):
    """The answer's first bytes to a raw request (the connection then closed)."""
    with socket.create_connection((ip, HTTP_PORT), timeout=10) as s:
        s.sendall(req)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        # after an upgrade, the first websocket frame follows
        if data.startswith(b"HTTP/1.1 101"):
            end = time.monotonic() + 10
            while data.endswith(b"\r\n\r\n") and time.monotonic() < end:
                data += s.recv(65536)
        return data


def connects(log):
    """Telnet connections a node's log tells of: its lines, and those the
    log's cap on one address's lines held back and counted."""
    held = re.findall(r" connect conn=.* \((\d+) such lines held back\)", log)
    held += re.findall(r'held back: (\d+) lines of "connect"', log)
    return log.count(" connect conn=") + sum(map(int, held))


def test_haproxy_spreads_telnet_and_passes_web_and_websockets(make_cluster):
    c = make_cluster(nodes=2)
    c.start_pg()
    c.start_nodes()
    c.start_haproxy()
    # telnet: four connections, two on each node (leastconn)
    socks = []

    def open_four():
        for _ in range(4):
            s = socket.create_connection((c.proxy_ip, TELNET_PORT), timeout=10)
            socks.append(s)
            s.recv(1)
    run_in_ns(c.client_ns, open_four)
    time.sleep(0.5)
    per_node = [n.log().count(" connect conn=") for n in c.nodes]
    for s in socks:
        s.close()
    assert per_node == [2, 2], per_node
    # each node sees the player's address (PROXY v2 from the balancer), and
    # the balancer checks each node's /health
    assert c.proxy_v2 and c.http_health
    for n in c.nodes:
        assert n.log().count(f" ip={ROLE_IP['cl']} via=tcp") == 2, n.log()[-2000:]
        assert f"ip={ROLE_IP['lb']} via=tcp" not in n.log()
    assert b"Your choice" in run_in_ns(c.client_ns, telnet_banner, c.proxy_ip)
    # the web: a page, and the lobby's websocket through HTTP mode
    page = run_in_ns(c.client_ns, http, c.proxy_ip,
                     f"GET / HTTP/1.1\r\nHost: {c.proxy_ip}\r\nConnection: close\r\n\r\n".encode())
    assert page.startswith(b"HTTP/1.1 200"), page[:300]
    key = base64.b64encode(os.urandom(16)).decode()
    ws = run_in_ns(c.client_ns, http, c.proxy_ip,
                   (f"GET /ws/lobby HTTP/1.1\r\nHost: {c.proxy_ip}:{HTTP_PORT}\r\n"
                    f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                    f"Sec-WebSocket-Version: 13\r\n\r\n").encode())
    assert ws.startswith(b"HTTP/1.1 101"), ws[:300]
    head, _, frame = ws.partition(b"\r\n\r\n")
    assert frame and frame[0] & 0x0F == 1, ws[:300]  # a text frame: the lobby's list
    # a node killed: the checks take it out, and every new player gets the other
    c.nodes[0].kill(signal.SIGKILL)
    end = time.monotonic() + 10
    while c.lb.servers_up() != 1 and time.monotonic() < end:
        time.sleep(0.1)
    assert c.lb.servers_up() == 1, c.lb.server_states()
    before = connects(c.nodes[1].log())
    for _ in range(3):
        assert b"Your choice" in run_in_ns(c.client_ns, telnet_banner, c.proxy_ip)
    end = time.monotonic() + 15  # lines the log's cap held back are counted within 10 s
    while connects(c.nodes[1].log()) < before + 3 and time.monotonic() < end:
        time.sleep(0.2)
    assert connects(c.nodes[1].log()) >= before + 3
