#!/usr/bin/env bash
# A PostgreSQL formation that fails over by itself, on this machine, for the
# failover test, the docs and .ci/run: pg_auto_failover's monitor, a primary
# and a synchronous secondary, each on a port of its own, all under DIR.
#
#   scripts/pg-failover.sh start DIR [BASE_PORT]   monitor on BASE_PORT (default 6540), nodes on the next two;
#                                                  prints the nodes' multi-host URL once the formation is ready
#   scripts/pg-failover.sh uri DIR                 the multi-host URL again
#   scripts/pg-failover.sh status DIR              pg_autoctl show state
#   scripts/pg-failover.sh primary DIR             the name of the node that is primary now (node1 or node2)
#   scripts/pg-failover.sh kill DIR NODE           SIGKILL to NODE's pg_autoctl and PostgreSQL: the machine is lost
#   scripts/pg-failover.sh rejoin DIR NODE         runs NODE's pg_autoctl again: it comes back as the secondary
#   scripts/pg-failover.sh wait DIR                waits until there is a primary and a secondary again
#   scripts/pg-failover.sh stop DIR                stops the nodes and the monitor (DIR is left for its logs)
#
# The monitor's timers are pg_auto_failover's defaults, with which losing the
# primary's machine took about 52 s here to a writable new primary (10 s to
# mark it unhealthy, 20 s more before failing over, then 30 s of
# primary_demote_timeout, in which the old primary could still demote itself).
# PG_FAILOVER_TIMERS=short shortens them for tests (about 10 s): safe here,
# where a lost node is dead, not cut off; a formation of your own keeps the
# defaults, or shortens them knowing that primary_demote_timeout must outlast
# the old primary's own network_partition_timeout (20 s).
#
# For a local test formation only: --auth trust (any local user connects
# without a password) and --no-ssl. A formation of your own takes
# passwords or certificates and --ssl-self-signed or real certificates.
# Run as root, pg_autoctl runs as the postgres user, which then owns DIR.
set -euo pipefail

