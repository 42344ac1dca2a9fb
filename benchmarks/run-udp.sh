#!/usr/bin/env bash
# UDP at fixed rates: a C sender against the sample's counting UDP listener, Netty's epoll datagram channel
# with batch reads, the JDK's DatagramChannel and a C recvmmsg receiver (DatagramRate): the highest rate each
# receives losing at most 0.1% of a window, and its CPU per datagram at a rate all of them hold.
#
#   benchmarks/run-udp.sh [--rounds n] [--tries n] [--measure ms] [--sizes 64,1200] [--rates r1,r2,...] [--cpu-rate r]
#                         [--receivers a,b,...] [--cpus s/r] [--out dir] [--results dir]
#
# The defaults (3 rounds, a rate held by one of 2 windows, 10 s windows, 64- and 1,200-byte datagrams, four receivers)
# take about 35 minutes. A window loses 0.1% to a 10 ms pause of the host: run it on an otherwise idle machine.
# Results: a Markdown report on standard output and in benchmarks/target/udp/<time>/report.md; --results dir
# also writes dir/<yyyy-MM-dd>-<short commit>/, meant to be committed, as benchmarks/run.sh does.
# Environment: JAVA (default: java on the PATH; the receivers run on it too), MVN (default: mvn), SKIP_BUILD=1 to
# reuse the build, SAMPLE_JAR (default: sample-app/target/sample-app.jar; a build by JDK 22 or later holds the FFM
# binding). Every receiver binds 127.0.0.1 port 7009, and the sample its other ports (8080, 8081, 7007...) too; the
# sample runs with a redis-server (Debian's package) on port 6379 for its redis client, started unless one is up.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  ${MVN:-mvn} -B -q -DskipTests package -pl sample-app -am
  ${MVN:-mvn} -B -q -Pbenchmarks -pl benchmarks -am -DskipTests package dependency:build-classpath \
    -Dmdep.outputFile=target/classpath.txt
fi

JAVA=${JAVA:-java}
exec "$JAVA" -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
  dev.sockstate.benchmarks.e2e.DatagramRate "$@"
