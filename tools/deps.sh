#!/bin/sh
# Installs every Debian package Warren needs to build, run and test, and
# the system user hosted games run as (warren-games: games-user's default).
# Run as root. Skips what is present; runs apt-get update at most once.
set -eu
PKGS="make gcc clang libclang-rt-14-dev pkg-config check
libuv1-dev libsqlite3-dev sqlite3 liblua5.4-dev libsodium-dev zlib1g-dev
libbsd-dev libtelnet-dev libwebsockets-dev libwebsockets-evlib-uv libvterm-dev libcap-dev libpcre2-dev libseccomp-dev
python3 python3-pytest python3-pytest-xdist python3-pyte python3-pexpect telnet tmux iproute2 strace nethack-console crawl
openssh-server openssh-client nginx-light systemd chromium nodejs npm
libpq-dev postgresql python3-psycopg2 haproxy"
missing=""
for p in $PKGS; do
  st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case "$st" in *"install ok installed"*) ;; *) missing="$missing $p" ;; esac
done
# node and npm may come from outside Debian; accept any working pair.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  missing=$(echo "$missing" | tr ' ' '\n' | grep -vx -e nodejs -e npm | tr '\n' ' ')
fi
missing=$(echo $missing)

# Hosted games never run as root: a root warrend starts them as this user
# (no home, no login), and its player directories belong to it.
games_user() {
  getent passwd warren-games >/dev/null && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "deps: no user warren-games: run 'make deps' as root to create it" >&2
    return 0
  fi
  getent group warren-games >/dev/null || groupadd --system warren-games
  useradd --system --gid warren-games --no-create-home --home-dir /nonexistent \
          --shell /usr/sbin/nologin --comment "Warren hosted games" warren-games
  echo "deps: created the system user warren-games"
}
games_user

# The PostgreSQL backend's tests start a private cluster (initdb, pg_ctl),
# which refuses to run as root: they run it as this user.
pg_user() {
  getent passwd warren-pg >/dev/null && return 0
  [ "$(id -u)" = 0 ] || return 0
  getent group warren-pg >/dev/null || groupadd --system warren-pg
  useradd --system --gid warren-pg --no-create-home --home-dir /nonexistent \
          --shell /usr/sbin/nologin --comment "Warren test PostgreSQL" warren-pg
  echo "deps: created the system user warren-pg"
}
pg_user

if [ -z "$missing" ]; then echo "deps: all present"; exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "deps: missing packages: $missing" >&2
  echo "deps: run 'make deps' as root to install them" >&2
  exit 1
fi
echo "deps: installing $missing"
export DEBIAN_FRONTEND=noninteractive
# Warren's tests start their own PostgreSQL clusters: the package need not
# make and start a system-wide one (an operator makes theirs on purpose).
case " $missing " in *" postgresql "*)
  if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
    mkdir -p /etc/postgresql-common
    echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf
  fi ;;
esac
apt-get update -q
apt-get install -y -q --no-install-recommends -o Dpkg::Options::=--force-confold $missing
