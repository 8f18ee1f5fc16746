#!/usr/bin/env bash
# Starts the local services the tests talk to (RabbitMQ, Redis, PostgreSQL, MariaDB) when they are down, and
# waits until each answers. Never stops or reconfigures a running one. Fails loudly if one cannot be started.
set -euo pipefail

wait_for() { # name, seconds, command...
  local name=$1 seconds=$2; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if (( SECONDS >= deadline )); then
      echo "services: $name did not come up within ${seconds}s" >&2
      return 1
    fi
    sleep 1
  done
  echo "services: $name is up"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "services: starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
wait_for Redis 30 redis-cli -h 127.0.0.1 -p 6379 ping

if ! pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; then
  echo "services: starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
fi
wait_for PostgreSQL 60 pg_isready -h 127.0.0.1 -p 5432

if ! port_open 3306; then
  echo "services: starting MariaDB"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
fi
wait_for MariaDB 60 mariadb-admin -h 127.0.0.1 -P 3306 -uroot ping

if ! port_open 5672; then
  echo "services: starting RabbitMQ"
  rabbitmq-server -detached
fi
wait_for RabbitMQ 120 port_open 5672
rabbitmqctl await_startup --timeout 120 >/dev/null 2>&1 || true
wait_for RabbitMQ-ready 60 rabbitmq-diagnostics -q check_running

# The databases the tests use exist on a new machine; create them if a service came up without them.
psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'test'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -c 'CREATE DATABASE test'
mariadb -h 127.0.0.1 -P 3306 -uroot -e 'CREATE DATABASE IF NOT EXISTS test'
