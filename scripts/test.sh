#!/usr/bin/env bash
# `npm test`: the full suite, on a fresh machine too. Sets up what the tests need from the system,
# then builds, type-checks (sources and tests), lints and runs vitest; arguments go to vitest.
# As root with apt (CI, every machine here) missing packages are installed; otherwise each missing
# piece is named with the command that installs it. Redis is private to this run: a free port of
# 127.0.0.1, nothing persisted, stopped when the script ends. `npm run test:unit` needs none of it.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "npm test: $*" >&2; }
is_root() { [ "$(id -u)" = 0 ]; }
# What to undo when the script ends, however it ends (the private Redis, the suite's temp dirs).
at_exit=()
on_exit() { for step in "${at_exit[@]}"; do "$step" || true; done; }
trap on_exit EXIT

# What the tests need, and the Debian package that provides it:
#   redis-server    the queue tests (test/queue, test/e2e/distributed) against a real Redis
#   chromium        the HTML report opened in a browser (test/e2e/html-report)
#   bubblewrap      the agent sandbox (--sandbox bwrap: test/sandbox, test/e2e/adversarial)
#   python3-pytest  a pytest variant of an example task (test/e2e/adversarial)
#   fuse-overlayfs  as root: workspaces made with --provision fuse-overlayfs (test/workspace/layers)
#   xfsprogs        as root: an XFS image for --provision reflink (ext4 cannot share blocks)
#   podman, runc    the container sandbox (--sandbox podman: test/e2e/containers, judge,
#                   harbor-export, adversarial); runc because crun refuses cgroup v1 hosts
#   debootstrap     the local base image of those tests (scripts/test-image.sh): no image
#                   registry is reachable, so it is made from Debian's packages
# No npm package stands in for these here: the npm Redis servers wrap the system's redis-server or
# download Redis's sources to build (only npm and Debian are reachable), the npm Chromium builds
# either download the browser at install time (playwright, puppeteer) or are made for AWS Lambda and
# unpack their libraries only there (@sparticuz/chromium), and bwrap and pytest have none.
find_chromium() {
  if [ -n "${NANOBENCH_TEST_CHROMIUM:-}" ]; then echo "$NANOBENCH_TEST_CHROMIUM"; return; fi
  command -v chromium || command -v chromium-browser || true
}
missing_packages() {
  command -v redis-server >/dev/null || echo "redis-server:the queue tests need a Redis"
  [ -n "$(find_chromium)" ] || echo "chromium:the HTML report test opens the report in Chromium"
  command -v bwrap >/dev/null || echo "bubblewrap:the sandbox tests need bwrap"
  python3 -c 'import pytest' 2>/dev/null || echo "python3-pytest:a test task runs pytest"
  # The provisioning modes that need root to be tested at all (mounts, a loop device).
  if is_root; then
    command -v fuse-overlayfs >/dev/null ||
      echo "fuse-overlayfs:the provisioning tests mount fuse-overlayfs workspaces"
    command -v mkfs.xfs >/dev/null || echo "xfsprogs:the reflink provisioning test makes an XFS image"
  fi
  command -v podman >/dev/null || echo "podman:the container sandbox tests need podman"
  command -v runc >/dev/null || echo "runc:podman runs containers with runc here"
  command -v debootstrap >/dev/null || echo "debootstrap:the container tests build their base image"
}

missing=$(missing_packages)
if [ -n "$missing" ]; then
  packages=$(cut -d: -f1 <<<"$missing" | tr '\n' ' ')
  if is_root && command -v apt-get >/dev/null; then
    say "installing $packages(apt)"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -q && apt-get install -y -q --no-install-recommends $packages; } >&2 ||
      { say "apt-get could not install $packages"; exit 1; }
  else
    sudo=$(is_root || echo 'sudo ')
    while IFS=: read -r pkg why; do
      say "missing $pkg ($why): ${sudo}apt-get install -y $pkg"
    done <<<"$missing"
    exit 1
  fi
fi

CHROMIUM=$(find_chromium)
export NANOBENCH_TEST_CHROMIUM=$CHROMIUM

# The sandbox tests run wherever bwrap can create a sandbox, and fail rather than skip as root,
# in CI, or when asked (NANOBENCH_REQUIRE_BWRAP=1). A user whose kernel forbids unprivileged user
# namespaces gets them skipped, with the fix.
# The probe binds the system directories as the sandbox does, not `/`: a recursive bind of `/`
# fails whenever a mount below it vanishes meanwhile, which says nothing about bwrap.
bwrap_probe=(--unshare-all --cap-drop ALL)
for d in /usr /bin /sbin /lib /lib64 /etc; do
  if [ -L "$d" ]; then bwrap_probe+=(--symlink "$(readlink "$d")" "$d")
  elif [ -d "$d" ]; then bwrap_probe+=(--ro-bind "$d" "$d"); fi
done
if bwrap_err=$(bwrap "${bwrap_probe[@]}" -- /bin/true 2>&1); then
  export NANOBENCH_REQUIRE_BWRAP=1
elif is_root || [ -n "${CI:-}" ] || [ "${NANOBENCH_REQUIRE_BWRAP:-}" = 1 ]; then
  say "bubblewrap cannot create a sandbox on this machine: $bwrap_err"
  exit 1
