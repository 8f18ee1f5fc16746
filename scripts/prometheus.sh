#!/usr/bin/env bash
# Installs Debian's prometheus package (it carries promtool and the prometheus server the observability tests
# run) when promtool is missing. The package's own service is kept from starting, and stopped if it did start:
# the tests run their own Prometheus on a spare port with their own config and data directory.
set -euo pipefail

if command -v promtool >/dev/null 2>&1 && command -v prometheus >/dev/null 2>&1; then
  exit 0
fi

echo "prometheus: installing Debian's prometheus package"
export DEBIAN_FRONTEND=noninteractive
# policy-rc.d answering 101 tells the package scripts not to start the service.
made_policy=false
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
  chmod +x /usr/sbin/policy-rc.d
  made_policy=true
fi
cleanup() { if $made_policy; then rm -f /usr/sbin/policy-rc.d; fi; }
trap cleanup EXIT

apt-get update
apt-get install -y --no-install-recommends prometheus

# Where a service manager started it anyway, stop it so port 9090 stays free.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet prometheus 2>/dev/null; then
  systemctl stop prometheus || true
  systemctl disable prometheus >/dev/null 2>&1 || true
fi
if [ -x /etc/init.d/prometheus ]; then
  /etc/init.d/prometheus stop >/dev/null 2>&1 || true
fi

command -v promtool >/dev/null
command -v prometheus >/dev/null
echo "prometheus: $(promtool --version 2>&1 | head -n 1)"
