#!/usr/bin/env bash
# Runs the server's own suite (sockstate-core's dev.sockstate.server.engine tests) over a backend that
# misbehaves on purpose within the port's contract (MisbehavingBackend in the core's test sources:
# short reads and writes, would-blocks where data or room was there, ENOBUFS on send, spurious and
# stale notifications, waits that return early), once per seed. `mvn verify` runs two fixed seeds;
# this runs as many as asked, and prints per seed the tests run and the ones that failed, with the
# command that replays a failure.
#
#   benchmarks/misbehave.sh [first seed] [count]      (defaults: 1000, 10)
#
# Environment: MVN (default: mvn); BACKEND (default: auto, the system's own) for
# sockstate.test.backend; FAULTS (default: every fault within the contract), a comma-separated list
# of MisbehavingBackend.Fault names. Each seed's Maven output is in sockstate-core/target/misbehave-<seed>.log. Run it after a build that compiled the tests (mvn -B -q -DskipTests install, then
# mvn -B -q -o -pl sockstate-core test-compile).
set -euo pipefail
cd "$(dirname "$0")/.."
first=${1:-1000}
count=${2:-10}
backend=${BACKEND:-auto}
failed_seeds=()
for ((seed = first; seed < first + count; seed++)); do
  reports="sockstate-core/target/surefire-reports"
  rm -f "$reports"/*.txt "$reports"/*.xml
  started=$(date +%s)
  log="sockstate-core/target/misbehave-$seed.log"
  if ${MVN:-mvn} -B -q -o -pl sockstate-core surefire:test@default-test \
      -Dtest='dev/sockstate/server/engine/*Test, !dev/sockstate/server/engine/WindowsRules*Test, !**/*FuzzTest' \
      -Dsurefire.failIfNoSpecifiedTests=false ${FAULTS:+-Dsockstate.test.misbehave.faults="$FAULTS"} \
      -Dsockstate.test.misbehave="$seed" -Dsockstate.test.backend="$backend" >"$log" 2>&1; then
    outcome="passed"
  else
    outcome="FAILED"
    failed_seeds+=("$seed")
  fi
  tests=$(cat "$reports"/*.txt 2>/dev/null | awk -F'[ ,]+' '/^Tests run/ {t += $3} END {print t + 0}' || true)
  echo "seed $seed: $outcome, $tests tests, $(( $(date +%s) - started )) s"
  if [ "$outcome" = "FAILED" ]; then
    grep -h '<<< \(FAILURE\|ERROR\)!' "$reports"/*.txt 2>/dev/null | grep -v '^Tests run' | sed 's/^/    /' || true
    [ "$tests" -gt 0 ] || tail -20 "$log" | sed 's/^/    /'
    echo "    replay: ${MVN:-mvn} -o -pl sockstate-core surefire:test@default-test -Dtest='<Class>#<method>'" \
      "-Dsockstate.test.misbehave=$seed -Dsockstate.test.backend=$backend${FAULTS:+ -Dsockstate.test.misbehave.faults=$FAULTS}"
  fi
done
if [ ${#failed_seeds[@]} -gt 0 ]; then
  echo "seeds that failed: ${failed_seeds[*]}"
  exit 1
fi
echo "every seed passed"
