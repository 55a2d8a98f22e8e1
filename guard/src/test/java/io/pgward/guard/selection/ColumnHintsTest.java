package io.pgward.guard.selection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.SqlStates;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The pure hint function; {@link ColumnHintsPostgresTest} shows it on PostgreSQL's own errors. */
class ColumnHintsTest {

    private static final SelectedRelation ORDERS = relation(1, "public", "orders", "public.orders",
            List.of("id", "customer_id", "status"));
    private static final SelectedRelation HR_STORES = relation(2, "hr", "stores", "hr.stores", List.of("id", "city"));
    private static final SelectedRelation STORES = relation(3, "public", "stores", "public.stores", List.of("id"));
    private static final SelectedRelation MIXED = relation(4, "public", "Stores", "public.\"Stores\"",
            List.of("\"Id\""));
    private static final ResolvedSelection SELECTION = new ResolvedSelection(
            List.of(ORDERS, HR_STORES, STORES, MIXED), List.of(), false);

    private static SelectedRelation relation(long oid, String schema, String name, String display,
                                             List<String> columns) {
        return new SelectedRelation(oid, schema, name, RelationKind.TABLE, display, columns);
    }

    private static String hints(String sql) {
        return ColumnHints.hints(sql, true, SELECTION);
    }

    @Test
    void namesTheSelectedRelationsForDescribeInListOrder() {
        assertEquals(List.of("public.orders", "hr.stores", "public.stores"),
                ColumnHints.named("SELECT x FROM stores s JOIN orders o ON o.id = s.id", true, SELECTION));
        assertEquals(List.of("public.\"Stores\""), ColumnHints.named("SELECT x FROM \"Stores\"", true, SELECTION));
        assertEquals(List.of(), ColumnHints.named("SELECT 'orders' -- stores", true, SELECTION));
        assertEquals("select * from pgward.describe('public.orders') shows the columns of public.orders; "
                + "select * from pgward.describe('public.\"Stores\"') shows the columns of public.\"Stores\".",
                io.pgward.guard.Hints.describe(List.of("public.orders", "public.\"Stores\"")));
        assertEquals("select * from pgward.describe('public.\"it''s\"') shows the columns of public.\"it's\".",
                io.pgward.guard.Hints.describe(List.of("public.\"it's\"")));
        assertEquals(io.pgward.guard.Hints.relations(), io.pgward.guard.Hints.describe(List.of()));
    }

    @Test
    void qualifiedNameMatchesSchemaAndName() {
        assertEquals("Columns of hr.stores: id, city.", hints("SELECT x FROM hr.stores"));
        assertEquals("Columns of public.stores: id.", hints("SELECT x FROM public.stores"));
        assertEquals("Columns of public.stores: id.", hints("SELECT x FROM mydb.public.stores"));
    }

    @Test
    void bareNameMatchesInEverySchemaInListOrder() {
        assertEquals("Columns of hr.stores: id, city. Columns of public.stores: id.", hints("SELECT x FROM stores"));
        assertEquals("Columns of public.orders: id, customer_id, status. Columns of hr.stores: id, city."
                        + " Columns of public.stores: id.",
                hints("SELECT x FROM stores s JOIN orders o ON o.id = s.id"));
    }

    @Test
    void unquotedFoldsAndQuotedKeepsCase() {
        assertEquals("Columns of hr.stores: id, city. Columns of public.stores: id.", hints("SELECT x FROM STORES"));
        assertEquals("Columns of hr.stores: id, city. Columns of public.stores: id.",
                hints("SELECT x FROM \"stores\""));
        assertEquals("Columns of public.\"Stores\": \"Id\".", hints("SELECT x FROM \"Stores\""));
        assertEquals("Columns of public.\"Stores\": \"Id\".", hints("SELECT x FROM public.\"Stores\""));
        assertEquals("", hints("SELECT x FROM public.\"STORES\""));
    }

    @Test
    void tableNameBeforeAColumnCounts() {
        assertEquals("Columns of public.orders: id, customer_id, status.", hints("SELECT orders.nope FROM x"));
        assertEquals("Columns of public.orders: id, customer_id, status.",
                hints("SELECT public.orders.nope FROM public.orders"));
    }

    @Test
    void textInsideStringsAndCommentsIsNotAName() {
        assertEquals("", hints("SELECT 'orders', E'hr.stores', $$stores$$ FROM t -- orders"));
        assertEquals("", hints("SELECT /* orders */ 1"));
        // With standard_conforming_strings off, \' does not end the literal, so orders is inside it.
        String text = "SELECT 'a\\' orders /*'*/";
        assertEquals("Columns of public.orders: id, customer_id, status.", ColumnHints.hints(text, true, SELECTION));
        assertEquals("", ColumnHints.hints(text, false, SELECTION));
    }

    @Test
    void listsStopAtSixtyNamesWithAnEllipsisAndNoPeriod() {
        List<String> columns = new ArrayList<>(IntStream.rangeClosed(1, 61).mapToObj(i -> "c" + i).toList());
        SelectedRelation wide = relation(9, "public", "wide", "public.wide", columns);
        ResolvedSelection selection = new ResolvedSelection(List.of(wide, ORDERS), List.of(), false);
        String hint = ColumnHints.hints("SELECT c99 FROM wide JOIN orders USING (id)", true, selection);
        String sixty = String.join(", ", columns.subList(0, 60));
        assertEquals("Columns of public.wide: " + sixty + ", … Columns of public.orders: id, customer_id, status.",
                hint);
        assertFalse(hint.contains("c61"));

        SelectedRelation exactlySixty = relation(9, "public", "wide", "public.wide", columns.subList(0, 60));
        assertEquals("Columns of public.wide: " + sixty + ".", ColumnHints.hints("TABLE wide", true,
                new ResolvedSelection(List.of(exactlySixty), List.of(), false)));
    }

    @Test
    void appendsToThePrimaryMessage() {
        assertEquals("column \"nope\" does not exist. Columns of public.orders: id, customer_id, status.",
                ColumnHints.appendTo("column \"nope\" does not exist", "SELECT nope FROM orders", true, SELECTION));
        assertEquals("Ends with a period. Columns of public.orders: id, customer_id, status.",
                ColumnHints.appendTo("Ends with a period.", "SELECT nope FROM orders", true, SELECTION));
        assertEquals("column \"nope\" does not exist",
                ColumnHints.appendTo("column \"nope\" does not exist", "SELECT nope FROM t", true, SELECTION));
    }

    @Test
    void nothingWithoutSelectionOrForTextThatDoesNotLex() {
        assertEquals("", ColumnHints.hints("SELECT x FROM orders", true, ResolvedSelection.NONE));
        assertEquals("", hints("SELECT x FROM orders WHERE a = 'unterminated"));
    }

    @Test
    void appliesOnlyToUndefinedAndAmbiguousColumns() {
        assertTrue(ColumnHints.appliesTo(SqlStates.UNDEFINED_COLUMN));
        assertTrue(ColumnHints.appliesTo(SqlStates.AMBIGUOUS_COLUMN));
        assertFalse(ColumnHints.appliesTo(SqlStates.UNDEFINED_TABLE));
    }
}
