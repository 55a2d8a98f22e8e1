#!/usr/bin/env bash
# JMH benchmarks of the read-only guard (bench/jmh): the lexer, the classifier, and ReadOnlyGuard.check with a
# cache miss and with a cached verdict, in µs per operation. Builds the benchmarks with -Pbench (the default
# build leaves them out), runs them, prints a Markdown report and writes it to bench/results/guard-jmh-<date>.md.
# Progress goes to stderr. See bench/README.md.
#
# Settings (environment):
#   BENCH_JMH_FILTER=.           JMH's benchmark regular expression (e.g. 'GuardBenchmark.guardHit')
#   BENCH_JMH_ARGS=""            more JMH options, e.g. "-f 1 -wi 2 -i 3" for a quick look (not a measurement)
#   BENCH_RESULTS=bench/results  where the report goes
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init guard-jmh
# shellcheck source=../scripts/select-jdk.sh
. "$BENCH_ROOT/scripts/select-jdk.sh"

FILTER=${BENCH_JMH_FILTER:-.}
RESULTS=${BENCH_RESULTS:-$BENCH_ROOT/bench/results}
JAR=$BENCH_ROOT/bench/jmh/target/guard-benchmarks.jar
JAVA=$JAVA_HOME/bin/java
read -r -a extra_args <<<"${BENCH_JMH_ARGS:-}"

bench_log "building the benchmarks (./mvnw -Pbench -pl bench/jmh -am package)"
"$BENCH_ROOT/mvnw" -f "$BENCH_ROOT/pom.xml" -q -B -ntp -Pbench -pl bench/jmh -am -DskipTests package \
    >"$BENCH_TMP/build.log" 2>&1 || { bench_tail "$BENCH_TMP/build.log" 40; bench_die "the build failed"; }
[ -f "$JAR" ] || bench_die "the build did not produce $JAR"

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
bench_log "running JMH (about 6 min with the defaults); JMH's own output is in the report's collapsed section"
"$JAVA" -jar "$JAR" "$FILTER" -rf csv -rff "$BENCH_TMP/jmh.csv" "${extra_args[@]}" >"$BENCH_TMP/jmh.log" 2>&1 \
    || { bench_tail "$BENCH_TMP/jmh.log" 40; bench_die "JMH failed"; }
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
[ -s "$BENCH_TMP/jmh.csv" ] || bench_die "JMH wrote no results"

# JMH's CSV (CRLF line ends): "Benchmark","Mode","Threads","Samples","Score","Score Error (99.9%)","Unit","Param: workload".
# Prints "class.method<TAB>workload<TAB>score<TAB>error".
scores() {
    tail -n +2 "$BENCH_TMP/jmh.csv" | tr -d '"\r' | awk -F, '{ sub(/^io\.pgward\.bench\.guard\./, "", $1); print $1 "\t" $8 "\t" $5 "\t" $6 }'
}

# Formats a score: three significant digits, the error after ±.
fmt_score() {
    awk -v s="$1" -v e="$2" 'function f(x) { return x >= 100 ? sprintf("%.0f", x) : x >= 10 ? sprintf("%.1f", x) : x >= 1 ? sprintf("%.2f", x) : sprintf("%.3f", x) }
        BEGIN { if (s == "") print "—"; else if (e == "" || e == "NaN") print f(s); else print f(s) " ± " f(e) }'
}

what() {
    case $1 in
        GuardBenchmark.lexerSplit) echo "L1: \`SqlLexer.split\` of the text" ;;
        GuardBenchmark.classify) echo "L2: \`ReadOnlyClassifier.classify\` of each statement, already split" ;;
        GuardBenchmark.guardMiss) echo "\`ReadOnlyGuard.check\` of a text not seen before, judged in full (no sharing by shape): split, classify, cache" ;;
        GuardBenchmark.guardNewLiteral) echo "\`ReadOnlyGuard.check\` of a new literal of a shape allowed before: split, shape key, lookup (BI and MULTI have no shared shape: their literal is a LIMIT, and MULTI has a SET)" ;;
        GuardBenchmark.guardHit) echo "\`ReadOnlyGuard.check\` of a text whose verdict is cached (decoding the text included)" ;;
        GuardBenchmark.decodeText) echo "baseline: decoding the text from UTF-8, as pgward does for every login" ;;
        ParserBenchmark.parseOnCallingThread) echo "JSqlParser alone, on the calling thread, as the classifier calls it (the queries only)" ;;
        ParserBenchmark.parseOnExecutor) echo "JSqlParser on a virtual thread with a timeout, as the classifier called it before its work was bounded" ;;
        *) echo "" ;;
    esac
}

report() {
    local bench cells w line
    echo "# Guard microbenchmarks (JMH)"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- machine: $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), Linux $(uname -r)"
    echo "- pgward: $(git -C "$BENCH_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$BENCH_ROOT" diff --quiet HEAD -- . ':!bench' 2>/dev/null || echo ' (with local changes)') on $("$JAVA" -version 2>&1 | head -n 1)"
    # The settings of the first benchmark; ParserBenchmark runs fewer iterations (see its annotations).
    echo "- JMH $(sed -nE 's/^# JMH version: (.*)/\1/p' "$BENCH_TMP/jmh.log" | head -n 1): $(sed -nE 's/^# Warmup: (.*)/warm-up \1/p' "$BENCH_TMP/jmh.log" | head -n 1), $(sed -nE 's/^# Measurement: (.*)/measurement \1/p' "$BENCH_TMP/jmh.log" | head -n 1), $(sed -nE 's/^# Fork: 1 of ([0-9]+)/\1 forks/p' "$BENCH_TMP/jmh.log" | head -n 1), one thread${extra_args[*]:+; options: ${extra_args[*]}}"
    echo "- load average (1/5/15 min): $LOAD_BEFORE before, $LOAD_AFTER after (other work on the machine inflates every figure)"
    echo
    echo "Workloads (\`bench/jmh/.../Workload.java\`): POINT is pgbench's point query, BI a dashboard query with"
    echo "CTEs, joins, a window function, comments and strings, MULTI a Query message of five statements (BEGIN READ"
    echo "ONLY, SET, two SELECTs, COMMIT), BI_FILTER the dashboard query with its literal in a WHERE filter. All are"
    echo "allowed for a read-only login."
    echo
    echo "| workload | bytes | statements |"
    echo "|---|--:|--:|"
    "$JAVA" -cp "$JAR" io.pgward.bench.guard.Workload
    echo
    echo "Average time per operation in µs (lower is better), ± JMH's 99.9 % confidence half-width."
    echo
    echo "| benchmark | what | POINT | BI | BI_FILTER | MULTI |"
    echo "|---|---|--:|--:|--:|--:|"
    for bench in $(scores | cut -f1 | awk '!seen[$0]++'); do
        cells=""
        for w in POINT BI BI_FILTER MULTI; do
            line=$(scores | awk -F'\t' -v b="$bench" -v w="$w" '$1 == b && $2 == w')
            cells="$cells | $(fmt_score "$(cut -f3 <<<"$line")" "$(cut -f4 <<<"$line")")"
        done
        echo "| \`$bench\` | $(what "$bench")$cells |"
    done
    echo
    echo "<details><summary>JMH's summary</summary>"
    echo
    echo '```'
    sed -n '/^Benchmark /,$p' "$BENCH_TMP/jmh.log"
    echo '```'
    echo
    echo "</details>"
}

mkdir -p "$RESULTS"
file=$RESULTS/guard-jmh-$(date -u +%Y-%m-%d).md
report | tee "$file"
bench_log "wrote $file"
