# Sourced by the benchmark scripts: writes a run's results to a directory meant to be committed, as the
# Java harnesses' --results option does: <parent>/<yyyy-MM-dd>-<short commit>/ (the day the run began in UTC, the commit
# COMMIT's or git's; -2, -3, ... when taken), with a README.md headed by what ran (the command, the JDK, the
# programs' versions, the kernel, the CPU, the date, the commit; no machine paths) above the report, the
# report as report.md and the raw runs beside it.
#
#   write_results <parent> <title> <command> <report file> [raw file ...]
#
# Prints the directory written; returns 1, saying why, when it cannot. JAVA, when set, names the JDK the
# run used; RESULT_PROGRAMS the programs whose versions the page gives (redis-server, redis-benchmark,
# nutcracker). The command shown is the caller's: it names folders relative to the repository's root.

# The day the run began, in UTC, as the Java harnesses name it: taken as the script sources this file.
results_day=$(date -u +%Y-%m-%d)

results_commit() {
  local commit=${COMMIT:-}
  [ -n "$commit" ] || commit=$(git rev-parse --short HEAD 2>/dev/null || true)
  commit=$(printf '%s' "$commit" | tr -c 'A-Za-z0-9._-' '-')
  [ -n "${commit//[.-]/}" ] || commit=unknown
  printf '%s' "$commit"
}

# The environment a command was given, as the page shows it: each named variable that is set, as
# NAME=value, a path given absolute shown as <dir> (RESULTS) or <jar> (the *_JAR ones), so that no
# machine path lands in a page.
#
#   results_environment NAME ...
results_environment() {
  local name value shown=()
  for name in "$@"; do
    value=${!name:-}
    [ -n "$value" ] || continue
    if [[ $value == /* ]]; then
      case $name in *_JAR) value='<jar>' ;; *) value='<dir>' ;; esac
    elif [[ $value == *' '* ]]; then
      value="\"$value\""
    fi
    shown+=("$name=$value")
  done
  printf '%s' "${shown[*]}"
}

write_results() {
  local parent=$1 title=$2 command=$3 report=$4
  shift 4
  local date name dir n=1
  date=$results_day
  name="$date-$(results_commit)"
  mkdir -p "$parent" || return 1
  dir="$parent/$name"
  until mkdir "$dir" 2>/dev/null; do
    [ -e "$dir" ] || { echo "cannot create $dir" >&2; return 1; }
    n=$((n + 1))
    dir="$parent/$name-$n"
  done
  local jdk cpu versions=()
  jdk=$("${JAVA:-java}" -XshowSettings:properties -version 2>&1 \
    | awk -F' = ' '/java.version = / { v = $2 } /java.vendor = / { d = $2 } END { print v " (" d ")" }')
  cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
  local program
  for program in ${RESULT_PROGRAMS:-}; do
    case $program in
      redis-server) versions+=("$(redis-server --version | awk '{ print $1 " " $2 " " $3 }')") ;;
      redis-benchmark) versions+=("redis-benchmark $(redis-benchmark --version 2>/dev/null | awk '{ print $2 }')") ;;
      nutcracker) versions+=("twemproxy $("$(command -v nutcracker || echo /usr/sbin/nutcracker)" --version 2>&1 \
        | awk 'NR == 1 { sub(/^nutcracker-/, "", $NF); print $NF }')") ;;
    esac
  done
  {
    echo "# $title: $date, commit $(results_commit)"
    echo
    echo "- Command: \`$command\`"
    echo "- JDK: ${jdk:-not known}, every JVM's"
    [ ${#versions[@]} -gt 0 ] && echo "- Programs: $(IFS=';'; echo "${versions[*]}" | sed 's/;/; /g')"
    echo "- System: $(uname -sr) ($(uname -m)); CPU: ${cpu:-not known}, $(nproc) available processors"
    echo "- Date: $date (UTC); commit: $(results_commit)"
    echo
    local raw
    for raw in "$@"; do
      echo "The raw runs are in [$(basename "$raw")]($(basename "$raw"))."
    done
    [ $# -gt 0 ] && echo
    cat "$report"
  } >"$dir/README.md" || return 1
  cp "$report" "$dir/report.md" || return 1
  local raw
  for raw in "$@"; do
    cp "$raw" "$dir/" || return 1
  done
  printf '%s\n' "$dir"
}
