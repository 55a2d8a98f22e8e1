package io.pgward.it;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What may differ between the oracle's output and pgward's, and why; everything else must be equal. The list
 * is short because the oracle is a copy of the test database ({@link OracleDatabase}): OIDs, rows, sizes and
 * statistics are the same on both sides.
 *
 * <ol>
 *   <li>The database's name: the two databases cannot share one. Both become {@code <database>} (they have
 *       the same length, so psql's column widths agree anyway).</li>
 *   <li>The database's OID, for the same reason: both become {@code <database oid>}.</li>
 *   <li>drizzle-kit's migration file name, a random word pair, and the output directory: both become
 *       {@code <file>}.</li>
 * </ol>
 */
final class OracleNormalisation {

    private final List<UnaryOperator<String>> steps = new ArrayList<>();

    OracleNormalisation(String testDatabase, String oracleDatabase, long testDatabaseOid, long oracleDatabaseOid) {
        steps.add(s -> s.replace(testDatabase, "<database>").replace(oracleDatabase, "<database>"));
        Pattern oids = Pattern.compile("(?<![0-9])(" + testDatabaseOid + "|" + oracleDatabaseOid + ")(?![0-9])");
        steps.add(s -> oids.matcher(s).replaceAll(Matcher.quoteReplacement("<database oid>")));
        Pattern drizzleFile = Pattern.compile("➜ \\S+");
        steps.add(s -> drizzleFile.matcher(s).replaceAll(Matcher.quoteReplacement("➜ <file>")));
    }

    String apply(String output) {
        String s = output;
        for (UnaryOperator<String> step : steps) {
            s = step.apply(s);
        }
        return s;
    }
}
