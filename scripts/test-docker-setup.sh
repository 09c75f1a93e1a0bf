#!/usr/bin/env bash
# Checks that scripts/docker-setup.sh starts an engine safely after the last
# one was killed with its containers (as when every process of a machine's
# session is ended): it runs an engine in mount, pid and network namespaces of
# its own (a tmpfs /run and /var/lib/docker, so the machine's engine is not
# touched), starts a runc and a runsc container, kills every engine process,
# gives bystander processes the pids named in the stale state, runs the setup
# script again and fails if a bystander was killed or the engine did not
# start. Linux, root.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ "${1:-}" != --inside ]; then
  work="$(mktemp -d "${TMPDIR:-/tmp}/docker-setup-test.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  printf 'package main\n\nimport (\n\t"os"\n\t"time"\n)\n\nfunc main() {\n\tif len(os.Args) == 1 {\n\t\ttime.Sleep(time.Hour)\n\t}\n}\n' >"$work/main.go"
  mkdir "$work/root"
  (cd "$work" && go mod init sleeper >/dev/null 2>&1 && CGO_ENABLED=0 go build -o root/sleeper .)
  tar -C "$work/root" -cf "$work/img.tar" .
  unshare --mount --pid --net --fork --mount-proc "$0" --inside "$work"
  exit
fi
work="$2"
mount --make-rprivate /
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/lib/docker
export DOCKERD_LOG="$work/dockerd.log"
"$here/docker-setup.sh" >/dev/null
docker import "$work/img.tar" sleeper >/dev/null
docker run -d --network none --runtime runsc sleeper /sleeper >/dev/null
docker run -d --network none sleeper /sleeper >/dev/null
pkill -9 -f 'dockerd|containerd|runsc|sleeper' || true
while pgrep -f 'dockerd|containerd|runsc|sleeper' >/dev/null; do sleep 0.1; done

# The pids the stale state names: pid files and the runtimes' state.
mapfile -t stale < <(
  find /run -name '*.pid' -exec sh -c 'for f; do cat "$f"; echo; done' _ {} +
  find /run/docker -name state.json -exec grep -ohE '"[A-Za-z_]*[Pp]id": *[0-9]+' {} + | grep -oE '[0-9]+$' || true
)
bystanders=()
for p in $(printf '%s\n' "${stale[@]}" | sort -un); do
  [ "$p" -gt 1 ] && [ "$p" -lt "$(cat /proc/sys/kernel/pid_max)" ] && [ ! -e "/proc/$p" ] || continue
  echo $((p - 1)) >/proc/sys/kernel/ns_last_pid
  sleep 100000 &
  if [ "$!" = "$p" ]; then bystanders+=("$p"); else kill "$!"; fi
done
[ "${#bystanders[@]}" -gt 0 ] || { echo "FAIL: no stale pid could be given to a bystander" >&2; exit 1; }

"$here/docker-setup.sh"
for runtime in runc runsc; do
  docker run --rm --network none --runtime "$runtime" sleeper /sleeper exit
done
failed=0
for p in "${bystanders[@]}"; do
  if [ "$(cat "/proc/$p/comm" 2>/dev/null)" != sleep ]; then
    echo "FAIL: bystander pid $p was killed" >&2
    failed=1
  fi
done
[ "$failed" = 0 ] && echo "ok: engine restarted, ${#bystanders[@]} bystanders with stale pids alive"
exit "$failed"
