package io.pgward.guard.catalog;

import io.pgward.guard.Verdict;

/** PostgreSQL rejected the statement while analysing it; its error is the verdict. */
final class PostgresVerdict extends Exception {

    final Verdict.Refuse verdict;

    PostgresVerdict(Verdict.Refuse verdict) {
        super(verdict.message(), null, false, false);
        this.verdict = verdict;
    }
}
