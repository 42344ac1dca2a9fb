#!/usr/bin/env bash
# Fuzzes the decoders of a peer's bytes: each Jazzer fuzz target (@FuzzTest) in turn, for a while, in
# Jazzer's fuzzing mode. What a target finds (an input that fails it) and the inputs the fuzzer kept
# for new coverage (its corpus, <module>/.cifuzz-corpus/, not committed) are copied into the target's
# committed corpus (src/test/resources/<package>/<Class>Inputs/<method>/), where every `mvn verify`
# runs them again as regression tests.
#
#   benchmarks/fuzz.sh [minutes per target] [module:Class ...]
#                        (defaults: 5 minutes, every target below)
#
# Environment: MVN (default: mvn). Run it after a build that installed the modules (mvn -B -q -DskipTests
# install). Prints per target the inputs run, the corpus size and what was found.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-5}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(
    sockstate-core:ProxyHeaderFuzzTest
    sockstate-core:ClientHelloFuzzTest
    sockstate-core:FramingFuzzTest
    sample-app:RespCodecFuzzTest
    sample-app:RespReplyCodecFuzzTest
    sample-app:SyslogFuzzTest
  )
fi
status=0
for target in "${targets[@]}"; do
  module=${target%%:*}
  class=${target#*:}
  source=$(find "$module/src/test/java" -name "$class.java" | head -1)
  [ -n "$source" ] || { echo "$target: no $class.java in $module/src/test/java" >&2; exit 1; }
  package_path=$(dirname "${source#"$module/src/test/java/"}")
  method=$(grep -A1 '@FuzzTest' "$source" | grep -o 'void [A-Za-z0-9_]*' | head -1 | cut -d' ' -f2)
  inputs="$module/src/test/resources/$package_path/${class}Inputs/$method"
  log=$(mktemp)
  before=$(find "$inputs" -type f 2>/dev/null | wc -l || true)
  if JAZZER_FUZZ=1 JAZZER_MAX_DURATION="${minutes}m" ${MVN:-mvn} -B -q -o -pl "$module" test-compile surefire:test@fuzz-regression -Dtest="$class" \
      -Dsurefire.failIfNoSpecifiedTests=false >"$log" 2>&1; then
    outcome="nothing found"
  elif grep -q FuzzTestFindingException "$log"; then
    outcome="FOUND: see $log"
    status=1
  else
    outcome="FAILED before fuzzing: see $log"
    status=1
  fi
  # Jazzer writes a finding into the module's folder or into the target's corpus folder: both end in the latter.
  for crash in "$module"/crash-* "$module"/timeout-* "$module"/slow-unit-*; do
    [ -e "$crash" ] || continue
    mkdir -p "$inputs"
    mv "$crash" "$inputs/"
  done
  found=$(( $(find "$inputs" -type f 2>/dev/null | wc -l || true) - before ))
  grown=$(find "$module/.cifuzz-corpus" -type d -path "*$class*" -name "$method" 2>/dev/null | head -1 || true)
  if [ -n "$grown" ]; then
    mkdir -p "$inputs"
    cp -n "$grown"/* "$inputs/" 2>/dev/null || true
  fi
  runs=$(grep -aoE 'Done [0-9]+ runs|#[0-9]+[[:space:]]+DONE' "$log" | grep -oE '[0-9]+' | tail -1 || true)
  corpus=$(find "$module/.cifuzz-corpus" -path "*$class*" -type f 2>/dev/null | wc -l || true)
  echo "$class.$method: ${minutes} min, ${runs:-?} inputs run, corpus $corpus, $outcome; $found finding(s) in $inputs"
done
exit $status
