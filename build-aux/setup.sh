#!/usr/bin/env bash
# Installs every Debian 12 package Plandeck needs to build, run and test.
# Idempotent: packages already present are left alone. Run as root (or with sudo).
set -euo pipefail

packages=(
  # build
  build-essential meson ninja-build pkg-config gettext
  libglib2.0-dev libglib2.0-bin libjson-glib-dev libsoup-3.0-dev libsqlite3-dev
  libgtk-4-dev libadwaita-1-dev libsecret-1-dev
  # running the GUI and its tests without a display
  xvfb xauth dbus-x11 dbus-daemon at-spi2-core adwaita-icon-theme fonts-cantarell
  # the ui tests draw with Cantarell and DejaVu alone (tests/ui/fonts.conf.in)
  fonts-dejavu-core
  # real pointer clicks through the X server (session-list/menu-leaves-row)
  xdotool
  # the keyring that keeps endpoint tokens, started on the secrets test's
  # private bus
  gnome-keyring
  # settings that outlive the process (window size, recent sources)
  dconf-gsettings-backend
  # validation and tests
  desktop-file-utils appstream python3
  # man pages (groff formats them in the data suite) and the shell
  # completions, tried in a real bash and a real zsh
  groff-base bash-completion zsh
  # the Flatpak manifest's offline check (flatpak-builder --show-manifest)
  flatpak-builder
  # proofs (tests/README.md): valgrind; clang with its compiler-rt
  # (libFuzzer, ASan and UBSan runtimes) for the fuzz targets
  valgrind clang libclang-rt-dev
  # the browser test (tests/test-webui-browser.mjs): Chromium, and node with
  # npm, which fetches the driver (playwright-core) into a cache on first use
  chromium nodejs npm
)

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

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
