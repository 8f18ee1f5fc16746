#!/usr/bin/env bash
# Runs Once's benchmarks against the local RabbitMQ, Redis and PostgreSQL and writes the results to
# once-bench/target/bench/ (docs/benchmarks.md summarises measured runs; docs/benchmarks/ holds their logs).
#
#   scripts/bench.sh          quick: 5,000 messages per run, 2 repetitions, short JMH
#   scripts/bench.sh medium   30,000 messages per run, 3 repetitions, shorter JMH with 1 and 4 threads
#                             (about 25 min before the Spring container line was added)
#   scripts/bench.sh full     100,000 messages per run, 3 repetitions, full JMH with 1 and 4 threads
#
# Every mode runs the end-to-end harness three times: the default variants with one channel per consumer, then the
# baseline and the Redis (one at a time, batch) and transactional JDBC variants with 4 channels per Once
# consumer (prefetch 250 on each channel), then the baseline and Spring AMQP listener containers, plain and with
# Once's advice (in-memory and Redis), then a paced run (a publisher at 2,000 msg/s, 5 repetitions) for the latency
# each default configuration adds. The JDBC variants write one row per message as their effect, and are
# compared with plain-jdbc (no guard, the row auto-committed) and plain-jdbc-batch (no guard, 100 rows per
# transaction, one multiple ack).
#
# Services (defaults: the project's local ones) can be changed with JAVA_OPTS, e.g.
#   JAVA_OPTS="-Donce.bench.redis=redis://127.0.0.1:6380" scripts/bench.sh
# SKIP_BUILD=1 uses the classes already in once-bench/target (after mvn -pl once-bench package).
set -euo pipefail

mode="${1:-quick}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

case "$mode" in
  quick)
    e2e_args=(--messages 5000 --repetitions 2 --warmup-messages 2000)
    paced_args=(--messages 6000 --repetitions 5 --warmup-messages 2000)
    jmh_args=(-wi 1 -w 1s -i 2 -r 2s -f 1)
    jmh_threads=(4)
    ;;
  medium)
    e2e_args=(--messages 30000 --repetitions 3 --warmup-messages 5000)
    paced_args=(--messages 20000 --repetitions 5 --warmup-messages 4000)
    jmh_args=(-wi 1 -w 2s -i 3 -r 3s -f 1)
    jmh_threads=(1 4)
    ;;
  full)
    e2e_args=(--messages 100000 --repetitions 3 --warmup-messages 10000)
    paced_args=(--messages 60000 --repetitions 5 --warmup-messages 10000)
    jmh_args=(-wi 2 -w 5s -i 5 -r 5s -f 1)
    jmh_threads=(1 4)
    ;;
  *)
    echo "usage: scripts/bench.sh [quick|medium|full]" >&2
    exit 2
    ;;
esac

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  echo "Building once-bench and what it needs..."
  mvn -B -q -pl once-bench -am package -DskipTests
fi

cp="once-bench/target/classes:$(cat once-bench/target/bench-classpath.txt)"
out="once-bench/target/bench"
mkdir -p "$out"
java_opts=(${JAVA_OPTS:-} -Xms1g -Xmx1g)

echo "End to end ($mode)..."
java "${java_opts[@]}" -cp "$cp" io.github.once.bench.e2e.EndToEndBenchmark "${e2e_args[@]}" \
    --output "$out/end-to-end.md" | tee "$out/end-to-end.log"
echo "End to end, 4 channels per Once consumer ($mode)..."
java "${java_opts[@]}" -cp "$cp" io.github.once.bench.e2e.EndToEndBenchmark "${e2e_args[@]}" --channels 4 \
    --variants baseline,plain-jdbc-batch,once-redis,once-redis-batch,once-jdbc-tx,once-jdbc-tx-batch \
    --output "$out/end-to-end-4ch.md" | tee "$out/end-to-end-4ch.log"
echo "End to end, the tiered store against the JDBC store alone ($mode)..."
java "${java_opts[@]}" -cp "$cp" io.github.once.bench.e2e.EndToEndBenchmark "${e2e_args[@]}" \
    --variants baseline,plain-jdbc-batch,once-jdbc-tx-batch,once-tiered-tx-batch --output "$out/end-to-end-tiered.md" \
    | tee "$out/end-to-end-tiered.log"
echo "End to end, Spring AMQP containers ($mode)..."
java "${java_opts[@]}" -cp "$cp" io.github.once.bench.e2e.EndToEndBenchmark "${e2e_args[@]}" \
    --variants baseline,spring-plain,spring-once-memory,spring-once-redis --output "$out/end-to-end-spring.md" \
    | tee "$out/end-to-end-spring.log"

echo "End to end, paced at 2,000 msg/s on one channel, latency from publication ($mode)..."
java "${java_opts[@]}" -cp "$cp" io.github.once.bench.e2e.EndToEndBenchmark "${paced_args[@]}" --rate 2000 \
    --variants baseline,once-memory-batch,once-redis-batch,plain-jdbc,once-jdbc-tx-batch \
    --output "$out/end-to-end-paced.md" | tee "$out/end-to-end-paced.log"

echo "Store level, JMH ($mode)..."
# One thread: each call waits for its round trips. Four: calls share connections and pipeline.
for threads in "${jmh_threads[@]}"; do
  java "${java_opts[@]}" -cp "$cp" org.openjdk.jmh.Main StoreBenchmark "${jmh_args[@]}" -t "$threads" \
      -jvmArgs "${JAVA_OPTS:-} -Xms1g -Xmx1g" -rf text -rff "$out/store-t$threads.txt" \
      | tee "$out/store-t$threads.log"
done

echo
echo "Results in $out/: end-to-end.md, end-to-end-4ch.md, end-to-end-tiered.md, end-to-end-spring.md, store-t*.txt"
