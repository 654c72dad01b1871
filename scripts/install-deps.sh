#!/usr/bin/env bash
# Installs fathom's build, test and benchmark dependencies from Debian 12 packages.
# Idempotent: only missing packages are installed. Needs root (or sudo).
# postgresql-15 is for the tests, which start their own servers (tests/support/postgres_server.h)
# as its `postgres` account when run as root; the cluster the package starts on port 5432 is
# never used.
set -euo pipefail

packages=(
  build-essential cmake pkg-config ninja-build
  libcli11-dev nlohmann-json3-dev libspdlog-dev libfmt-dev libsqlite3-dev sqlite3 libzstd-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev lld
  inotify-tools fswatch watchman python3-watchdog
  libfuse3-dev fuse3 attr
  libzmq3-dev cppzmq-dev libnats-dev nats-server python3-zmq libyaml-cpp-dev libmimalloc-dev
  libpq-dev postgresql-15 libssl-dev openssl libcurl4-openssl-dev libcpp-httplib-dev prometheus-cpp-dev
  procps time util-linux e2fsprogs help2man
  openmpi-bin libopenmpi-dev python3-numpy strace
  libhdf5-dev libhdf5-openmpi-dev python3-h5py hdf5-tools python3-pytest ltrace
  bfs
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "fathom: installing missing packages: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The web pages' browser test: chromium, node and web/node_modules.
bash "$(dirname "$0")/install-web-deps.sh"
