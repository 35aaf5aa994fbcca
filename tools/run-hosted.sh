#!/bin/sh
# Starts warrend with Debian's NetHack (and Crawl, where Debian's crawl is
# installed) as hosted games beside Warren's own, every file of it in one
# private directory: what `make run-hosted` runs after the build.
#   tools/run-hosted.sh BIN_DIR RUN_DIR [warrend flags...]
# RUN_DIR gets warren.conf (written afresh each start from what is
# installed; flags given here override it), the database, the players'
# directories (games/: each holds its player's own NetHack playground,
# saves, level files and top ten, mounted over the playground in their
# game's box) and NetHack's playground (nethack/: its data linked from
# Debian's package, shared read-only by every game). Run as root,
# warrend becomes RUN_AS (default warren-local, a system user made here
# the first time) once it has forked its spawner, and the games run as
# warren-games (made by make deps): never as root. Run as anyone else,
# warrend and its games run as that user.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 BIN_DIR RUN_DIR [warrend flags...]" >&2; exit 2; }
bin=$1
dir=$2
shift 2
tree=$(cd "$(dirname "$0")/.." && pwd)
nh=/usr/lib/games/nethack
crawl=/usr/games/crawl
say() { echo "run-hosted: $*"; }
die() { echo "run-hosted: $*" >&2; exit 1; }
[ -x "$nh/nethack-console" ] || die "Debian's nethack-console is missing: run 'make deps' as root"

# Who runs what: as root, warrend drops to its own user and games run as
# another, so a game can never read the database.
if [ "$(id -u)" = 0 ]; then
  daemon_user=${RUN_AS:-warren-local}
  games_user=warren-games
  getent passwd "$games_user" >/dev/null || die "no user $games_user: run 'make deps' as root"
  if ! getent passwd "$daemon_user" >/dev/null; then
    [ "$daemon_user" = warren-local ] || die "RUN_AS=$daemon_user: no such user"
    useradd --system --user-group --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin --comment "Warren started by make run-hosted" warren-local
    say "created the system user warren-local (warrend runs as it)"
  fi
  [ "$(id -u "$daemon_user")" != 0 ] || die "RUN_AS=$daemon_user is root: give another user"
else
  daemon_user=$(id -un)
  games_user=$daemon_user
fi

# owner of a path: user:group of the given user
owner() { echo "$1:$(id -gn "$1")"; }

# The daemon's and the games' users must pass through every directory above
# RUN_DIR and the tree (web pages, content): add o+x (pass, not list) where
# it is missing, say so, and change nothing else.
let_pass() {
  p=$1
  while [ "$p" != / ] && [ -n "$p" ]; do
    if [ -d "$p" ] && ! [ "$(stat -c %A "$p" | cut -c10)" = x ] &&
       ! [ "$(stat -c %A "$p" | cut -c10)" = t ]; then
      chmod o+x "$p"
      say "let other users pass $p (chmod o+x): $daemon_user and $games_user need to"
    fi
    p=$(dirname "$p")
  done
}

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
pg=$dir/nethack
# RUN_DIR is the daemon's (its database, games/); the games' user may pass
install -d -m 0711 "$dir"
install -d -m 0755 "$pg" "$pg/save"
for f in nhdat symbols license; do ln -sfn "$nh/$f" "$pg/$f"; done
install -m 0644 "$tree/deploy/games/nethackrc" "$dir/nethackrc"
if [ "$(id -u)" = 0 ]; then
  chown "$(owner "$daemon_user")" "$dir"
  chown "$(owner "$games_user")" "$pg" "$pg/save"
  let_pass "$dir"
  let_pass "$tree" # the content and the web pages
  let_pass "$bin"
  [ -z "${WARREN_WEB_ROOT:-}" ] || let_pass "$WARREN_WEB_ROOT"
fi

conf=$dir/warren.conf
umask 022
{
  echo "# Written by tools/run-hosted.sh at each start: edit the script, not this."
  echo "db = $dir/warren.db"
  echo "games-dir = $dir/games"
  if [ "$(id -u)" = 0 ]; then
    echo "run-as = $daemon_user"
    echo "games-user = $games_user"
  fi
  echo "[game nethack]"
  echo "name = NetHack 3.6.6"
  echo "command = $nh/nethack-console -d $pg -u %u"
  echo "recover = $nh/recover -d $pg"
  echo "env = NETHACKOPTIONS=@%r"
  echo "rcfile = %d/nethackrc"
  echo "rc-default = $dir/nethackrc"
  echo "xlogfile = %d/playground/xlogfile"
  echo "playground = $pg"
  echo "playground-shared = nhdat symbols license"
  echo "playground-files = record logfile perm"
  echo "hangup-timeout = 10"
  printf '%s\n' 'status = Dlvl:(?<depth>\d+)(?:.*T:(?<turn>\d+))?'
  if [ -x "$crawl" ]; then
    install -m 0644 "$tree/deploy/games/crawlrc" "$dir/crawlrc"
    echo "[game crawl]"
    echo "name = Dungeon Crawl Stone Soup"
    echo "command = $crawl -name %u -rc %r -dir .crawl/"
    echo "rcfile = %d/crawlrc"
    echo "xlogfile = %d/.crawl/saves/logfile"
    printf '%s\n' 'status = Place: [^\n:]*:(?<depth>\d+)[\s\S]*?Time: (?<turn>\d+)'
    echo "rc-default = $dir/crawlrc"
    echo "hangup-timeout = 10"
  fi
} >"$conf.new"
mv "$conf.new" "$conf"

games="NetHack"
[ -x "$crawl" ] && games="NetHack and Crawl"
say "$games beside Warren's own game; everything in $dir"
say "telnet 127.0.0.1 2323, http://127.0.0.1:8080/ unless flags say otherwise; Ctrl-C stops"
exec "$bin/warrend" --config "$conf" "$@"
