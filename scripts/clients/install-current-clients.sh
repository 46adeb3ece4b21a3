#!/usr/bin/env bash
# The torrent clients people run today, for the client tests, beside Debian 12's own packages.
#
# Debian 12 (bookworm) ships qBittorrent 4.5.2, Transmission 3.00 and Deluge 2.0.3; the tests also
# need today's releases. This script makes a small Debian 13 (trixie) root with debootstrap, prefers
# trixie-backports in it, and installs there:
#
#   qBittorrent 5.3.x   (trixie-backports)              bin/qbittorrent-nox
#   qBittorrent 5.1.x   (trixie's own .deb, unpacked    bin/qbittorrent-nox-5.1
#                        into /opt/qbittorrent-5.1 of the same root; it uses the root's libraries)
#   Transmission 4.1.x  (trixie-backports: trixie's own 4.1.0-beta.2 crashes on a malformed
#                        torrent)                       bin/transmission-daemon
#   Deluge 2.2.x        (trixie)                        bin/deluged (= deluged-quiet, below), bin/deluge-web
#   rTorrent 0.16.x     (forky, Debian's testing: trixie's own is bookworm's 0.9.8; pinned so that
#                        nothing else comes from forky)  bin/rtorrent
#
# The wrappers in bin/ run each program inside the root (unshare + chroot, see bin/run-in-root);
# nothing is installed on the host except debootstrap when it is missing.
#
#   install-current-clients.sh [--check] [--update] [TARGET_DIR]
#     TARGET_DIR  default ${XDG_CACHE_HOME:-$HOME/.cache}/reseed-lens/clients-trixie
#     --check     only check: exit 0 when the root is complete, 3 when it is not (nothing written)
#     --update    fetch the package lists again and upgrade what is in the root
#
# Idempotent: when TARGET_DIR/.complete names this recipe and every program is in place, the script
# writes nothing and only prints the versions (a few seconds). An interrupted first run leaves
# root.partial behind, which the next run deletes and redoes.
#
# Needs root: debootstrap, chroot and the private mounts do. Size ~380 MB; first run 2-4 minutes.
# Mirror: the Debian archive named by the host's apt sources, or DEBIAN_MIRROR.
set -euo pipefail

# Bump when the steps below change, so that existing roots are brought up to the new recipe.
RECIPE=reseed-lens-clients-4
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd -P)
SELF=${0##*/}
fail() { echo "$SELF: $*" >&2; exit 1; }
say() { echo "$SELF: $*" >&2; }

CHECK=0
UPDATE=0
TARGET=
for arg in "$@"; do
  case $arg in
    --check) CHECK=1 ;;
    --update) UPDATE=1 ;;
    -h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) fail "unknown option $arg (see --help)" ;;
    *) [ -z "$TARGET" ] || fail "one TARGET_DIR only"; TARGET=$arg ;;
  esac
done
TARGET=${TARGET:-${XDG_CACHE_HOME:-${HOME:?HOME is not set}/.cache}/reseed-lens/clients-trixie}
ROOT=$TARGET/root
BIN=$TARGET/bin
DONE=$TARGET/.complete

# The programs the tests start, each with the wrapper that runs it and its path inside the root.
PACKAGES="qbittorrent-nox transmission-daemon deluged deluge-web"
# Today's rTorrent is only in forky (testing); it comes from there, alone.
FORKY_PACKAGES="rtorrent"
QBT51_DIR=/opt/qbittorrent-5.1

versions() {
  # "package version" for each installed package of the root, the unpacked 5.1 last.
  dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f '${db:Status-Status} ${Package} ${Version}\n' $PACKAGES $FORKY_PACKAGES 2>/dev/null |
    awk '$1 == "installed" { print $2, $3 }'
  [ ! -f "$ROOT$QBT51_DIR/VERSION" ] || echo "qbittorrent-nox-5.1 $(cat "$ROOT$QBT51_DIR/VERSION")"
}

complete() {
  [ -f "$DONE" ] && [ "$(cat "$DONE")" = "$RECIPE" ] || return 1
  for w in run-in-root qbittorrent-nox qbittorrent-nox-5.1 transmission-daemon deluged deluge-web rtorrent; do
    [ -x "$BIN/$w" ] || return 1
  done
  for f in usr/bin/qbittorrent-nox "${QBT51_DIR#/}/usr/bin/qbittorrent-nox" usr/bin/transmission-daemon \
           usr/local/bin/deluged-quiet usr/bin/deluge-web usr/bin/rtorrent; do
    [ -x "$ROOT/$f" ] || return 1
  done
  # The Deluge launcher is this folder's file: a newer one is written in (only that is redone).
  cmp -s "$ROOT/usr/local/bin/deluged-quiet" "$HERE/deluged-quiet.py" || return 1
  [ "$(versions | wc -l)" -eq 6 ]
}