usage() {
  echo "usage: $0 start DIR [BASE_PORT] | uri DIR | status DIR | primary DIR | kill DIR NODE | rejoin DIR NODE | wait DIR | stop DIR" >&2
  exit 2
}
[ $# -ge 2 ] || usage
command=$1
dir=$2
base_port=${3:-6540}
# The database the nodes serve, which the URL names.
dbname=wagerlink
# A formation that is not ready after this long failed to start (s): a loaded, shared machine takes 20 to 40 s.
ready_timeout_s=120

command -v pg_autoctl >/dev/null 2>&1 || {
  echo "pg_autoctl is not installed (Debian: apt-get install postgresql-15-auto-failover pg-auto-failover-cli)" >&2
  exit 3
}

# pg_autoctl finds initdb and pg_ctl on PATH: the newest server installed.
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
[ -n "$bindir" ] || bindir=$(dirname "$(command -v pg_ctl)")

# pg_autoctl runs as the owner of DIR: postgres when this runs as root, else the caller.
as_owner() {
  local env=(PATH="$bindir:/usr/sbin:/usr/bin:/sbin:/bin" XDG_CONFIG_HOME="$dir/xdg/config" XDG_DATA_HOME="$dir/xdg/data" XDG_RUNTIME_DIR="$dir/xdg/run")
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- env "${env[@]}" "$@"
  else
    env "${env[@]}" "$@"
  fi
}

monitor_uri() {
  as_owner pg_autoctl show uri --pgdata "$dir/monitor" --formation monitor 2>/dev/null
}

# The nodes' multi-host URL for postgres:// clients (every node, and target_session_attrs=read-write),
# with the owner's user name, which --auth trust lets in without a password.
formation_uri() {
  local uri user
  uri=$(as_owner pg_autoctl show uri --pgdata "$dir/monitor" --formation default 2>/dev/null)
  user=$(stat -c %U "$dir/monitor")
  echo "${uri/postgres:\/\//postgres://$user@}"
}

# The name of the node that takes writes: its reported and assigned states both primary, or both
# wait_primary (a primary whose secondary is lost, which pg_auto_failover lets go on alone).
current_primary() {
  as_owner pg_autoctl show state --pgdata "$dir/monitor" 2>/dev/null |
    awk -F'|' '{ for (i = 1; i <= NF; i++) gsub(/^ +| +$/, "", $i) } $6 == $7 && ($6 == "primary" || $6 == "wait_primary") { print $1 }'
}

# Waits until `pg_autoctl show state` lists a primary and a secondary, each in the state its goal names.
wait_ready() {
  local deadline=$((SECONDS + ready_timeout_s))
  while [ $SECONDS -lt $deadline ]; do
    local state
    state=$(as_owner pg_autoctl show state --pgdata "$dir/monitor" 2>/dev/null || true)
    if echo "$state" | grep -Eq '\|[[:space:]]+primary[[:space:]]+\|[[:space:]]+primary[[:space:]]*$' &&
      echo "$state" | grep -Eq '\|[[:space:]]+secondary[[:space:]]+\|[[:space:]]+secondary[[:space:]]*$'; then
      return 0
    fi
    sleep 1
  done
  echo "the formation in $dir was not ready within ${ready_timeout_s} s:" >&2
  as_owner pg_autoctl show state --pgdata "$dir/monitor" >&2 || true
  return 1
}

# Starts `pg_autoctl create ... --run` in the background, as its own process group, logging to DIR/NAME.log.
run_node() {
  local name=$1
  shift
  as_owner setsid nohup pg_autoctl "$@" --run >"$dir/$name.log" 2>&1 &
}

start() {
  mkdir -p "$dir/xdg/config" "$dir/xdg/data" "$dir/xdg/run"
  chmod 700 "$dir/xdg/run"
  [ "$(id -u)" -ne 0 ] || chown -R postgres: "$dir"
  local common=(--hostname 127.0.0.1 --auth trust --no-ssl --ssl-mode disable)
  run_node monitor create monitor --pgdata "$dir/monitor" --pgport "$base_port" "${common[@]}"
  local deadline=$((SECONDS + ready_timeout_s))
  # Ready once its extension is installed, which comes after PostgreSQL accepts connections.
  until [ "$(as_owner psql -qAt -h 127.0.0.1 -p "$base_port" -d pg_auto_failover -c "SELECT 1 FROM pg_extension WHERE extname = 'pgautofailover'" 2>/dev/null)" = 1 ]; do
    [ $SECONDS -lt $deadline ] || {
      echo "the monitor did not start; see $dir/monitor.log" >&2
      exit 1
    }
    sleep 1
  done
  if [ "${PG_FAILOVER_TIMERS:-}" = short ]; then
    # ms; see the header.
    as_owner psql -q -h 127.0.0.1 -p "$base_port" -d pg_auto_failover \
      -c "ALTER SYSTEM SET pgautofailover.health_check_period = 1000" \
      -c "ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000" \
      -c "ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1" \
      -c "ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500" \
      -c "ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 2000" \
      -c "ALTER SYSTEM SET pgautofailover.primary_demote_timeout = 3000" \
      -c "SELECT pg_reload_conf()" >/dev/null
  fi
  local monitor
  monitor=$(monitor_uri)
  # The first node becomes the primary; the second, made once the first is up, its synchronous secondary.
  run_node node1 create postgres --pgdata "$dir/node1" --pgport $((base_port + 1)) --name node1 --dbname "$dbname" --monitor "$monitor" "${common[@]}"
  until as_owner pg_autoctl show state --pgdata "$dir/monitor" 2>/dev/null | grep -Eq '\|[[:space:]]+single[[:space:]]+\|[[:space:]]+single[[:space:]]*$'; do
    [ $SECONDS -lt $deadline ] || {
      echo "node1 did not start; see $dir/node1.log" >&2
      exit 1
    }
    sleep 1
  done
  run_node node2 create postgres --pgdata "$dir/node2" --pgport $((base_port + 2)) --name node2 --dbname "$dbname" --monitor "$monitor" "${common[@]}"
  # node2's base backup waits for a checkpoint on node1, which PostgreSQL spreads over minutes
  # (checkpoint_completion_target) unless one is asked for at once: ask once the backup waits.
  until grep -q 'waiting for checkpoint' "$dir/node2.log" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || break
    sleep 0.2
  done
  as_owner psql -q -h 127.0.0.1 -p $((base_port + 1)) -d "$dbname" -c CHECKPOINT >/dev/null || true
  wait_ready
  formation_uri
}

stop() {
  # Nodes first, so that the monitor does not see them go and order a failover.
  for name in node2 node1 monitor; do
    [ -d "$dir/$name" ] || continue
    as_owner pg_autoctl stop --pgdata "$dir/$name" >/dev/null 2>&1 || true
  done
  for name in node2 node1 monitor; do
    [ -d "$dir/$name" ] || continue
    for _ in $(seq 1 30); do
      as_owner pg_autoctl status --pgdata "$dir/$name" >/dev/null 2>&1 || break
      sleep 1
    done
  done
}

# The process group of NODE's pg_autoctl (its keeper, PostgreSQL and its backends), from the keeper's pid file.
keeper_pid() {
  local pidfile="$dir/xdg/run/pg_autoctl$dir/$1/pg_autoctl.pid"
  [ -f "$pidfile" ] && head -n1 "$pidfile"
}

kill_node() {
  local pid
  pid=$(keeper_pid "$1") || {
    echo "no pg_autoctl runs for $1 in $dir" >&2
    exit 1
  }
  kill -KILL -- "-$pid"
}

rejoin() {
  [ -d "$dir/$1" ] || usage
  as_owner setsid nohup pg_autoctl run --pgdata "$dir/$1" >>"$dir/$1.log" 2>&1 &
}

case "$command" in
  start) start ;;
  uri) formation_uri ;;
  status) as_owner pg_autoctl show state --pgdata "$dir/monitor" ;;
  primary) current_primary ;;
  wait) wait_ready ;;
  kill) [ $# -ge 3 ] && kill_node "$3" || usage ;;
  rejoin) [ $# -ge 3 ] && rejoin "$3" || usage ;;
  stop) stop ;;
  *) usage ;;
esac
