#!/bin/sh
# Installs Warren: `make install [PREFIX=/usr/local] [DESTDIR=] [B=.]`.
#   $PREFIX/bin/{warrend,warren,warren-admin,warren-engine}
#   $PREFIX/share/warren/{content,web}          game content, web assets
#   $PREFIX/share/warren/{sshd,nginx}/warren.conf, warren.conf.sample
#   $PREFIX/lib/systemd/system/warrend.service, warrend@.service (nodes)
#   $PREFIX/share/warren/haproxy.cfg            HAProxy in front of nodes
#   $SYSCONFDIR/warren/warren.conf              (kept if it already exists)
#   $PREFIX/share/doc/warren/RUNNING.md
# Paths inside the unit, the sshd snippet and the config are rewritten for
# PREFIX/SYSCONFDIR. Into the real system (no DESTDIR) as root it also
# creates the system user hosted games run as, warren-games (no home, no
# login); the other accounts and the start are RUNNING.md's.
set -eu

B=${B:-.}
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
if [ -z "${SYSCONFDIR:-}" ]; then
  if [ "$PREFIX" = /usr ]; then SYSCONFDIR=/etc; else SYSCONFDIR=$PREFIX/etc; fi
fi
BIN=$B/bin
SRC=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$DESTDIR$PREFIX
SHARE=$ROOT/share/warren

die() { echo "install: $*" >&2; exit 1; }
say() { echo "install: $*"; }

# The text files name /usr/local; point them at the real places.
fix_paths() {
  sed -e "s|/usr/local/etc/warren|$SYSCONFDIR/warren|g" \
      -e "s|/usr/local|$PREFIX|g" "$1"
}

install_text() { # src dest mode
  mkdir -p "$(dirname "$2")"
  fix_paths "$1" > "$2.tmp"
  chmod "$3" "$2.tmp"
  mv "$2.tmp" "$2"
  say "$2"
}

for p in warrend warren; do
  [ -x "$BIN/$p" ] || die "$BIN/$p is missing: run make (or make B=$B) first"
done

mkdir -p "$ROOT/bin"
for p in warrend warren warren-admin warren-engine; do
  [ -x "$BIN/$p" ] || continue
  install -m 0755 "$BIN/$p" "$ROOT/bin/$p"
  say "$ROOT/bin/$p"
done

# Content and web assets: replaced as a whole so removed files go away.
mkdir -p "$SHARE"
rm -rf "$SHARE/content"
if [ -d "$SRC/game/content" ]; then
  cp -R "$SRC/game/content" "$SHARE/content"
else
  mkdir -p "$SHARE/content" # content still built into warrend: nothing to copy
fi
say "$SHARE/content"
if [ -d "$SRC/client-web/dist" ]; then
  rm -rf "$SHARE/web"
  cp -R "$SRC/client-web/dist" "$SHARE/web"
  say "$SHARE/web"
else
  say "no client-web/dist (web client not built): skipping web assets"
fi

install_text "$SRC/deploy/warrend.service" "$ROOT/lib/systemd/system/warrend.service" 0644
install_text "$SRC/deploy/warrend@.service" "$ROOT/lib/systemd/system/warrend@.service" 0644
install_text "$SRC/deploy/haproxy.cfg" "$SHARE/haproxy.cfg" 0644
install_text "$SRC/deploy/sshd/warren.conf" "$SHARE/sshd/warren.conf" 0644
install_text "$SRC/deploy/nginx/warren.conf" "$SHARE/nginx/warren.conf" 0644
install_text "$SRC/deploy/warren.conf" "$SHARE/warren.conf.sample" 0644
for f in nethack.conf nethackrc crawl.conf crawlrc; do
  install_text "$SRC/deploy/games/$f" "$SHARE/games/$f" 0644
done
install_text "$SRC/deploy/RUNNING.md" "$ROOT/share/doc/warren/RUNNING.md" 0644

CONF=$DESTDIR$SYSCONFDIR/warren/warren.conf
if [ -e "$CONF" ]; then
  say "$CONF exists: kept (new sample in $SHARE/warren.conf.sample)"
else
  install_text "$SRC/deploy/warren.conf" "$CONF" 0644
fi

# Hosted games never run as root: the user they run as (games-user).
if [ -z "$DESTDIR" ] && [ "$(id -u)" = 0 ] && ! getent passwd warren-games >/dev/null; then
  getent group warren-games >/dev/null || groupadd --system warren-games
  useradd --system --gid warren-games --no-create-home --home-dir /nonexistent \
          --shell /usr/sbin/nologin --comment "Warren hosted games" warren-games
  say "created the system user warren-games"
fi
