package io.pgward.bench.guard;

import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The statement texts of the guard-work benchmark: each input that once made the guard's work unbounded, at the
 * size it was reported with, and two ordinary queries for comparison (one small, one the size of a large BI tool
 * query). Every text is a read a read-only login could send; none touches a table, so each also runs on an empty
 * database.
 */
public enum PathologicalInput {

    /** pgbench's point query shape, without a table. */
    ORDINARY("select 1 + 1 where 2 > 1"),

    /** A large but ordinary BI query: 300 columns, 3,000 IN values, a 200-WHEN CASE. */
    LARGE_BI(largeBi()),

    /** {@code select (select (select ... 1001) ...)}: 30 levels of scalar subselects, 278 bytes. */
    NESTED_SUBSELECTS_30("select (".repeat(29) + "select 1001" + ")".repeat(29)),

    /** {@code select 1+1+...}: 5,000 terms. */
    SUM_5000("select " + "1+".repeat(4_999) + "1"),

    /** Parentheses 3,000 deep. */
    PARENTHESES_3000("select " + "(".repeat(3_000) + "1" + ")".repeat(3_000)),

    /** {@code array[} 500 deep. */
    ARRAY_500("select " + "array[".repeat(500) + "1" + "]".repeat(500)),

    /** A select list of 1,600 columns. */
    COLUMNS_1600("select " + IntStream.rangeClosed(1, 1_600).mapToObj(i -> i + " as c" + i)
            .collect(Collectors.joining(", "))),

    /** A CASE of 2,000 WHENs. */
    CASE_2000("select case g " + IntStream.rangeClosed(1, 2_000).mapToObj(i -> "when " + i + " then 'v" + i + "'")
            .collect(Collectors.joining(" ")) + " else 'other' end from generate_series(1, 3) g"),

    /** An IN list of 200,000 values. */
    IN_200000("select count(*) from generate_series(1, 10) g where g in ("
            + IntStream.rangeClosed(1, 200_000).mapToObj(Integer::toString).collect(Collectors.joining(", ")) + ")"),

    /** CASE nested in a WHEN 30 deep (exponential in JSqlParser as well). */
    NESTED_CASE_30("select " + "case when ".repeat(30) + "true" + " then true else false end".repeat(30)),

    /** WITH queries nested 7,000 deep, just under the text limit (once quadratic in L2's token checks). */
    NESTED_WITH_7000("select * from " + "(with a as (".repeat(7_000) + "select 1" + ") select * from a) x"
            .repeat(7_000));

    private final String sql;

    PathologicalInput(String sql) {
        this.sql = sql;
    }

    public String sql() {
        return sql;
    }

    private static String largeBi() {
        String columns = IntStream.rangeClosed(1, 300).mapToObj(i -> "g * " + i + " as c" + i)
                .collect(Collectors.joining(", "));
        String when = IntStream.rangeClosed(1, 200).mapToObj(i -> "when g = " + i + " then 'v" + i + "'")
                .collect(Collectors.joining(" "));
        String in = IntStream.rangeClosed(1, 3_000).mapToObj(Integer::toString).collect(Collectors.joining(", "));
        return "select " + columns + ", case " + when + " else 'other' end as tier from generate_series(1, 3) g "
                + "where g in (" + in + ")";
    }
}