report() {
  echo "clients root: $ROOT"
  versions | sed 's/^/  /'
}

if [ "$CHECK" = 1 ]; then
  if complete; then report; exit 0; fi
  echo "$SELF: no complete clients root at $TARGET" >&2
  exit 3
fi
if [ "$UPDATE" = 0 ] && complete; then
  report
  exit 0
fi

[ "$(id -u)" = 0 ] || fail "must run as root (debootstrap, chroot and mount need it): sudo $0 $TARGET"
for tool in unshare chroot mount flock dpkg-query dpkg-deb; do
  command -v "$tool" >/dev/null || fail "'$tool' is missing (util-linux, coreutils and dpkg have it)"
done
mkdir -p "$TARGET"
TARGET=$(cd "$TARGET" && pwd -P)
ROOT=$TARGET/root
BIN=$TARGET/bin
DONE=$TARGET/.complete
[ "$TARGET" != / ] || fail "TARGET_DIR must not be /"

# Two test runs starting at once: the second waits for the first and then finds the root complete.
exec 8>>"$TARGET/.lock"
flock -w 1200 8 || fail "another installer holds $TARGET/.lock"
if [ "$UPDATE" = 0 ] && complete; then report; exit 0; fi

# Never delete through a mount: a bind mount of /dev or /tmp left inside would take the host's files.
refuse_mounts_under() {
  local mp
  while read -r _ _ _ _ mp _; do
    mp=$(printf '%b' "$mp")
    case $mp in "$1"|"$1"/*) fail "$mp is mounted inside $1; unmount it first" ;; esac
  done </proc/self/mountinfo
}
refuse_mounts_under "$TARGET"

# The mirror the host's apt uses (sources.list and deb822 files alike), unless DEBIAN_MIRROR says.
host_mirror() {
  apt-get indextargets --no-release-info --format '$(TARGET_OF) $(REPO_URI) $(RELEASE)' 2>/dev/null |
    awk -v want="$1" '$1 == "deb" && $3 ~ want { print $2; exit }'
}
MIRROR=${DEBIAN_MIRROR:-$(host_mirror '^[a-z]+$')}
MIRROR=${MIRROR:-http://deb.debian.org/debian/}
MIRROR=${MIRROR%/}/
SECURITY=${DEBIAN_SECURITY_MIRROR-$(host_mirror '-security$')}
SECURITY=${SECURITY:+${SECURITY%/}/}
PROXY=$(apt-config dump 2>/dev/null | sed -n 's/^Acquire::http::Proxy "\(.*\)";$/\1/p' | head -n1) || PROXY=
case $PROXY in DIRECT|false) PROXY= ;; esac
[ -z "$PROXY" ] || export http_proxy=${http_proxy:-$PROXY}

# ------------------------------------------------------------------ 1. a minimal trixie root
if [ ! -f "$ROOT/.debootstrap-done" ]; then
  if ! command -v debootstrap >/dev/null; then
    say "installing debootstrap on the host"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null ||
      { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null; } ||
      fail "cannot install debootstrap"
  fi
  [ -e /usr/share/debootstrap/scripts/trixie ] || fail "this debootstrap does not know trixie; install a newer one"
  rm -rf "$TARGET/root.partial" "$ROOT" "$DONE"
  say "debootstrap trixie from $MIRROR (takes a minute or two)"
  started=$SECONDS
  # A private mount namespace: the /proc and /sys debootstrap mounts go away with it, even on Ctrl-C.
  if ! unshare --mount --propagation private -- debootstrap --variant=minbase \
      --keyring=/usr/share/keyrings/debian-archive-keyring.gpg trixie "$TARGET/root.partial" "$MIRROR" \
      >"$TARGET/debootstrap.log" 2>&1; then
    tail -n 20 "$TARGET/debootstrap.log" >&2
    fail "debootstrap failed (log: $TARGET/debootstrap.log)"
  fi
  rm -f "$TARGET/root.partial/var/cache/apt/archives/"*.deb
  touch "$TARGET/root.partial/.debootstrap-done"
  mv "$TARGET/root.partial" "$ROOT"
  say "debootstrap took $((SECONDS - started)) s"
fi

# ------------------------------------------------------------------ 2. files written into the root
put() {  # put PATH MODE CONTENT: write only when different, so that a re-run changes nothing
  if [ -f "$1" ] && [ "$(cat "$1"; echo .)" = "$3." ]; then chmod "$2" "$1"; return; fi
  mkdir -p "$(dirname "$1")"
  printf '%s' "$3" >"$1.new"
  chmod "$2" "$1.new"
  mv -f "$1.new" "$1"
}

sources="deb $MIRROR trixie main
deb $MIRROR trixie-updates main
deb $MIRROR trixie-backports main
"
[ -z "$SECURITY" ] || sources+="deb $SECURITY trixie-security main
"
put "$ROOT/etc/apt/sources.list" 644 "$sources"
# forky only for FORKY_PACKAGES (and what they need): below trixie's 500, so apt never picks it by
# itself. A mirror's copy of testing can be older than its Valid-Until; that is no reason to fail.
put "$ROOT/etc/apt/sources.list.d/forky.list" 644 "deb [check-valid-until=no] $MIRROR forky main
"
put "$ROOT/etc/apt/preferences.d/90reseed-lens-forky" 644 'Package: *
Pin: release n=forky
Pin-Priority: 100
'
put "$ROOT/etc/apt/apt.conf.d/90reseed-lens" 644 "APT::Install-Recommends \"false\";
APT::Install-Suggests \"false\";
Acquire::Languages \"none\";
${PROXY:+Acquire::http::Proxy \"$PROXY\";
}"
put "$ROOT/etc/dpkg/dpkg.cfg.d/90reseed-lens" 644 'path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
force-unsafe-io
'
# Package scripts must not start services in the root.
put "$ROOT/usr/sbin/policy-rc.d" 755 '#!/bin/sh
exit 101
'
put "$ROOT/etc/hosts" 644 '127.0.0.1	localhost
::1	localhost ip6-localhost ip6-loopback
'
# Deluge creates its libtorrent session with libtorrent's defaults and only then applies core.conf:
# in its first milliseconds it sends UPnP (SSDP multicast), asks the gateway for a NAT-PMP mapping,
# looks up the DHT bootstrap hosts and joins the LSD group, whatever core.conf says. This starts the
# same daemon with a session that is created with those four off; core.conf keeps them off after.
# The same launcher the tests use for the host's own deluged (one file for both).
quiet=$(cat "$HERE/deluged-quiet.py"; echo .)  # the dot keeps its last newline
put "$ROOT/usr/local/bin/deluged-quiet" 755 "${quiet%.}"

# ------------------------------------------------------------------ 3. wrappers on the host side
# run-in-root enters the root in a private mount namespace, so its bind mounts never show on the
# host and vanish with the last process. Each step execs the next: the PID a test starts is the
# daemon's PID, and killing it ends the daemon.
put "$BIN/run-in-root" 755 '#!/bin/sh
# run-in-root COMMAND [ARG...]: COMMAND inside the Debian root beside this folder.
# /proc, /dev, /tmp, $TMPDIR and the folders in $CLIENTS_BIND (colon-separated) are bind-mounted at
# the same paths; the working directory is kept when it exists inside. Written by reseed-lens.
set -eu
root=$(cd "$(dirname "$(readlink -f "$0")")/../root" 2>/dev/null && pwd -P) ||
  { echo "run-in-root: the clients root is missing; run scripts/clients/install-current-clients.sh" >&2; exit 127; }
[ "$(id -u)" = 0 ] || { echo "run-in-root: must run as root (chroot and mount need it)" >&2; exit 126; }
exec unshare --mount --propagation private -- /bin/sh -c '\''
set -eu
root=$1; shift
bind_same() {
  case $1 in /*) ;; *) return 0 ;; esac
  case $1 in /|/tmp|/tmp/*|/proc|/proc/*|/dev|/dev/*) return 0 ;; esac
  [ -d "$1" ] || return 0
  # The mount point must stay inside the root (an absolute symlink there would lead out of it).
  probe=$root$1
  while [ ! -e "$probe" ] && [ ! -L "$probe" ]; do probe=${probe%/*}; done
  case $(cd "$probe" 2>/dev/null && pwd -P) in "$root"|"$root"/*) ;; *) return 0 ;; esac
  mkdir -p "$root$1"
  mount --rbind "$1" "$root$1"
}
mount --rbind /proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --rbind /tmp "$root/tmp"
[ -z "${TMPDIR:-}" ] || bind_same "$(readlink -f "$TMPDIR")"
IFS=:
for dir in ${CLIENTS_BIND:-}; do [ -z "$dir" ] || bind_same "$(readlink -f "$dir")"; done
unset IFS
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 LC_ALL=C.UTF-8
exec chroot "$root" /bin/sh -c "cd \"\$1\" 2>/dev/null || cd /; shift; exec \"\$@\"" sh "$PWD" "$@"
'\'' run-in-root "$root" "$@"
'
wrap() {  # wrap NAME PATH-IN-ROOT
  put "$BIN/$1" 755 "#!/bin/sh
# $1: $2 inside the clients root (see run-in-root). Written by reseed-lens.
exec \"\$(dirname \"\$(readlink -f \"\$0\")\")/run-in-root\" $2 \"\$@\"
"
}
wrap qbittorrent-nox /usr/bin/qbittorrent-nox
wrap qbittorrent-nox-5.1 $QBT51_DIR/usr/bin/qbittorrent-nox
wrap transmission-daemon /usr/bin/transmission-daemon
wrap deluged /usr/local/bin/deluged-quiet
wrap deluge-web /usr/bin/deluge-web
wrap rtorrent /usr/bin/rtorrent

# ------------------------------------------------------------------ 4. packages
export DEBIAN_FRONTEND=noninteractive
say "installing $PACKAGES (trixie-backports preferred)"
started=$SECONDS
log=$TARGET/apt.log
"$BIN/run-in-root" apt-get -q update >"$log" 2>&1 || { tail -n 20 "$log" >&2; fail "apt-get update failed in the root (log: $log)"; }
"$BIN/run-in-root" apt-get -q -y -t trixie-backports -o Dpkg::Options::=--force-confold install $PACKAGES >>"$log" 2>&1 ||
  { tail -n 20 "$log" >&2; fail "apt-get install failed in the root (log: $log)"; }
"$BIN/run-in-root" apt-get -q -y -o Dpkg::Options::=--force-confold install $(printf '%s/forky ' $FORKY_PACKAGES) >>"$log" 2>&1 ||
  { tail -n 20 "$log" >&2; fail "apt-get install from forky failed in the root (log: $log)"; }

# qBittorrent 5.1: trixie's own package, unpacked beside the installed 5.3 (dpkg cannot hold two
# versions of one package). Its libraries are the ones the 5.3 package brought in.
qbt51=$("$BIN/run-in-root" apt-cache madison qbittorrent-nox |
  awk -F' *[|] *' '$3 ~ / trixie\/main / { print $2; exit }')
[ -n "$qbt51" ] || fail "trixie names no qbittorrent-nox of its own (apt-cache madison; log: $log)"
if [ "$(cat "$ROOT$QBT51_DIR/VERSION" 2>/dev/null)" != "$qbt51" ]; then
  rm -rf "$ROOT/var/tmp/qbt51" "$ROOT$QBT51_DIR"
  mkdir -p "$ROOT/var/tmp/qbt51"
  "$BIN/run-in-root" sh -c "cd /var/tmp/qbt51 && apt-get -q download qbittorrent-nox=$qbt51" >>"$log" 2>&1 ||
    { tail -n 20 "$log" >&2; fail "cannot download qbittorrent-nox $qbt51 (log: $log)"; }
  dpkg-deb -x "$ROOT"/var/tmp/qbt51/qbittorrent-nox_*.deb "$ROOT$QBT51_DIR"
  rm -rf "$ROOT/var/tmp/qbt51"
  echo "$qbt51" >"$ROOT$QBT51_DIR/VERSION"
fi
"$BIN/run-in-root" apt-get clean >>"$log" 2>&1 || true
# The lists (~60 MB) only matter while installing; --update fetches them again.
find "$ROOT/var/lib/apt/lists" -type f -delete
say "packages took $((SECONDS - started)) s"

# The programs must start: --version through the wrappers, with HOME in a throw-away folder
# (qBittorrent writes its config folders even for --version).
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
for w in qbittorrent-nox qbittorrent-nox-5.1 transmission-daemon deluged deluge-web rtorrent; do
  flag=--version
  [ "$w" != rtorrent ] || flag=-h  # rTorrent has no --version; -h prints it first
  HOME=$home "$BIN/$w" $flag </dev/null >"$home/out" 2>&1 || { cat "$home/out" >&2; fail "$w $flag failed"; }
  say "  $(grep -v '^\s*$' "$home/out" | head -n1)"
done

put "$DONE" 644 "$RECIPE"
report
