#!/usr/bin/env bash
# Build the Dockerfile's base image (debian:bookworm-slim) from Debian's own packages, when no
# container registry can be reached: debootstrap's minimal bookworm, imported into podman.
# Skipped when the image is already there. MIRROR picks the Debian mirror (apt's own by default).
set -euo pipefail
image=${BASE_IMAGE:-debian:bookworm-slim}
if podman image exists "$image"; then
  echo "Base image $image: already built"
  exit 0
fi
mirror=${MIRROR:-$( (grep -rhoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null || true) | head -1 | tr -d ' ')}
mirror=${mirror:-http://deb.debian.org/debian}
root=$(mktemp -d /tmp/companion-rootfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
echo "Base image $image: debootstrap --variant=minbase bookworm from $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >/dev/null
# As Docker's slim image: no apt caches, no man pages.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/man/* "$root"/usr/share/doc/*
echo "deb $mirror bookworm main" > "$root/etc/apt/sources.list"
tar -C "$root" -c . | podman import --change 'CMD ["bash"]' - "$image" >/dev/null
echo "Base image $image: imported"
