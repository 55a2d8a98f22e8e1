package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * psql as people use it: describe commands (which run psql's own catalog queries), {@code \copy} through a
 * local file (COPY TO STDOUT / FROM STDIN on the wire), and an error shown with its position under the line.
 */
@PostgresTest
@ExtendWith(Targets.StopAfterClass.class)
class PsqlIT {

    private static final String DESCRIBE = """
                           Table "public.pgward_items"
             Column |     Type      | Collation | Nullable | Default\s
            --------+---------------+-----------+----------+---------
             id     | integer       |           | not null |\s
             name   | text          |           | not null |\s
             price  | numeric(10,2) |           |          | 0
             note   | text          |           |          |\s
            Indexes:
                "pgward_items_pkey" PRIMARY KEY, btree (id)
                "pgward_items_name" btree (name)

            """;

    /** CSV as PostgreSQL writes it: quotes doubled, a newline inside quotes, NULL empty, '' quoted. */
    private static final String CSV = """
            id,name,price,note
            1,lamp,19.90,plain
            2,"desk, ""oak""\",249.00,"two
            lines"
            3,stuhl ü,0.00,
            4,empty note,1.50,""
            """;

    private final TestDatabase database;

    @TempDir
    Path files;

    PsqlIT(TestDatabase database) {
        this.database = database;
    }

    @BeforeAll
    static void createTable(TestDatabase database) throws Exception {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("""
                    CREATE TABLE pgward_items (id integer PRIMARY KEY, name text NOT NULL,
                                               price numeric(10,2) DEFAULT 0, note text);
                    COMMENT ON TABLE pgward_items IS 'Items for the psql tests';
                    CREATE INDEX pgward_items_name ON pgward_items (name);
                    INSERT INTO pgward_items VALUES (1, 'lamp', 19.9, 'plain'), (2, 'desk, "oak"', 249, E'two\\nlines'),
                                                    (3, 'stuhl ü', 0, NULL), (4, 'empty note', 1.5, '')""");
        }
    }

    @Test
    void describesATableWithBackslashD() throws Exception {
        Targets.forEach(database, target -> {
            RealClients.Result result = psql(target, "-c", "\\d pgward_items");
            assertEquals(0, result.exit(), result.err());
            assertEquals(DESCRIBE, result.out());
        });
    }

    @Test
    void listsTablesWithSizeAndDescription() throws Exception {
        Targets.forEach(database, target -> {
            RealClients.Result result = psql(target, "-c", "\\dt+ pgward_*");
            assertEquals(0, result.exit(), result.err());
            List<String> lines = result.out().lines().toList();
            List<String> header = cells(lines.get(1));
            List<String> row = cells(lines.get(3));
            assertEquals(List.of("Schema", "Name", "Type", "Owner"), header.subList(0, 4), result.out());
            assertEquals(List.of("public", "pgward_items", "table", database.user()), row.subList(0, 4), result.out());
            assertEquals("Items for the psql tests", row.get(header.indexOf("Description")));
            assertTrue(row.get(header.indexOf("Size")).matches("\\d+ (bytes|kB)"), result.out());
            assertEquals("(1 row)", lines.get(4));
        });
    }

    @Test
    void copiesATableToAFileAndBack() throws Exception {
        Targets.forEach(database, target -> {
            Path file = files.resolve(target.name().replaceAll("\\W", "_") + ".csv");
            RealClients.Result result = copyRoundTrip(target, file);
            assertEquals(0, result.exit(), result.err());
            assertEquals(CSV, Files.readString(file, StandardCharsets.UTF_8));
            // rows copied in, rows of the table missing from the copy, NULL notes, empty notes
            assertEquals("COPY 4\nCREATE TABLE\nCOPY 4\n4|0|1|1\n", result.out());
        });
    }

    @Test
    void showsTheErrorPositionUnderTheOffendingLine() throws Exception {
        Targets.forEach(database, target -> {
            // The position PostgreSQL reports counts characters, not bytes: 'Grüße' must not shift the caret.
            RealClients.Result oneLine = psql(target, "-c",
                    "SELECT 'Grüße' AS greeting, no_such_column FROM pgward_items");
            assertEquals(1, oneLine.exit());
            assertEquals("""
                    ERROR:  column "no_such_column" does not exist
                    LINE 1: SELECT 'Grüße' AS greeting, no_such_column FROM pgward_items
                                                        ^
                    """, oneLine.err());
            RealClients.Result secondLine = psql(target, "-c", """
                    SELECT id,
                           no_such_column
                      FROM pgward_items""");
            assertEquals(1, secondLine.exit());
            assertEquals("""
                    ERROR:  column "no_such_column" does not exist
                    LINE 2:        no_such_column
                                   ^
                    """, secondLine.err());
        });
    }

    @Test
    void everyCommandPrintsTheSameOutputOnEveryTarget() throws Exception {
        Target reference = Targets.reference(database);
        List<List<String>> commands = List.of(
                List.of("-c", "\\d pgward_items"),
                List.of("-c", "\\dt+ pgward_*"),
                List.of("-c", "\\d+ pgward_items_name"),
                List.of("-c", "SELECT 'Grüße' AS greeting, no_such_column FROM pgward_items"),
                List.of("-c", "SELECT * FROM pgward_items ORDER BY id"));
        for (Target other : Targets.comparedWithReference(database)) {
            for (List<String> command : commands) {
                SameOutput.assertSameOutput("psql " + command.getLast(), reference, other,
                        target -> json(psql(target, command.toArray(String[]::new))));
            }
            SameOutput.assertSameOutput("psql \\copy", reference, other, target -> {
                Path file = files.resolve("compared.csv");
                ObjectNode out = json(copyRoundTrip(target, file));
                return out.put("file", Files.readString(file, StandardCharsets.UTF_8));
            });
        }
    }

    /** \copy out to file, into a temporary copy of the table, and a row that compares the two. */
    private RealClients.Result copyRoundTrip(Target target, Path file) throws Exception {
        return psql(target, "-A", "-t",
                "-c", "\\copy pgward_items TO '" + file + "' WITH (FORMAT csv, HEADER)",
                "-c", "CREATE TEMP TABLE copied (LIKE pgward_items INCLUDING ALL)",
                "-c", "\\copy copied FROM '" + file + "' WITH (FORMAT csv, HEADER)",
                "-c", """
                        SELECT (SELECT count(*) FROM copied),
                               (SELECT count(*) FROM (TABLE pgward_items EXCEPT TABLE copied) missing),
                               (SELECT count(*) FROM copied WHERE note IS NULL),
                               (SELECT count(*) FROM copied WHERE note = '')""");
    }

    private static RealClients.Result psql(Target target, String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(RealClients.require("psql").toString(), "-X",
                "-v", "ON_ERROR_STOP=1", "-d", target.uri()));
        command.addAll(Arrays.asList(arguments));
        return RealClients.run(command);
    }

    private static List<String> cells(String line) {
        return Arrays.stream(line.split("\\|")).map(String::strip).toList();
    }

    private static ObjectNode json(RealClients.Result result) {
        return ClientScript.JSON.createObjectNode()
                .put("exit", result.exit()).put("out", result.out()).put("err", result.err());
    }
}
