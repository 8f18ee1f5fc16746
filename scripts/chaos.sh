#!/usr/bin/env bash
# The chaos harness (docs/chaos.md): consumer processes SIGKILLed, a three-node RabbitMQ cluster whose nodes
# restart and whose quorum leader is killed, Redis, PostgreSQL and MariaDB killed, restarted and stalled, then a
# check of every message's effects. Starts private services on spare ports (RabbitMQ 5701-5703, PostgreSQL 25432,
# Redis 26379, MariaDB 23306) and stops them at the end; uses the machine's PostgreSQL on 5432 for effect rows.
# Run as root.
#
#   scripts/chaos.sh quick    1,500 messages per mode, 1 fault of each kind (3 consumer and 3 relay kills), plus the self-test
#   scripts/chaos.sh medium   10,000 messages per mode, 5 faults of each kind (10 consumer and 10 relay kills)
#   scripts/chaos.sh full     100,000 messages per mode, 50 faults of each kind
#
# Options after the size: --seed N (replays a fault plan), --modes jdbc-tx,mariadb-tx,tiered,redis,memory,spring-tx,outbox-tx (the
# default: every mode), --messages N, --faults N, --kills N, --consumers N, --no-self-test, --unsafe-ack-first
# (consumers that ack before working: the run must fail). The report goes to once-chaos/target/chaos/report.md, the processes' logs next to it.
# SKIP_BUILD=1 uses the classes already in once-chaos/target.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

case "${1:-quick}" in
  quick|medium|full) ;;
  *) echo "usage: scripts/chaos.sh [quick|medium|full] [options]" >&2; exit 2 ;;
esac

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  echo "Building once-chaos and what it needs..."
  mvn -B -q -pl once-chaos -am package -DskipTests
fi

cp="once-chaos/target/classes:$(cat once-chaos/target/chaos-classpath.txt)"
start=$(date +%s)
set +e
java -Xms128m -Xmx512m -cp "$cp" io.github.once.chaos.Chaos "$@"
status=$?
set -e
echo "scripts/chaos.sh $*: exit $status after $(( $(date +%s) - start )) s"
exit $status
