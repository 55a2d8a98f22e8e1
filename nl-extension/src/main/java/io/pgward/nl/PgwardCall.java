package io.pgward.nl;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * A call of one of the natural-language {@code pgward.*} functions, as {@link PgwardCallParser} reads it from a
 * statement.
 */
public sealed interface PgwardCall {

    /** {@code pgward.ask('question' [, row_limit])}. */
    record Ask(String question, OptionalInt rowLimit) implements PgwardCall {
    }

    /** {@code pgward.sql('question')}. */
    record Sql(String question) implements PgwardCall {
    }

    /**
     * {@code pgward.aql('question')}: on an ArangoDB database, the AQL for a question, validated but not run.
     */
    record Aql(String question) implements PgwardCall {
    }

    /** {@code pgward.schema(['relation'])}. */
    record Schema(Optional<String> relation) implements PgwardCall {
    }

    /** {@code pgward.refresh_schema()}. */
    record RefreshSchema() implements PgwardCall {
    }

    /** {@code pgward.dialect()}. */
    record Dialect() implements PgwardCall {
    }

    /** {@code pgward.relations()}: the relations the login may read (the table selection's listRelations). */
    record Relations() implements PgwardCall {
    }

    /** {@code pgward.describe('name')}: one relation the login may read, described. */
    record Describe(String relation) implements PgwardCall {
    }
}
