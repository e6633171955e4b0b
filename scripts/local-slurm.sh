#!/usr/bin/env bash
# A real one-node Slurm on this machine, for the Slurm backend's tests
# (test/Collect/slurm.test) and for trying sptune-collect --backend slurm:
#
#   scripts/local-slurm.sh start    install slurm-wlm + munge (when missing),
#                                   write a one-node slurm.conf, start munged,
#                                   slurmctld and slurmd, wait for the node
#   scripts/local-slurm.sh status   exit 0 when sinfo shows the node usable
#   scripts/local-slurm.sh stop     cancel the jobs of the controller it
#                                   started (none of another Slurm's), stop
#                                   the daemons, remove their state
#
# A /etc/slurm/slurm.conf it did not write (a real Slurm's) is never
# replaced: start refuses instead.
#
# Everything lives under $SPTUNE_SLURM_DIR (default /var/tmp/sptune-slurm);
# the daemons run as root (SlurmUser=root), so it works in a container.
set -uo pipefail
dir="${SPTUNE_SLURM_DIR:-/var/tmp/sptune-slurm}"
conf_dir=/etc/slurm
conf="$conf_dir/slurm.conf"
host="$(hostname -s)"
cpus="$(nproc)"
mem_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10 ))

log() { echo "local-slurm: $*" >&2; }

node_state() {
  command -v sinfo >/dev/null 2>&1 || return 1
  timeout 10 sinfo -h -n "$host" -o '%T' 2>/dev/null | head -1
}

status() {
  local s
  if ! pgrep -x slurmctld >/dev/null || ! pgrep -x slurmd >/dev/null; then
    echo "slurm: not running (slurmctld or slurmd missing)"; return 1
  fi
  s="$(node_state)" || { echo "slurm: not running (sinfo does not answer)"; return 1; }
  case "$s" in
    idle*|mixed*|allocated*|completing*) echo "slurm: node $host $s"; return 0 ;;
    *) echo "slurm: not running (node state '${s:-none}')"; return 1 ;;
  esac
}

install() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null &&
     command -v sbatch >/dev/null && command -v munged >/dev/null; then
    return 0
  fi
  log "installing slurm-wlm and munge"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null ||
    { apt-get update >/dev/null && apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null; } ||
    { log "cannot install slurm-wlm/munge"; return 1; }
}

write_conf() {
  # A slurm.conf this script did not write is the site's: never replace it.
  if [ -e "$conf" ] && ! grep -q "^# Written by sptune scripts/local-slurm.sh" "$conf"; then
    log "$conf exists and was not written by this script; not replacing a real Slurm's configuration"
    return 1
  fi
  mkdir -p "$conf_dir" "$dir/state" "$dir/spool" "$dir/log"
  cat > "$conf" <<CONF
# Written by sptune scripts/local-slurm.sh: one node, this machine.
ClusterName=sptune-local
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
MaxArraySize=10001
InactiveLimit=0
KillWait=5
MinJobAge=30
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
}

start_munge() {
  mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
  fi
  chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge 2>/dev/null || true
  chmod 700 /etc/munge; chmod 400 /etc/munge/munge.key
  if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    if id munge >/dev/null 2>&1; then
      su -s /bin/sh munge -c munged 2>/dev/null || munged --force 2>/dev/null
    else
      munged --force
    fi
    mkdir -p "$dir"; echo 1 > "$dir/munged.started"
    for _ in $(seq 1 20); do
      munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return 0
      sleep 0.5
    done
    log "munged does not answer"; return 1
  fi
}

start() {
  if status >/dev/null 2>&1; then status; return 0; fi
  install || return 1
  write_conf || return 1
  start_munge || return 1
  pgrep -x slurmctld >/dev/null || slurmctld -f "$conf" || { log "slurmctld failed to start (see $dir/log/slurmctld.log)"; return 1; }
  pgrep -x slurmd >/dev/null || slurmd -f "$conf" || { log "slurmd failed to start (see $dir/log/slurmd.log)"; return 1; }
  for _ in $(seq 1 60); do
    if status >/dev/null 2>&1; then status; return 0; fi
    s="$(node_state)"
    case "$s" in down*|drain*) scontrol update NodeName="$host" State=RESUME >/dev/null 2>&1 ;; esac
    sleep 1
  done
  log "the node did not become idle within 60 s (state '$(node_state)'; see $dir/log)"
  return 1
}

stop() {
  # Cancel jobs only on the controller this script started (its pid file is
  # in $dir): on a machine with a real Slurm, `scancel --user=root` would
  # cancel every root job of the site.
  if [ -s "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null &&
     grep -q "^# Written by sptune scripts/local-slurm.sh" "$conf" 2>/dev/null; then
    command -v scancel >/dev/null 2>&1 && timeout 10 scancel --user=root >/dev/null 2>&1
  fi
  for d in slurmd slurmctld; do
    pf="$dir/$d.pid"
    if [ -s "$pf" ]; then kill "$(cat "$pf")" 2>/dev/null; fi
  done
  for _ in $(seq 1 20); do
    [ -s "$dir/slurmd.pid" ] && kill -0 "$(cat "$dir/slurmd.pid")" 2>/dev/null && { sleep 0.5; continue; }
    [ -s "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null && { sleep 0.5; continue; }
    break
  done
  rm -rf "$dir/state" "$dir/spool"
  # munged: only the one start() started (recorded below).
  if [ -s "$dir/munged.started" ] && [ -s /run/munge/munged.pid ]; then
    kill "$(cat /run/munge/munged.pid)" 2>/dev/null
    rm -f "$dir/munged.started"
  fi
  echo "slurm: stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
