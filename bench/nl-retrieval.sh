#!/usr/bin/env bash
# Schema retrieval for natural-language questions (issue 15): how often the prompt holds every table a question's
# gold SQL reads, and how many relations it holds, on BIRD mini-dev (500 questions, 11 databases, 75 tables).
# The BIRD schemas are loaded into the embedded PostgreSQL of the tests (three variants: with their foreign keys,
# without them, with BIRD's column descriptions as comments), read by pgward's SchemaReflector, and every question
# goes through SchemaCatalog.forQuestion with retrieval forced on: per database (a login whose selection is one
# schema) and pooled (all 75 tables). No language model, no network: the embedding model runs in process.
#
# Prints a Markdown report and writes it to bench/results/nl-retrieval-<date>.md. Progress goes to stderr.
#
# Settings (environment):
#   NL_BENCH_SET=steps           steps: each retrieval step of docs/nl.md; sweep: top_k 4 to 12 with everything
#                                on; ablation: the defaults with one switch changed; defaults: the defaults only
#   PGWARD_SHARED=../shared      the directory holding nl-bench/bird
#   BENCH_RESULTS=bench/results  where the report goes
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init nl-retrieval
# shellcheck source=../scripts/select-jdk.sh
. "$BENCH_ROOT/scripts/select-jdk.sh"

SET=${NL_BENCH_SET:-steps}
SHARED=$(cd "${PGWARD_SHARED:-$BENCH_ROOT/../shared}" && pwd)
RESULTS=${BENCH_RESULTS:-$BENCH_ROOT/bench/results}
SUFFIX=${NL_BENCH_LABEL:+-$NL_BENCH_LABEL}
REPORT=$RESULTS/nl-retrieval-$(date -u +%Y-%m-%d)$SUFFIX.md
[ -f "$SHARED/nl-bench/bird/bird_questions.json" ] || bench_die "no BIRD data in $SHARED/nl-bench/bird"

bench_log "measuring ($SET) with nl-extension's BirdRetrievalBench"
"$BENCH_ROOT/mvnw" -f "$BENCH_ROOT/pom.xml" -q -B -ntp test -pl nl-extension -am -Dtest=BirdRetrievalBench \
    -Dsurefire.failIfNoSpecifiedTests=false -Dpgward.shared.dir="$SHARED" -Dnl.bench.set="$SET" \
    -Dnl.bench.out="$BENCH_TMP/table.md" >"$BENCH_TMP/build.log" 2>&1 \
    || { bench_tail "$BENCH_TMP/build.log" 40; bench_die "the measurement failed"; }

{
    echo "# Schema retrieval on BIRD mini-dev ($(date -u +%Y-%m-%d), set $SET)"
    echo
    echo "pgward $(git -C "$BENCH_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)," \
        "$(nproc) CPUs, retrieval forced on (relation_limit 0), prompt_budget_chars 24000."
    echo "Recall: share of the 500 questions (question + BIRD evidence) whose gold tables are all in the prompt;"
    echo "relations: how many the prompt shows. Per database: a login whose selection is the question's schema."
    echo
    cat "$BENCH_TMP/table.md"
} | tee "$REPORT"
bench_log "wrote $REPORT"
