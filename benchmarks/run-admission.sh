#!/usr/bin/env bash
# One source flooding a listener whose admission caps it at 100 connections: the echo latency of the
# other clients in quiet and flooded windows, rounds alternated (AdmissionFlood). With --control the flood
# goes to a second server process instead, which shows what the host itself loses to the flood.
#
#   benchmarks/run-admission.sh [--rounds n] [--measure ms] [--workers n] [--control] [--out dir] [--results dir]
#
# The defaults (5 rounds of two 10 s windows) take about two minutes. Results: a Markdown report on standard
# output and in benchmarks/target/admission/<time>/report.md; --results dir also writes
# dir/<yyyy-MM-dd>-<short commit>/, meant to be committed, as benchmarks/run.sh does.
# Environment: JAVA (default: java on the PATH), MVN (default: mvn), SKIP_BUILD=1 to reuse the build.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  ${MVN:-mvn} -B -q -Pbenchmarks -pl benchmarks -am -DskipTests package dependency:build-classpath \
    -Dmdep.outputFile=target/classpath.txt
fi

JAVA=${JAVA:-java}
exec "$JAVA" -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
  dev.sockstate.benchmarks.e2e.AdmissionFlood "$@"
