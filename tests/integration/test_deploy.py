"""deploy/ checked by the tools that will read it: sshd -t / -T, nginx -t,
systemd-analyze verify; the sample config against the daemon's own list of
settings; make install DESTDIR=... and the installed warrend serving a game
over the real telnet program."""
import os
import pathlib
import re
import shutil
import subprocess

from harness import ON_PG, ROOT, Web, daemon_exe, free_port, program, sbin, unique_name

DEPLOY = ROOT / "deploy"


def run(argv, **kw):
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=600, **kw)


def test_sshd_snippet_in_debian_config(tmp_path):
    """The snippet dropped into Debian's own sshd_config.d layout."""
    os.makedirs("/run/sshd", exist_ok=True)
    key = tmp_path / "hostkey"
    assert run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key]).returncode == 0
    base = pathlib.Path("/etc/ssh/sshd_config").read_text()
    assert "Include /etc/ssh/sshd_config.d/*.conf" in base
    (tmp_path / "d").mkdir()
    shutil.copy(DEPLOY / "sshd" / "warren.conf", tmp_path / "d" / "warren.conf")
    conf = tmp_path / "sshd_config"
    conf.write_text("HostKey %s\n" % key +
                    base.replace("/etc/ssh/sshd_config.d/*.conf", "%s/d/*.conf" % tmp_path))
    r = run([sbin("sshd"), "-t", "-f", conf])
    assert r.returncode == 0, r.stderr

    def effective(user):
        r = run([sbin("sshd"), "-T", "-f", conf, "-C", "user=%s,host=h,addr=192.0.2.1" % user])
        assert r.returncode == 0, r.stderr
        return dict(line.split(" ", 1) for line in r.stdout.splitlines() if " " in line)

    w = effective("warren")
    assert w["forcecommand"] == "/usr/local/bin/warren --ssh --socket /run/warren/warren.sock"
    expect = {"permitemptypasswords": "yes", "passwordauthentication": "yes", "permittty": "yes",
              "allowtcpforwarding": "no", "allowagentforwarding": "no", "x11forwarding": "no",
              "permittunnel": "no", "allowstreamlocalforwarding": "no", "permituserrc": "no",
              "disableforwarding": "yes"}
    for k, v in expect.items():
        assert w[k] == v, (k, w[k])
    # Nobody else is touched: the Match block does not leak past its file.
    other = effective("alice")
    assert other["forcecommand"] == "none"
    assert other["permitemptypasswords"] == "no"
    assert other.get("x11forwarding") == "yes"  # Debian's own setting after the Include


def test_su_line_fits_debians_pam_file(tmp_path):
    """RUNNING.md's line that keeps su from the ssh account's empty
    password, run on a copy of Debian's /etc/pam.d/su: the check comes
    right after pam_rootok (root may still su) and before common-auth
    (whose pam_unix nullok would take the empty password); nothing else
    changes."""
    doc = (DEPLOY / "RUNNING.md").read_text()
    cmds = [ln.strip() for ln in doc.splitlines() if ln.strip().startswith("sed -i") and
            "/etc/pam.d/su" in ln]
    assert len(cmds) == 1, cmds
    copy = tmp_path / "su"
    shutil.copy("/etc/pam.d/su", copy)
    r = run(["sh", "-c", cmds[0].replace("/etc/pam.d/su", str(copy))])
    assert r.returncode == 0, r.stderr
    before = pathlib.Path("/etc/pam.d/su").read_text().splitlines()
    after = copy.read_text().splitlines()
    added = [ln for ln in after if "pam_succeed_if" in ln and ln not in before]
    assert added == ["auth       requisite  pam_succeed_if.so user != warren quiet_success"]
    at = after.index(added[0])
    assert re.match(r"auth\s+sufficient\s+pam_rootok\.so", after[at - 1]), after[at - 1]
    assert at < after.index("@include common-auth")
    assert after[:at] + after[at + 1:] == before


def test_nginx_site(tmp_path):
    cert, key = tmp_path / "fullchain.pem", tmp_path / "privkey.pem"
    r = run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
             "-subj", "/CN=warren.example.org", "-keyout", key, "-out", cert])
    assert r.returncode == 0, r.stderr
    site = (DEPLOY / "nginx" / "warren.conf").read_text()
    assert "proxy_pass http://warren_web;" in site and "server 127.0.0.1:8080;" in site
    assert "proxy_set_header Upgrade $http_upgrade;" in site
    site = site.replace("/etc/letsencrypt/live/warren.example.org/", str(tmp_path) + "/")
    (tmp_path / "warren.conf").write_text(site)
    t = tmp_path
    (t / "nginx.conf").write_text(
        "pid {t}/nginx.pid;\nerror_log {t}/error.log;\nevents {{}}\nhttp {{\n"
        "  access_log off;\n  client_body_temp_path {t}/body;\n  proxy_temp_path {t}/proxy;\n"
        "  fastcgi_temp_path {t}/fcgi;\n  uwsgi_temp_path {t}/uwsgi;\n  scgi_temp_path {t}/scgi;\n"
        "  include {t}/warren.conf;\n}}\n".format(t=t))
    r = run([sbin("nginx"), "-t", "-p", t, "-e", t / "error.log", "-c", t / "nginx.conf"])
    assert r.returncode == 0, r.stderr
    assert "syntax is ok" in r.stderr and "test is successful" in r.stderr


