#!/usr/bin/env bash
# Installs the Debian 12 packages Plandeck needs.
#
#   bash build-aux/setup.sh run    to build and run it (dev.sh run)
#   bash build-aux/setup.sh        to build, run and test it (dev.sh test)
#
#   bash build-aux/setup.sh --list [run|test]     prints the mode's packages
#   bash build-aux/setup.sh --dry-run [run|test]  says what it would install
#
# Idempotent: packages already present are left alone. Run as root (or with sudo).
set -euo pipefail

action=install
case "${1:-}" in
  --list|--dry-run) action="${1#--}"; shift ;;
esac
if [ $# -gt 1 ]; then
  echo "setup: one mode at most (run or test), not '$*'" >&2
  exit 2
fi
mode="${1:-test}"
case "$mode" in
  run|test) ;;
  *) echo "setup: unknown mode '$mode' (run or test)" >&2; exit 2 ;;
esac

packages=(
  # build
  build-essential meson ninja-build pkg-config gettext
  libglib2.0-dev libglib2.0-bin libjson-glib-dev libsoup-3.0-dev libsqlite3-dev
  libgtk-4-dev libadwaita-1-dev libsecret-1-dev
  # running the GUI (on a virtual display when there is none)
  xvfb xauth dbus-x11 dbus-daemon at-spi2-core adwaita-icon-theme fonts-cantarell
  # the keyring that keeps endpoint tokens (the secrets test starts it on its
  # private bus)
  gnome-keyring
  # settings that outlive the process (window size, recent sources)
  dconf-gsettings-backend
)
# Only the tests need the rest: running the app installed the test stack too
# (a browser, node, clang, valgrind; tried as a new user would).
[ "$mode" = run ] || packages+=(
  # the ui tests draw with Cantarell and DejaVu alone (tests/ui/fonts.conf.in)
  fonts-dejavu-core
  # real pointer clicks through the X server (session-list/menu-leaves-row)
  xdotool
  # validation and tests
  desktop-file-utils appstream python3
  # man pages (groff formats them in the data suite) and the shell
  # completions, tried in a real bash and a real zsh; a copied resume line is
  # run in bash, zsh and fish (tests/test-resume-paste.c)
  groff-base bash-completion zsh fish
  # the Flatpak manifest's offline check (flatpak-builder --show-manifest)
  flatpak-builder
  # proofs (tests/README.md): clang with its compiler-rt (libFuzzer, ASan
  # and UBSan runtimes) for the sanitizer run and the fuzz targets;
  # valgrind for `dev.sh valgrind`
  valgrind clang libclang-rt-dev
  # the browser test (tests/test-webui-browser.mjs): Chromium, and node with
  # npm, which fetches the driver (playwright-core) into a cache on first use
  chromium nodejs npm
)

if [ "$action" = list ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  # Node.js from NodeSource (a common install) carries its own npm and
  # conflicts with Debian's npm package: an npm on the PATH is enough.
  if [ "$p" = npm ] && command -v npm >/dev/null; then
    continue
  fi
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages are installed"
  exit 0
fi

if [ "$action" = dry-run ]; then
  echo "setup: would install ${missing[*]}"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "setup: these packages are missing: ${missing[*]}" >&2
    echo "setup: installing them needs root, and sudo is not installed: run" \
         "'bash build-aux/setup.sh $mode' as root (su -), then this again" >&2
    exit 1
  fi
  SUDO="sudo"
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
