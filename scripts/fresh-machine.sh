#!/usr/bin/env bash
# Runs a command as on a fresh machine: with the optional system tools (the sandbox, container,
# queue, browser and workspace-mode packages that `npm test` installs) out of PATH's reach, so
# that a step which needs one of them without saying so fails here too. Each PATH directory that
# holds one of them is replaced by a directory of symlinks to everything else in it; the others
# stay as they are (a toolchain on PATH, pyenv's shims say, is still found where it lives).
# The quick start must work this way: .ci/run runs `npm run demo` through it.
# Usage: bash scripts/fresh-machine.sh COMMAND [ARGS...]
set -euo pipefail

# The programs that the Debian packages of scripts/test.sh put on PATH.
OPTIONAL=" bwrap podman runc crun conmon docker redis-server redis-cli chromium chromium-browser \
fuse-overlayfs fusermount fusermount3 mkfs.xfs debootstrap pytest pytest-3 py.test "

[ $# -gt 0 ] || { echo "usage: bash scripts/fresh-machine.sh COMMAND [ARGS...]" >&2; exit 2; }
# Not under /tmp: the sandboxes give agents and test suites a private /tmp, where a PATH directory
# of the host would not be found (under /var/tmp it is a toolchain directory, seen read-only).
farm=$(mktemp -d /var/tmp/nanobench-fresh-path.XXXXXX)
trap 'rm -rf "$farm"' EXIT
# Agents may run as nobody (none-as-nobody): the directories must be searchable by them too.
chmod 755 "$farm"
has_optional() {
  for name in $OPTIONAL; do [ -e "$1/$name" ] && return 0; done
  return 1
}
path=
n=0
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  [ -d "$d" ] || continue
  if has_optional "$d"; then
    n=$((n + 1))
    mkdir -m 755 "$farm/$n"
    ln -s "$d"/* "$farm/$n/"
    for name in $OPTIONAL; do rm -f "$farm/$n/$name"; done
    d=$farm/$n
  fi
  path=${path:+$path:}$d
done
set +e
PATH=$path "$@"
rc=$?
exit "$rc"
