#!/usr/bin/env bash
# Runs every test of Once against the real local services: starts any that are down, installs promtool and
# Prometheus if missing (the observability tests run them), runs `mvn -B install` (every test, then the artifacts
# into the local repository), builds docs/getting-started.md's project from the page as a new user would, then the
# chaos harness's quick size (real processes killed, a private three-node RabbitMQ cluster, private Redis and
# PostgreSQL restarted: docs/chaos.md) on the classes the build just made.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/services.sh
bash scripts/prometheus.sh
mvn -B install "$@"
bash scripts/getting-started-check.sh
if [[ -s once-chaos/target/chaos-classpath.txt ]]; then
  SKIP_BUILD=1 bash scripts/chaos.sh quick # verify packaged once-chaos and wrote its classpath
else
  bash scripts/chaos.sh quick # arguments that left once-chaos out of the build
fi
