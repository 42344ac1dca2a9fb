#!/usr/bin/env bash
# The end-to-end comparison in one command: sockstate (its default, a port per worker with level-persistent
# connections; a shared port with level one-shot; the exclusive edge mode on a shared port and on a port per
# worker; the nio backend), Netty on native epoll and a JDK NIO server, each in its own JVM on loopback, one
# load client. Not run unless named in --servers: the C anchors c-reuseport and c-oneshot
# (benchmarks/src/main/c/echo_anchor.c, compiled with gcc -O2 into benchmarks/target/ when named; gcc required),
# and jna-reuseport, c-reuseport's loop in Java over JNA.
#
#   benchmarks/run.sh [--quick|--full] [--rounds n] [--workers n] [--servers a,b] [--loads CxSxD[b],...] [--measure ms]
#       [--framing none|line] [--no-rate-idle] [--rate-only] [--idle n] [--out dir] [--results dir]
#
# --quick (the default) takes about two and a half minutes, --full about thirty. Results: a Markdown report on
# standard output and in benchmarks/target/e2e/<time>/ with the raw samples (samples.csv).
# --results dir (passed to the harness as it is) also writes dir/<yyyy-MM-dd>-<short commit>/, meant to be committed:
# the report headed by what ran (options, JDK and sockstate's binding, kernel, CPU; no machine paths), samples.csv,
# SVG charts and a README.md that shows them. The date is the run's in UTC, the commit COMMIT's or git's. Relative
# paths of --out and --results are the repository root's: benchmarks/run.sh --full --results benchmarks/results
# Environment: JAVA (default: java on the PATH; servers run on the same JDK), MVN (default: mvn),
# SKIP_BUILD=1 to reuse benchmarks/target/benchmarks.jar, COMMIT to name the commit instead of git rev-parse --short HEAD.
set -euo pipefail
cd "$(dirname "$0")/.."

args=("$@")
idle=10000
for ((i = 0; i < ${#args[@]}; i++)); do
  if [[ ${args[$i]} == --idle ]]; then idle=${args[$((i + 1))]}; fi
done

# The idle run holds $idle connections: the harness (client side) and each server need that many descriptors.
needed=$((idle + 2048))
hard=$(ulimit -Hn)
if [[ $hard != unlimited && $hard -lt $needed ]]; then
  echo "The hard open-files limit is $hard; the idle run needs $needed. Raise it (limits.conf, or ulimit -Hn as root)," \
       "or pass --idle $((hard - 2048))." >&2
  exit 3
fi
ulimit -n "$needed"

if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  # The harness and its servers run on the plain class path (Spring Boot's starter does not survive
  # shading); in one reactor build, sockstate's own modules resolve to their fresh jars.
  ${MVN:-mvn} -B -q -Pbenchmarks -pl benchmarks -am -DskipTests package dependency:build-classpath \
    -Dmdep.outputFile=target/classpath.txt
fi

JAVA=${JAVA:-java}
exec "$JAVA" -Dclock.ticks="$(getconf CLK_TCK)" -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
  dev.sockstate.benchmarks.e2e.Harness "${args[@]}"
