#!/usr/bin/env bash
# Runs every test of Once against the real local services: starts any that are down, installs promtool and
# Prometheus if missing (the observability tests run them), then `mvn -B verify`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/services.sh
bash scripts/prometheus.sh
exec mvn -B verify "$@"
