#!/usr/bin/env bash
# Runs a command (a benchmark) and says how much CPU it and each local service used while it ran, so a result can be
# read against what the machine's cores were doing: on a small machine the consumer, RabbitMQ, Redis and PostgreSQL
# share the same cores, and a store that looks slow may only be waiting for a core.
#
#   scripts/cpu-share.sh java -cp ... io.github.once.bench.e2e.EndToEndBenchmark --variants baseline,once-redis-batch
#
# Counts user + system time from /proc: the command's own (its whole process tree, as the shell's `times` reports
# for waited-for children), RabbitMQ (beam.smp), Redis (redis-server) and PostgreSQL (every postgres process; a
# backend that exits meanwhile is counted in its postmaster's children's time). Linux only.
set -euo pipefail

if [ $# -eq 0 ]; then
  echo "usage: $0 command [args...]" >&2
  exit 2
fi

hz=$(getconf CLK_TCK)
cores=$(nproc)

# Sum of utime + stime + cutime + cstime, in ticks, of every process with this exact name.
ticks() {
  local sum=0 pid fields
  for pid in $(pgrep -x "$1" || true); do
    # The name (field 2) holds no spaces for these processes, so plain field numbers hold.
    if fields=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$pid/stat" 2>/dev/null); then
      sum=$((sum + fields))
    fi
  done
  echo "$sum"
}

services=(beam.smp redis-server postgres)
labels=(RabbitMQ Redis PostgreSQL)
declare -a before
for i in "${!services[@]}"; do
  before[$i]=$(ticks "${services[$i]}")
done
start=$(date +%s.%N)
set +e
"$@"
status=$?
set -e
end=$(date +%s.%N)
# The command's own CPU: the children's times this shell has waited for (`times` in this shell, not a subshell).
own=$(mktemp)
times > "$own"
read -r child_user child_sys < <(tail -1 "$own" | sed 's/m/ /g; s/s//g' | awk '{print $1 * 60 + $2, $3 * 60 + $4}')
rm -f "$own"

wall=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}')
echo
echo "CPU while it ran (${wall} s wall, ${cores} cores = $(awk -v w="$wall" -v c="$cores" 'BEGIN {printf "%.1f", w * c}') core-seconds):"
awk -v u="$child_user" -v s="$child_sys" -v w="$wall" 'BEGIN {printf "  %-11s %8.1f s  %5.0f %% of one core\n", "command", u + s, 100 * (u + s) / w}'
for i in "${!services[@]}"; do
  after=$(ticks "${services[$i]}")
  awk -v d="$((after - before[$i]))" -v hz="$hz" -v w="$wall" -v l="${labels[$i]}" \
    'BEGIN {printf "  %-11s %8.1f s  %5.0f %% of one core\n", l, d / hz, 100 * d / hz / w}'
done
exit "$status"
