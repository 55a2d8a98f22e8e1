#!/usr/bin/env bash
# Runs the tests whose verdicts depend on PostgreSQL's own analysis (the catalog check, the red-team corpus
# through pgward, the table selection, search_path tracking, the row cap) on every supported major version.
# CI runs the whole suite on PostgreSQL 17 and this script for 14 and 18; by hand it covers 14, 15, 16 and 18
# (or the versions given).
#
#   scripts/test-postgres-versions.sh            # 14 15 16 18
#   scripts/test-postgres-versions.sh 15 18
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/select-jdk.sh

versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
  versions=(14 15 16 18)
fi
failed=()
for version in "${versions[@]}"; do
  echo "=== PostgreSQL $version"
  if ! ./mvnw -B -ntp verify -pl it-tests -am -Dpg.version="$version" \
      -Dtest='io.pgward.guard.catalog.**,io.pgward.guard.selection.**' -Dsurefire.failIfNoSpecifiedTests=false \
      -Dit.test='CorpusReplayIT,RelationsAndDescribeIT,SearchPathTrackingIT,PreparedAcrossSearchPathIT,RowCapIT' \
      -Dfailsafe.failIfNoSpecifiedTests=false; then
    failed+=("$version")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed on PostgreSQL ${failed[*]}" >&2
  exit 1
fi
echo "passed on PostgreSQL ${versions[*]}"
