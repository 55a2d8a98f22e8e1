package io.pgward.wire.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DatabaseCommandsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "drop database shop                                           | shop",
            "DROP DATABASE IF EXISTS Shop WITH (FORCE)                    | shop",
            "drop database \"Shop\"                                       | Shop",
            "/* c */ drop -- c\\n database shop;                          | shop",
            "select 1; drop database a; drop database b                   | a,b",
            "alter database shop rename to store                          | shop",
            "ALTER DATABASE shop SET TABLESPACE fast                      | shop",
            "create database copy                                         | template1",
            "create database copy template template0                      | template0",
            "create database copy with owner = app template = 'my tpl'    | my tpl",
            "create database copy TEMPLATE = \"Tpl\" encoding 'UTF8'      | Tpl",
            "create database copy template default                        | template1",
    })
    void namesTheDatabaseThatMustBeUnused(String sql, String names) {
        assertEquals(Set.of(names.split(",")), DatabaseCommands.databasesToFree(sql.replace("\\n", "\n"), true));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "select 1",
            "select 'drop database shop'",
            "select 1 -- drop database shop",
            "alter database shop set search_path = public",
            "alter database shop owner to app",
            "drop table database",
            "comment on database shop is 'x'",
            "drop database",
            "select 'unterminated",
    })
    void namesNoneForOtherStatements(String sql) {
        assertEquals(Set.of(), DatabaseCommands.databasesToFree(sql, true));
    }
}
