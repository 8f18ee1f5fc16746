#!/usr/bin/env bash
# Runs every test of Once against the real local services: starts any that are down, then `mvn -B verify`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/services.sh
exec mvn -B verify "$@"