else
  say "bubblewrap cannot create a sandbox here ($bwrap_err): the sandbox tests will be skipped." \
    "On Ubuntu 24.04: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"
fi

# Some tests run NanoBench as nobody (plain none, none-as-nobody): nobody must be able to reach
# this checkout. A clone inside a private directory (mktemp -d makes one 0700) is not reachable,
# so as root every directory above it gets the search bit for others (o+x: enter, not list).
if is_root; then
  d=$(pwd -P)
  while [ "$d" != / ]; do
    d=$(dirname "$d")
    if [ -z "$(find "$d" -maxdepth 0 -perm -o+x)" ]; then
      chmod o+x "$d"
      say "made $d searchable by others (o+x): the tests run NanoBench as nobody from this checkout"
    fi
  done
fi

# As root every provisioning mode can be tested, and must be (test/helpers/provision-modes.ts).
if is_root; then export NANOBENCH_REQUIRE_PROVISION=1; fi

say "build, type check, lint"
npm run -s build
npm run -s typecheck
npm run -s lint

if [ -n "${NANOBENCH_TEST_REDIS_URL:-}" ]; then
  say "Redis: $NANOBENCH_TEST_REDIS_URL (given)"
else
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  redis_dir=$(mktemp -d "${TMPDIR:-/tmp}/nanobench-test-redis.XXXXXX")
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$redis_dir" \
    --logfile "$redis_dir/redis.log" &
  redis_pid=$!
  stop_redis() {
    kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null
    rm -rf "$redis_dir"
  }
  at_exit+=(stop_redis)
  trap 'exit 130' INT
  trap 'exit 143' TERM
  for i in $(seq 100); do
    [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && break
    if [ "$i" = 100 ] || ! kill -0 "$redis_pid" 2>/dev/null; then
      say "redis-server did not answer on port $port: $(tail -n 3 "$redis_dir/redis.log" 2>/dev/null)"
      exit 1
    fi
    sleep 0.1
  done
  export NANOBENCH_TEST_REDIS_URL="redis://127.0.0.1:$port"
  say "Redis: $NANOBENCH_TEST_REDIS_URL (private, stopped at the end)"
fi

# The container tests' base image: built once (about a minute: debootstrap, then podman import),
# found by its tag by every later run; every test file uses this one. As with bwrap: required as
# root or in CI; a user whose podman cannot run (rootless without subuids) gets them skipped.
if podman info >/dev/null 2>&1; then
  start=$(date +%s)
  NANOBENCH_TEST_IMAGE=$(bash scripts/test-image.sh)
  export NANOBENCH_TEST_IMAGE NANOBENCH_REQUIRE_PODMAN=1
  say "container image: $NANOBENCH_TEST_IMAGE ($(( $(date +%s) - start )) s)"
elif is_root || [ -n "${CI:-}" ]; then
  say "podman does not work on this machine: $(podman info 2>&1 | tail -n 1)"
  exit 1
else
  say "podman does not work here ($(podman info 2>&1 | tail -n 1)): the container tests will be skipped"
fi

# Nothing left behind. The tests make their temporary directories under a TMPDIR of their own and,
# for what must live outside /tmp, under NANOBENCH_TEST_VAR_TMP (each test file gets one of each
# below these, removed after it: test/support/temp-dirs.ts). Whatever is still there after vitest,
# and any mount below them or the checkout, was left behind: named, removed, and the run fails.
suite_tmp=$(mktemp -d "${TMPDIR:-/tmp}/nanobench-suite.XXXXXX")
suite_var=$(mktemp -d /var/tmp/nanobench-suite.XXXXXX)
chmod 1777 "$suite_tmp" "$suite_var" # as /tmp: some tests run NanoBench as nobody
left_behind() {
  find "$suite_tmp" "$suite_var" -mindepth 1 -maxdepth 1 -printf 'directory or file %p\n'
  awk -v roots="$suite_tmp/ $suite_var/ $(pwd -P)/" \
    'BEGIN { n = split(roots, r, " ") }
     { for (i = 1; i <= n; i++) if (index($5 "/", r[i]) == 1) { print "mount " $5; next } }' \
    /proc/self/mountinfo
}
remove_suite_dirs() {
  # Deepest mount first; a busy one is detached (freed when its last user exits).
  local m
  for m in $(awk '{ print $5 }' /proc/self/mountinfo | grep -E "^($suite_tmp|$suite_var)(/|$)" | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" || fusermount3 -uz "$m"
  done
  rm -rf "$suite_tmp" "$suite_var"
}
at_exit+=(remove_suite_dirs)
before=$(left_behind)

say "Chromium: $CHROMIUM; $(bwrap --version); $(podman --version)"
status=0
TMPDIR=$suite_tmp NANOBENCH_TEST_VAR_TMP=$suite_var npx vitest run "$@" || status=$?

left=$(comm -13 <(sort <<<"$before") <(sort <<<"$(left_behind)") | sed '/^$/d')
remove_suite_dirs
if [ -n "$left" ]; then
  say "the tests left $(wc -l <<<"$left") thing(s) behind (now removed); release them in the test that made them:"
  sed 's/^/  /' <<<"$left" >&2
  [ "$status" != 0 ] || status=1
fi
exit "$status"
