#!/usr/bin/env bash
# The TLS comparison in one command: sockstate's TLS listener (through the starter, on an SSL bundle)
# against Netty's SslHandler on native epoll, each on the JDK's engine and on OpenSSL's (BoringSSL),
# each in its own JVM on loopback, one TLS client, rounds rotated.
#
#   benchmarks/run-tls.sh [--rounds n] [--workers n] [--measure ms] [--warm-up ms] [--idle n] [--out dir] [--results dir]
#
# The defaults (3 rounds, 15 s warm-up, 5 s windows, 2,000 idle connections) take about twelve minutes.
# The OpenSSL servers load netty-tcnative's linux-x86_64 build (benchmarks/pom.xml): elsewhere they do not start. Results: a
# Markdown report on standard output and in benchmarks/target/tls/<time>/report.md; --results dir also writes
# dir/<yyyy-MM-dd>-<short commit>/, meant to be committed, with the charts, as benchmarks/run.sh does.
# Environment: JAVA (default: java on the PATH), MVN (default: mvn), SKIP_BUILD=1 to reuse the build.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  ${MVN:-mvn} -B -q -Pbenchmarks -pl benchmarks -am -DskipTests package dependency:build-classpath \
    -Dmdep.outputFile=target/classpath.txt
fi

JAVA=${JAVA:-java}
exec "$JAVA" -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
  dev.sockstate.benchmarks.e2e.TlsComparison "$@"
