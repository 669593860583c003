#!/usr/bin/env bash
# A single-node SLURM cluster on this machine, for `make test-slurm` (tests/slurm).
#
#   .ci/slurm-cluster.sh start   install what is missing (Debian/Ubuntu packages, sudo when not root) and
#                                start munged, slurmctld and slurmd; with the cluster up it does nothing
#   .ci/slurm-cluster.sh stop    stop the three daemons by their PID files
#
# No systemd and no accounting database: jobs are followed with `squeue` (the executor plugin needs
# `--slurm-status-command squeue`), so finished jobs stay known to slurmctld for MinJobAge (an hour).
# The node is this machine as `slurmd -C` sees it (CPUs, sockets, memory), on 127.0.0.1, partition `ci`.
# Meant for CI machines and throw-away VMs: it writes /etc/slurm/slurm.conf and refuses to replace one
# it did not write. What it is for: README, "On a SLURM cluster".
set -euo pipefail

SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
PACKAGES="munge slurmctld slurmd slurm-client"
CONF=/etc/slurm/slurm.conf
MARK="# Written by bib2graph's .ci/slurm-cluster.sh; replaced at each start."
PARTITION=ci

# The PID file and process name of each daemon, in stopping order.
DAEMONS="slurmd:/run/slurmd.pid slurmctld:/run/slurmctld.pid munged:/run/munge/munged.pid"

pid_of() {  # the PID in a daemon's PID file if that process is alive and is that daemon
  local name=$1 file=$2 pid
  [ -s "$file" ] || return 1
  pid=$(cat "$file")
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ] && echo "$pid"
}

wait_for() {  # up to 30 s for a command to succeed: daemons answer within a second or two
  local _
  for _ in $(seq 60); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
  echo "slurm-cluster: timed out waiting for: $*" >&2
  return 1
}

install_packages() {
  dpkg -s $PACKAGES >/dev/null 2>&1 && return
  echo "slurm-cluster: installing $PACKAGES"
  # The package index is refreshed only when it does not know them yet (as the Makefile's chromium).
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $PACKAGES >/dev/null ||
    { $SUDO apt-get update -qq &&
      $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $PACKAGES >/dev/null; }
}

config() {  # slurm.conf for this machine
  local node host
  node=$(/usr/sbin/slurmd -C | head -n 1)   # NodeName=<host> CPUs=… Boards=… … RealMemory=…
  host=${node%% *}; host=${host#NodeName=}
  cat <<CONF
$MARK
ClusterName=ci
SlurmctldHost=${host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
MinJobAge=3600
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=$PARTITION Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
}

write_config() {  # true when slurm.conf changed (the daemons then restart to read it)
  local wanted
  wanted=$(config)
  if [ -e "$CONF" ] && ! grep -qxF "$MARK" "$CONF"; then
    echo "slurm-cluster: $CONF was not written by this script; not replacing it" >&2
    exit 1
  fi
  [ -e "$CONF" ] && [ "$(cat "$CONF")" = "$wanted" ] && return 1
  $SUDO install -d -o slurm -g slurm /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm
  printf '%s\n' "$wanted" | $SUDO tee "$CONF.tmp" >/dev/null
  $SUDO mv "$CONF.tmp" "$CONF"
  return 0
}

start_munge() {
  { munge -n | unmunge; } >/dev/null 2>&1 && return   # ours, or one the init system started
  [ -n "$($SUDO cat /etc/munge/munge.key 2>/dev/null | head -c 1)" ] || $SUDO mungekey -c -k /etc/munge/munge.key
  $SUDO chown munge:munge /etc/munge/munge.key
  $SUDO chmod 400 /etc/munge/munge.key
  $SUDO install -d -o munge -g munge -m 0755 /run/munge
  $SUDO runuser -u munge -- /usr/sbin/munged --force
  wait_for sh -c 'munge -n | unmunge'
}

node_ready() {  # the node takes jobs
  case "$(sinfo -h -o %T 2>/dev/null)" in idle|mixed|allocated) return 0 ;; *) return 1 ;; esac
}

stop() {  # the daemons named (all by default), by PID file
  local entry name file pid
  for entry in $DAEMONS; do
    name=${entry%%:*}
    [ $# -eq 0 ] || [[ " $* " == *" $name "* ]] || continue
    file=${entry#*:}
    pid=$(pid_of "$name" "$file") || continue
    $SUDO kill "$pid"
    wait_for sh -c "[ ! -d /proc/$pid ]"
    echo "slurm-cluster: stopped $name ($pid)"
  done
}

start() {
  install_packages
  if write_config; then
    echo "slurm-cluster: wrote $CONF"
    stop slurmd slurmctld   # daemons running with an older configuration would not take the new node line
  fi
  start_munge
  pid_of slurmctld /run/slurmctld.pid >/dev/null || $SUDO /usr/sbin/slurmctld
  pid_of slurmd /run/slurmd.pid >/dev/null || $SUDO /usr/sbin/slurmd
  wait_for node_ready
  sinfo
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 [start|stop]" >&2; exit 2 ;;
esac
