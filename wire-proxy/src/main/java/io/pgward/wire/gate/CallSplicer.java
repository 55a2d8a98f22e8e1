package io.pgward.wire.gate;

import io.pgward.nl.NlException;
import io.pgward.nl.PgwardCallSites;
import io.pgward.nl.PgwardCallSites.CallSite;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Writes a statement with each {@code pgward.*} call replaced by what it computed, so that PostgreSQL runs the rest
 * of the statement with its own semantics: in a FROM list a subquery with the function's column names (a VALUES
 * list, or for zero rows a typed empty SELECT), under the function's name as alias unless the statement gives one;
 * in an expression the one value of a one-column, one-row function. Every column is of type text.
 *
 * <p>Values are written as {@code E'...'} literals with backslashes and quotes doubled, which PostgreSQL reads the
 * same whether standard_conforming_strings is on or off. A call's {@code $n} arguments stay in the statement as
 * {@code ($n::text IS NULL OR true)}, which decides nothing, so that the statement keeps the client's parameters
 * and their types are inferred (as text) where the client gave none.
 */
final class CallSplicer {

    /**
     * The most characters a statement with computed rows may have: the guard reads no longer text
     * ({@code ComplexityEnvelope.MAX_TEXT_CHARS}, 256 KiB), and a longer one is more than a query should carry.
     */
    static final int MAX_CHARS = 200_000;

    private static final String SYNTAX_ERROR = "42601";

    private CallSplicer() {
    }

    /** What one call gives. */
    sealed interface Result {
    }

    /** Rows of text values, null for NULL. */
    record Rows(List<String> columns, List<List<String>> rows) implements Result {
    }

    /** A query to run in place of the call: a question's generated, checked statement. */
    record Query(String sql) implements Result {
    }

    /** Each site replaced by its result, in order. */
    static String splice(String sql, List<CallSite> sites, List<Result> results) throws NlException {
        StringBuilder out = new StringBuilder(sql.length() + 256);
        int at = 0;
        for (int i = 0; i < sites.size(); i++) {
            CallSite site = sites.get(i);
            out.append(sql, at, site.start());
            out.append(replacement(site, results.get(i)));
            at = site.end();
            if (out.length() > MAX_CHARS) {
                throw tooLong(site);
            }
        }
        out.append(sql, at, sql.length());
        if (out.length() > MAX_CHARS) {
            throw tooLong(sites.getLast());
        }
        return out.toString();
    }

    /**
     * The statement with each call replaced by an empty result of its columns: what a Parse prepares before the
     * values bound to the calls' parameters are known, so that Describe answers with the right columns.
     */
    static String shape(String sql, List<CallSite> sites) throws NlException {
        List<Result> empty = new java.util.ArrayList<>();
        for (CallSite site : sites) {
            List<String> columns = PgwardCallSites.columns(site.function());
            if (columns.isEmpty() && site.definitions().isEmpty() && site.bindsParameters()) {
                throw new NlException(SYNTAX_ERROR, "pgward." + site.function() + " with a bound parameter needs "
                        + "a column definition list, as PostgreSQL asks of a function returning record: its columns "
                        + "depend on the question, and a prepared statement's columns are fixed before its "
                        + "parameters are bound (select * from pgward.ask($1) as t(name text, revenue numeric)); "
                        + "or write the question into the statement as a string literal instead of $n");
            }
            empty.add(new Rows(columns, List.of()));
        }
        return splice(sql, sites, empty);
    }

    private static String replacement(CallSite site, Result result) throws NlException {
        if (!site.definitions().isEmpty()) {
            return defined(site, result);
        }
        if (!site.inFrom()) {
            return expression(site, result);
        }
        StringBuilder sql = new StringBuilder("(");
        switch (result) {
            case Query query -> sql.append("SELECT * FROM (\n").append(query.sql()).append("\n) AS pgward_query")
                    .append(parameterReferences(site, " WHERE "));
            case Rows rows -> rows(sql, site, rows);
        }
        sql.append(')');
        if (!site.aliased()) {
            sql.append(" AS ").append(quoted(site.function()));
        }
        return sql.toString();
    }

    private static void rows(StringBuilder sql, CallSite site, Rows rows) {
        if (rows.rows().isEmpty()) {
            sql.append("SELECT ");
            for (int c = 0; c < rows.columns().size(); c++) {
                sql.append(c == 0 ? "" : ", ").append("NULL::pg_catalog.text AS ")
                        .append(quoted(rows.columns().get(c)));
            }
            sql.append(" WHERE false").append(parameterReferences(site, " AND "));
            return;
        }
        sql.append("SELECT * FROM (VALUES ");
        for (int r = 0; r < rows.rows().size(); r++) {
            sql.append(r == 0 ? "(" : ", (");
            List<String> row = rows.rows().get(r);
            for (int c = 0; c < row.size(); c++) {
                sql.append(c == 0 ? "" : ", ").append(literal(row.get(c))).append("::pg_catalog.text");
            }
            sql.append(')');
            if (sql.length() > MAX_CHARS) {
                return;
            }
        }
        sql.append(") AS pgward_rows(");
        for (int c = 0; c < rows.columns().size(); c++) {
            sql.append(c == 0 ? "" : ", ").append(quoted(rows.columns().get(c)));
        }
        sql.append(')').append(parameterReferences(site, " WHERE "));
    }

