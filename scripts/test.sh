#!/usr/bin/env bash
# Runs every test of Once against the real local services: starts any that are down, installs promtool and
# Prometheus if missing (the observability tests run them), runs the chaos harness's quick size (real processes
# killed, a private three-node RabbitMQ cluster, private Redis and PostgreSQL restarted: docs/chaos.md), then
# `mvn -B verify`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/services.sh
bash scripts/prometheus.sh
bash scripts/chaos.sh quick
exec mvn -B verify "$@"