# What the spawner keeps (set the games' ids, signal them, own and reach
# players' directories, follow the links of the files a game maps) and
# the one capability warrend may keep.
UNIT_CAPS = {"CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_CHOWN", "CAP_FOWNER",
             "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_CHECKPOINT_RESTORE",
             "CAP_NET_BIND_SERVICE"}


def test_systemd_unit(bindir, tmp_path):
    """The unit starts warrend as root with tight capabilities: run-as in
    warren.conf makes it warrend, its directories are warrend's (never a
    StateDirectory=, which systemd would hand to root), and nothing in the
    sandbox stops the spawner from starting games as warren-games."""
    unit = (DEPLOY / "warrend.service").read_text()
    for line in ("ProtectSystem=strict", "NoNewPrivileges=yes", "ReadWritePaths=/var/lib/warren "
                 "/run/warren", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
                 "Restart=on-failure", "KillSignal=SIGTERM",
                 "SystemCallFilter=@system-service @mount landlock_create_ruleset "
                 "landlock_restrict_self",  # @mount, landlock: a game's box
                 # hosted games' own: no network, no other game, no other player's files
                 "RestrictNamespaces=user net pid mnt ipc",
                 "ProcSubset=pid",  # nothing over parts of /proc: a game may mount its own
                 "ExecStartPre=+/usr/bin/install -d -o warrend -g warren -m 0711 /var/lib/warren",
                 "ExecStartPre=+/usr/bin/install -d -o warrend -g warren -m 0750 /run/warren"):
        assert re.search("^%s$" % re.escape(line), unit, re.M), line
    assert re.search(r"^MemoryMax=\S+$", unit, re.M)
    assert re.search(r"^TimeoutStopSec=\d+$", unit, re.M)
    for gone in ("User", "Group", "StateDirectory", "RuntimeDirectory", "AmbientCapabilities"):
        assert not re.search(r"^%s=" % gone, unit, re.M), gone
    assert not re.search(r"^SystemCallFilter=~@privileged", unit, re.M)  # setuid is in it
    caps = re.search(r"^CapabilityBoundingSet=(.*)$", unit, re.M).group(1).split()
    assert set(caps) == UNIT_CAPS, caps
    conf = (DEPLOY / "warren.conf").read_text()
    assert re.search(r"^run-as = warrend$", conf, re.M)
    assert re.search(r"^games-user = warren-games$", conf, re.M)
    # verify checks that ExecStart exists: point it at the built daemon
    exe = pathlib.Path(bindir) / "warrend"
    if not exe.exists():
        exe = pathlib.Path("/bin/true")
    (tmp_path / "warrend.service").write_text(unit.replace("/usr/local/bin/warrend", str(exe)))
    r = run(["systemd-analyze", "verify", tmp_path / "warrend.service"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "warrend.service" not in r.stderr, r.stderr


def daemon_settings(exe):
    r = run([exe, "--help"])
    assert r.returncode == 0, r.stderr
    names = re.findall(r"^\s+--([a-z][a-z0-9-]*)", r.stdout, re.M)
    return [n for n in names if n not in ("config", "help", "version")]


def test_sample_config_lists_every_setting(bindir, start_daemon, tmp_path):
    exe = daemon_exe(bindir)
    conf = (DEPLOY / "warren.conf").read_text()
    keys = re.findall(r"^([a-z][a-z0-9-]*)\s*=", conf, re.M)
    settings = daemon_settings(exe)
    assert settings, "warrend --help lists no settings"
    assert sorted(keys) == sorted(settings), (keys, settings)
    # and the daemon accepts the file as written (paths overridden to stay here)
    d = start_daemon(http=True, unix=True, test_flags=False,
                     extra=["--config", DEPLOY / "warren.conf", "--content=",
                            "--control", tmp_path / "ctl", "--run-as="])  # no warrend user here
    assert "TEST-ONLY" not in d.log(), d.log()  # its test keys as a server keeps them


def test_test_only_settings_are_said_loudly_at_start(start_daemon):
    """A test-only key set off its default (cheap password hashes, a
    state-hash key, slowed logins) on a daemon: its start says which, as a
    warning, so an administrator who copied one from a test sees it."""
    d = start_daemon(test_flags=False, extra=["--test-hooks", "--test-login-delay", "5",
                                              "--test-copies", "8"])
    lines = re.findall(r"WARN.*TEST-ONLY SETTINGS: .*", d.log())
    assert len(lines) == 1, d.log()
    line = lines[0]
    assert "test-hooks, test-login-delay, test-copies" in line, line
    assert "test-lists" not in line and "test-jobs" not in line, line


def test_make_install_destdir(bindir, start_daemon, clients, tmp_path):
    program(bindir, "warrend")
    dest = tmp_path / "root"
    b = pathlib.Path(bindir).resolve().parent
    bvar = [] if b == ROOT.resolve() else ["B=%s" % b]  # the default build dir is B=.
    r = run(["make", "-C", ROOT, *bvar, "install", "DESTDIR=%s" % dest])
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    pre = dest / "usr" / "local"
    for f in ("bin/warrend", "bin/warren", "lib/systemd/system/warrend.service",
              "share/warren/sshd/warren.conf", "share/warren/nginx/warren.conf",
              "share/warren/warren.conf.sample", "etc/warren/warren.conf",
              "share/doc/warren/RUNNING.md"):
        assert (pre / f).is_file(), f
    for p in ("warrend", "warren"):
        assert os.access(pre / "bin" / p, os.X_OK)
    if (pathlib.Path(bindir) / "warren-engine").exists():
        assert (pre / "bin" / "warren-engine").is_file()
    assert os.access(pre / "bin" / "warren-admin", os.X_OK)
    content = pre / "share" / "warren" / "content"
    assert content.is_dir()
    src_files = sorted(p.relative_to(ROOT / "game" / "content")
                       for p in (ROOT / "game" / "content").rglob("*") if p.is_file())
    assert sorted(p.relative_to(content) for p in content.rglob("*") if p.is_file()) == src_files
    if (ROOT / "client-web" / "dist").is_dir():
        assert any((pre / "share" / "warren" / "web").rglob("*")), "web assets not installed"
    unit = (pre / "lib/systemd/system/warrend.service").read_text()
    assert "ExecStart=/usr/local/bin/warrend --config /usr/local/etc/warren/warren.conf" in unit

    # The installed daemon, from the installed tree, with its installed config,
    # serves a game to the real telnet program.
    web = pre / "share" / "warren" / "web"
    ctl = tmp_path / "warrend.ctl"
    d = start_daemon(exe=pre / "bin" / "warrend", http=True, unix=True, test_flags=False,
                     extra=["--config", pre / "etc/warren/warren.conf", "--content", content,
                            "--control", ctl, "--run-as="],
                     env={"WARREN_WEB_ROOT": str(web)})  # as the unit sets it
    t = clients(d.port)
    t.register(unique_name("in"))
    t.play()
    # the installed admin tool reaches the installed daemon
    r = run([str(pre / "bin" / "warren-admin"), "--control", str(ctl), "health"])
    ok = "integrity: not checked here" if ON_PG else "integrity: ok"  # PostgreSQL checks its own
    assert r.returncode == 0 and ok in r.stdout, r.stdout + r.stderr
    if (ROOT / "client-web" / "dist" / "index.html").exists():
        # the lobby is the installed template with its markers filled
        status, _, body = Web(d.http).get("/")
        tpl = (web / "index.html").read_bytes()
        head, _, rest = tpl.partition(b"<!--nav-->")
        assert status == 200 and rest and body.startswith(head)
        tail = rest.partition(b"<!--games-->")[2].partition(b"<!--feed-->")[2]
        assert b'<nav class="site">' in body and body.endswith(tail)


def _nginx_conf(t, site):
    return ("user root;\npid {t}/nginx.pid;\nerror_log {t}/error.log;\nevents {{}}\nhttp {{\n"
            "  access_log off;\n  client_body_temp_path {t}/body;\n  proxy_temp_path {t}/proxy;\n"
            "  fastcgi_temp_path {t}/fcgi;\n  uwsgi_temp_path {t}/uwsgi;\n"
            "  scgi_temp_path {t}/scgi;\n  include {t}/{site};\n}}\n").format(t=t, site=site)


def _https(port, request):
    import socket
    import ssl
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with ctx.wrap_socket(raw, server_hostname="warren.example.org") as s:
            s.sendall(request.encode())
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            return data


def test_nginx_proxies_http_and_websockets(start_daemon, tmp_path):
    """The site really runs: TLS on a free port, pages and a websocket
    upgrade reach warrend through it."""
    import time
    d = start_daemon(http=True)
    nginx = None
    try:
        t = tmp_path
        r = run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                 "-subj", "/CN=warren.example.org", "-keyout", t / "privkey.pem",
                 "-out", t / "fullchain.pem"])
        assert r.returncode == 0, r.stderr
        https, http = free_port(), free_port()
        site = (DEPLOY / "nginx" / "warren.conf").read_text()
        site = site.replace("/etc/letsencrypt/live/warren.example.org/", str(t) + "/")
        site = site.replace("server 127.0.0.1:8080;", "server 127.0.0.1:%d;" % d.http)
        site = site.replace("listen [::]:80;\n", "").replace("listen [::]:443 ssl;\n", "")
        site = site.replace("listen 80;", "listen 127.0.0.1:%d;" % http)
        site = site.replace("listen 443 ssl;", "listen 127.0.0.1:%d ssl;" % https)
        (t / "site.conf").write_text(site)
        (t / "nginx.conf").write_text(_nginx_conf(t, "site.conf"))
        nginx = subprocess.Popen([sbin("nginx"), "-p", str(t), "-e", str(t / "error.log"),
                                  "-c", str(t / "nginx.conf"), "-g", "daemon off;"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        host = "127.0.0.1:%d" % https
        end = time.time() + 10
        while True:
            try:
                page = _https(https, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % host)
                break
            except OSError:
                assert time.time() < end and nginx.poll() is None, (t / "error.log").read_text()
                time.sleep(0.1)
        assert page.startswith(b"HTTP/1.1 200"), page[:300]
        ws = _https(https, "GET /ws/lobby HTTP/1.1\r\nHost: %s\r\nOrigin: https://%s\r\n"
                    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
                    % (host, host))
        assert ws.startswith(b"HTTP/1.1 101"), ws[:300]
        assert b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" in ws  # the key's accept hash: warrend answered
    finally:
        if nginx:
            nginx.terminate()
            nginx.wait(10)


def test_node_template_unit(bindir, tmp_path):
    """warrend@.service: warrend.service with a config, a directory and a
    name per node, checked by systemd-analyze for instance 1."""
    unit = (DEPLOY / "warrend@.service").read_text()
    single = (DEPLOY / "warrend.service").read_text()
    assert "--config /usr/local/etc/warren/node-%i.conf" in unit
    assert "WorkingDirectory=/var/lib/warren/node-%i" in unit
    for key in ("CapabilityBoundingSet", "SystemCallFilter", "KillSignal", "TimeoutStopSec",
                "NoNewPrivileges", "ProtectSystem", "Restart", "RestrictNamespaces", "ProcSubset"):
        line = re.search(rf"^{key}=.*$", single, re.M).group(0)
        assert re.search(rf"^{re.escape(line)}$", unit, re.M), key
    exe = pathlib.Path(bindir) / "warrend"
    if not exe.exists():
        exe = pathlib.Path("/bin/true")
    (tmp_path / "warrend@.service").write_text(unit.replace("/usr/local/bin/warrend", str(exe)))
    r = run(["systemd-analyze", "verify", tmp_path / "warrend@1.service"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "warrend@" not in r.stderr, r.stderr


def test_haproxy_config(tmp_path):
    """deploy/haproxy.cfg as HAProxy reads it (haproxy -c), a certificate
    made here in place of the real one; telnet in TCP mode and the web in
    HTTP mode, both to every node with the PROXY protocol v2 and the
    nodes' /health as the check."""
    cert, key = tmp_path / "c.pem", tmp_path / "k.pem"
    r = run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
             "-subj", "/CN=warren.example.org", "-keyout", key, "-out", cert])
    assert r.returncode == 0, r.stderr
    (tmp_path / "warren.pem").write_text(cert.read_text() + key.read_text())
    cfg = (DEPLOY / "haproxy.cfg").read_text()
    for sec, mode in (("\nbackend warren_telnet", "tcp"), ("\nbackend warren_web", "http")):
        body = cfg.split(sec, 1)[1].split("\nbackend ", 1)[0].split("\nfrontend ", 1)[0]
        assert f"mode {mode}" in body, sec
        assert "option httpchk GET /health" in body, sec
        assert "send-proxy-v2" in body, sec
        assert len(re.findall(r"^\s+server ", body, re.M)) >= 2, sec
    local = cfg.replace("/etc/haproxy/warren.pem", str(tmp_path / "warren.pem"))
    local = local.replace("chroot /var/lib/haproxy", f"chroot {tmp_path}")
    (tmp_path / "haproxy.cfg").write_text(local)
    r = run([sbin("haproxy"), "-c", "-f", tmp_path / "haproxy.cfg"])
    assert r.returncode == 0, r.stdout + r.stderr

