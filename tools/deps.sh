#!/bin/sh
# Installs the Debian packages elog-tui needs to build, test and run (and any extra
# package names given as arguments). mandoc lints the man page and zsh runs the zsh
# completion in the suite. Uses sudo when not root. Safe to re-run.
set -eu
packages="build-essential pkg-config libncurses-dev libtickit-dev check tmux mandoc zsh $*"
missing=""
for p in $packages; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q $missing
