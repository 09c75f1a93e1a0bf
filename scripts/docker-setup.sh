#!/usr/bin/env bash
# Makes a Debian machine ready for the container kernel and its tests:
# installs docker.io, runsc (gVisor) and mmdebstrap when missing, registers
# runsc in /etc/docker/daemon.json (merged into what is there), starts
# dockerd in the background when it is not running (no systemd needed), and
# waits until the engine answers. Idempotent; run as root.
#
# Env: DOCKERD_LOG (default /var/log/dockerd.log), DOCKER_DAEMON_JSON
# (default /etc/docker/daemon.json), DOCKER_WAIT (seconds, default 60).
set -euo pipefail

log="${DOCKERD_LOG:-/var/log/dockerd.log}"
wait_s="${DOCKER_WAIT:-60}"
daemon_json="${DOCKER_DAEMON_JSON:-/etc/docker/daemon.json}"

missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v runsc >/dev/null || missing+=(runsc)
if [ "${#missing[@]}" -gt 0 ] || ! command -v mmdebstrap >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # With their recommends: cgroupfs-mount for machines without systemd,
  # gpg, libdpkg-perl and arch-test for mmdebstrap.
  [ "${#missing[@]}" -gt 0 ] && echo "installing ${missing[*]}"
  command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Register runsc without touching the rest of daemon.json. gVisor gets no
# network of its own: kernels run with --network none anyway.
mkdir -p "$(dirname "$daemon_json")"
read -r changed exec_root pidfile < <(python3 - "$daemon_json" "$(command -v runsc)" <<'EOF'
import json, os, sys
path, runsc = sys.argv[1], sys.argv[2]
cfg = {}
if os.path.exists(path) and os.path.getsize(path) > 0:
    with open(path) as f:
        cfg = json.load(f)
want = {"path": runsc, "runtimeArgs": ["--network=none"]}
changed = cfg.get("runtimes", {}).get("runsc") != want
if changed:
    cfg.setdefault("runtimes", {})["runsc"] = want
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)
# Where the engine keeps its pid file and runtime state (clear_stale_state).
print("yes" if changed else "no", cfg.get("exec-root", "/var/run/docker"), cfg.get("pidfile", "/var/run/docker.pid"))
EOF
)
[ -n "$pidfile" ] || { echo "could not read or update $daemon_json" >&2; exit 1; }

# A dockerd that was killed (its machine stopped, or every process of a
# session ended) leaves pid files and its containers' runtime state behind
# under its exec root, which need not be a tmpfs. The next dockerd trusts
# them: a pid file naming a live process makes it take that process for its
# containerd (and kill it when that "containerd" never answers), and runsc's
# state names sandbox processes that the cleanup of a dead shim kills. Pids
# are reused, so these can name any process, the make running this script
# among them. A pid file whose process is not the one it names is cleared;
# with no engine process left at all, so is the runtime state.
clear_stale_state() {
  local f pid
  # /var/run is a link to /run: /proc/mounts names the resolved paths.
  exec_root="$(realpath -m "$exec_root")"
  for f in "$pidfile:dockerd" "$exec_root/containerd/containerd.pid:containerd"; do
    pid="$(cat "${f%:*}" 2>/dev/null || true)"
    if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null || true)" != "${f##*:}" ]; then
      echo "removing stale ${f%:*} (pid $pid is not ${f##*:})"
      rm -f "${f%:*}"
    fi
  done
  if [ -d "$exec_root" ] && ! pgrep -x containerd >/dev/null \
     && ! pgrep -f 'containerd-shim|runsc' >/dev/null; then
    echo "removing the runtime state of a dockerd that is gone ($exec_root)"
    # Network namespaces stay mounted there after their owner was killed.
    awk -v root="$exec_root/" 'index($2, root) == 1 {print $2}' /proc/mounts \
      | sort -r | while read -r m; do umount -l "$m" || true; done
    rm -rf "$exec_root"
  fi
}

if docker info >/dev/null 2>&1; then
  if [ "$changed" = yes ]; then
    # dockerd reloads its runtimes on SIGHUP.
    echo "registered runsc; reloading dockerd"
    pkill -HUP -x dockerd || true
    sleep 1
  fi
else
  if ! pgrep -x dockerd >/dev/null; then
    clear_stale_state
    # Without systemd nothing may have mounted the cgroup hierarchies.
    if ! grep -q cgroup /proc/mounts && command -v cgroupfs-mount >/dev/null; then
      cgroupfs-mount
    fi
    echo "starting dockerd (log: $log)"
    nohup dockerd >>"$log" 2>&1 </dev/null &
  fi
  for _ in $(seq "$wait_s"); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
  if ! docker info >/dev/null 2>&1; then
    echo "dockerd did not answer within ${wait_s}s; see $log" >&2
    tail -n 20 "$log" >&2 || true
    exit 1
  fi
fi

if ! docker info --format '{{range $name, $_ := .Runtimes}}{{$name}} {{end}}' | grep -qw runsc; then
  echo "dockerd does not list runsc after setup; see $daemon_json and $log" >&2
  exit 1
fi
docker version --format 'docker engine {{.Server.Version}} (API {{.Server.APIVersion}}), runtimes: ' | tr -d '\n'
docker info --format '{{range $name, $_ := .Runtimes}}{{$name}} {{end}}'