    /**
     * A question with a column definition list ({@code pgward.ask(...) AS t(name text, revenue numeric)}): the
     * generated query's columns, by position, cast to the types the list gives and named as it names them; columns
     * past the list's are left out, fewer are PostgreSQL's error. Its shape, before the question is known, is an
     * empty result of those columns; a question that is not about the database gives its answer in a list of one
     * column, and is an error for more.
     */
    private static String defined(CallSite site, Result result) throws NlException {
        if (!site.function().equals("ask")) {
            throw new NlException(SYNTAX_ERROR, "a column definition list is only allowed for functions returning "
                    + "record: pgward." + site.function() + "() has the columns "
                    + String.join(", ", PgwardCallSites.columns(site.function())));
        }
        List<PgwardCallSites.ColumnDefinition> columns = site.definitions();
        for (PgwardCallSites.ColumnDefinition column : columns) {
            if (column.type().isEmpty()) {
                throw new NlException(SYNTAX_ERROR, "a column definition list needs a type for every column, not "
                        + "for " + column.name() + " alone");
            }
        }
        StringBuilder sql = new StringBuilder("(SELECT ");
        switch (result) {
            case Query query -> {
                for (int c = 0; c < columns.size(); c++) {
                    sql.append(c == 0 ? "" : ", ").append("pgward_query.pgward_c").append(c + 1).append("::")
                            .append(columns.get(c).type()).append(" AS ").append(columns.get(c).name());
                }
                sql.append(" FROM (\n").append(query.sql()).append("\n) AS pgward_query(");
                for (int c = 0; c < columns.size(); c++) {
                    sql.append(c == 0 ? "" : ", ").append("pgward_c").append(c + 1);
                }
                sql.append(')').append(parameterReferences(site, " WHERE "));
            }
            case Rows rows when rows.rows().isEmpty() -> {
                for (int c = 0; c < columns.size(); c++) {
                    sql.append(c == 0 ? "" : ", ").append("NULL::").append(columns.get(c).type()).append(" AS ")
                            .append(columns.get(c).name());
                }
                sql.append(" WHERE false").append(parameterReferences(site, " AND "));
            }
            case Rows rows -> {
                String answer = rows.rows().getFirst().getFirst();
                if (columns.size() != 1) {
                    throw new NlException(NlException.INVALID_PARAMETER, "the question is not about the database, "
                            + "so it has no rows of " + columns.size() + " columns; the answer: " + answer);
                }
                sql.append(literal(answer)).append("::").append(columns.getFirst().type()).append(" AS ")
                        .append(columns.getFirst().name()).append(parameterReferences(site, " WHERE "));
            }
        }
        return sql.append(") AS ").append(site.alias() == null ? quoted(site.function()) : site.alias()).toString();
    }

    /**
     * A call in an expression (the select list, WHERE, an argument) is its one value: only a function of one column
     * and one row can stand there. PostgreSQL would return a record per row for the others, which pgward does not
     * build; the error says to call them in FROM.
     */
    private static String expression(CallSite site, Result result) throws NlException {
        if (result instanceof Rows rows && rows.columns().size() == 1 && rows.rows().size() <= 1
                && !site.bindsParameters()) {
            // A scalar subquery: PostgreSQL names the select list's column after its column, as after the function.
            return "(SELECT " + (rows.rows().isEmpty() ? "NULL" : literal(rows.rows().getFirst().getFirst()))
                    + "::pg_catalog.text AS " + quoted(rows.columns().getFirst()) + ")";
        }
        throw new NlException("0A000", "pgward." + site.function() + "() returns rows: call it in FROM, as in "
                + "select * from pgward." + site.function() + "(...); only pgward.dialect() and "
                + "pgward.refresh_schema() stand for a value in an expression");
    }

    /** The call's {@code $n} arguments, kept in the statement without effect. */
    private static String parameterReferences(CallSite site, String lead) {
        SortedSet<Integer> numbers = new TreeSet<>();
        for (PgwardCallSites.Argument argument : site.arguments()) {
            if (argument instanceof PgwardCallSites.Parameter p) {
                numbers.add(p.number());
            }
        }
        StringBuilder sql = new StringBuilder();
        for (int n : numbers) {
            sql.append(sql.isEmpty() ? lead : " AND ").append("($").append(n)
                    .append("::pg_catalog.text IS NULL OR true)");
        }
        return sql.toString();
    }

    private static NlException tooLong(CallSite site) {
        return new NlException("54000", "pgward." + site.function() + "() gives more rows than pgward puts into "
                + "one statement (at most " + MAX_CHARS + " characters in all): call it alone, as in select * from "
                + "pgward." + site.function() + "(...), or narrow it (pgward.schema('relation'), "
                + "pgward.describe('relation'))");
    }

    /** An E'' literal: reads the same whatever standard_conforming_strings says. */
    static String literal(String value) {
        if (value == null) {
            return "NULL";
        }
        return "E'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }

    private static String quoted(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }
}
