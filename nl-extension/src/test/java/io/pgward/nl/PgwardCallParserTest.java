package io.pgward.nl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PgwardCallParserTest {

    private static Optional<PgwardCall> parse(String sql) throws NlException {
        return PgwardCallParser.parse(sql, true);
    }

    @Test
    void readsEveryFunctionInBothForms() throws NlException {
        assertEquals(Optional.of(new PgwardCall.Ask("top 5 customers", OptionalInt.empty())),
                parse("SELECT * FROM pgward.ask('top 5 customers')"));
        assertEquals(Optional.of(new PgwardCall.Ask("top 5 customers", OptionalInt.of(20))),
                parse("select * from PGWARD.ASK('top 5 customers', 20);"));
        assertEquals(Optional.of(new PgwardCall.Ask("top 5 customers", OptionalInt.of(20))),
                parse("SELECT pgward.ask('top 5 customers', 20)"));
        assertEquals(Optional.of(new PgwardCall.Sql("orders per day")), parse("SELECT * FROM pgward.sql('orders per day')"));
        assertEquals(Optional.of(new PgwardCall.Schema(Optional.empty())), parse("SELECT * FROM pgward.schema()"));
        assertEquals(Optional.of(new PgwardCall.Schema(Optional.of("public.orders"))),
                parse("SELECT * FROM pgward.schema('public.orders')"));
        assertEquals(Optional.of(new PgwardCall.RefreshSchema()), parse("SELECT pgward.refresh_schema()"));
        assertEquals(Optional.of(new PgwardCall.Dialect()), parse("SELECT pgward.dialect();"));
        assertEquals(Optional.of(new PgwardCall.Dialect()), parse("SELECT \"pgward\".\"dialect\"()"));
    }

    @Test
    void readsTheRelationFunctions() throws NlException {
        assertEquals(Optional.of(new PgwardCall.Relations()), parse("SELECT * FROM pgward.relations()"));
        assertEquals(Optional.of(new PgwardCall.Describe("public.\"Orders\"")),
                parse("select * from pgward.describe('public.\"Orders\"');"));
        assertEquals("pgward.describe takes 1 argument, not 0",
                assertThrows(NlException.class, () -> parse("SELECT * FROM pgward.describe()")).getMessage());
    }

    @Test
    void readsTheAqlFunctionInBothForms() throws NlException {
        assertEquals(Optional.of(new PgwardCall.Aql("friends of Ada")),
                parse("SELECT * FROM pgward.aql('friends of Ada')"));
        assertEquals(Optional.of(new PgwardCall.Aql("friends of Ada")), parse("select PGWARD.AQL('friends of Ada');"));
        assertEquals(Optional.of(new PgwardCall.Aql("it's")), parse("SELECT pgward.aql(E'it\\'s')"));
        assertEquals("pgward.aql takes 1 argument, not 2",
                assertThrows(NlException.class, () -> parse("SELECT * FROM pgward.aql('q', 5)")).getMessage());
        assertEquals("pgward.aql takes a string literal here, not 7",
                assertThrows(NlException.class, () -> parse("SELECT pgward.aql(7)")).getMessage());
        assertEquals(Optional.empty(), parse("SELECT * FROM pgward.aql('q') AS a"));
    }

    @Test
    void decodesStringLiteralsAsPostgresDoes() throws NlException {
        assertEquals(Optional.of(new PgwardCall.Sql("customers' names")), parse("SELECT pgward.sql('customers'' names')"));
        assertEquals(Optional.of(new PgwardCall.Sql("it's\ta tab")), parse("SELECT pgward.sql(E'it\\'s\\ta tab')"));
        assertEquals(Optional.of(new PgwardCall.Sql("dollar 'quoted'")), parse("SELECT pgward.sql($$dollar 'quoted'$$)"));
        assertEquals(Optional.of(new PgwardCall.Sql("split literal")), parse("SELECT pgward.sql('split '\n'literal')"));
        assertEquals(Optional.of(new PgwardCall.Ask("q", OptionalInt.of(5))),
                parse("/* c */ SELECT * -- x\n FROM pgward . ask ( 'q' , 5 ) ;"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT * FROM pgward.ask('q') AS t",
            "SELECT * FROM pgward.ask('q') WHERE true",
            "SELECT pgward.ask('q'), 1",
            "SELECT * FROM pgward.describe('orders') AS d",
            "SELECT * FROM other.ask('q')",
            "SELECT * FROM pgward.ask('q' || 'r')",
            "SELECT * FROM pgward.ask('q'::text)",
            "SELECT * FROM pgward.ask('q',)",
            "SELECT * FROM pgward.ask('q'); SELECT 1",
            "SELECT ask('q')",
            "SELECT * FROM pgward.ask('unterminated)",
            "EXPLAIN SELECT * FROM pgward.ask('q')",
    })
    void otherStatementsAreNotCalls(String sql) throws NlException {
        assertEquals(Optional.empty(), parse(sql));
    }

    @Test
    void wrongArgumentsToOurFunctionsAreErrors() {
        assertEquals("pgward.ask takes 1 or 2 arguments, not 0",
                assertThrows(NlException.class, () -> parse("SELECT * FROM pgward.ask()")).getMessage());
        assertEquals("pgward.dialect takes 0 arguments, not 1",
                assertThrows(NlException.class, () -> parse("SELECT pgward.dialect('x')")).getMessage());
        assertEquals("pgward.ask takes an integer row limit, not 'ten'",
                assertThrows(NlException.class, () -> parse("SELECT * FROM pgward.ask('q', 'ten')")).getMessage());
        assertEquals("pgward.sql takes a string literal here, not 42",
                assertThrows(NlException.class, () -> parse("SELECT * FROM pgward.sql(42)")).getMessage());
        assertEquals(NlException.INVALID_PARAMETER,
                assertThrows(NlException.class, () -> parse("SELECT * FROM pgward.ask('q', 1.5)")).sqlState());
    }

    @Test
    void recognizeTakesTheCommentFormAsAnAskWithTheDefaultLimit() throws NlException {
        assertEquals(Optional.of(new PgwardCall.Ask("top 5 customers by revenue", OptionalInt.empty())),
                PgwardCallParser.recognize("/* nl: top 5 customers by revenue */", true));
        assertEquals(Optional.of(new PgwardCall.Dialect()), PgwardCallParser.recognize("SELECT pgward.dialect()", true));
        assertEquals(Optional.empty(), PgwardCallParser.recognize("SELECT 1 /* nl: x */", true));
    }

    @Test
    void negativeRowLimitIsReadSoTheEntryPointCanRefuseIt() throws NlException {
        assertEquals(Optional.of(new PgwardCall.Ask("q", OptionalInt.of(-3))), parse("SELECT * FROM pgward.ask('q', -3)"));
    }
}
