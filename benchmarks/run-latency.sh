#!/usr/bin/env bash
# Latency at fixed request rates (an open loop, measured from each request's intended send time): sockstate with
# yield-before-wait off (the default) and on, Netty's epoll transport and a JDK NIO server, each with one worker held to processor 0,
# the client held to processor 1, on an idle host and beside a thread that spins on processor 0 (OpenLoopLatency).
#
#   benchmarks/run-latency.sh [--servers a,b,...] [--rounds n] [--loads 25,50,75] [--measure ms] [--connections n]
#                             [--size bytes] [--capacity msgs/s] [--out dir] [--results dir]
#
# The defaults (3 rounds, 8 s windows, 25, 50 and 75% of the capacity, four servers) take about a quarter of an hour.
# Results: a Markdown report on standard output and in benchmarks/target/latency/<time>/report.md; --results dir
# also writes dir/<yyyy-MM-dd>-<short commit>/, meant to be committed, as benchmarks/run.sh does.
# Environment: JAVA (default: java on the PATH; the servers run on it too), MVN (default: mvn), SKIP_BUILD=1 to
# reuse the build. Needs two processors and taskset (util-linux).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  ${MVN:-mvn} -B -q -Pbenchmarks -pl benchmarks -am -DskipTests package dependency:build-classpath \
    -Dmdep.outputFile=target/classpath.txt
fi

JAVA=${JAVA:-java}
exec taskset -c 1 "$JAVA" -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
  dev.sockstate.benchmarks.e2e.OpenLoopLatency "$@"
