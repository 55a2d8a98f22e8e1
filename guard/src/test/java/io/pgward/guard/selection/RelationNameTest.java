package io.pgward.guard.selection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RelationNameTest {

    @Test
    void unquotedIdentifiersFoldToLowerCase() {
        assertEquals(new RelationName(Optional.of("public"), "orders"), RelationName.parseQualified("Public.ORDERS"));
    }

    @Test
    void quotedIdentifiersKeepCaseAndSpaces() {
        assertEquals(new RelationName(Optional.of("Sales 2026"), "daily"),
                RelationName.parseQualified("\"Sales 2026\".daily"));
        assertEquals(new RelationName(Optional.of("hr"), "Salaries"), RelationName.parseQualified("hr.\"Salaries\""));
        assertEquals(new RelationName(Optional.of("a\"b"), "c"), RelationName.parseQualified("\"a\"\"b\".c"));
    }

    @Test
    void whitespaceAroundTheDotIsAllowedAsInSql() {
        assertEquals(new RelationName(Optional.of("public"), "orders"), RelationName.parseQualified(" public . orders "));
    }

    @Test
    void unicodeIdentifiersResolve() {
        assertEquals(new RelationName(Optional.of("public"), "dä"), RelationName.parseQualified("public.U&\"d\\00E4\""));
    }

    @Test
    void bareNameIsNotEnoughForASelection() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RelationName.parseQualified("orders"));
        assertEquals("must be schema-qualified (schema.name)", e.getMessage());
        assertEquals(new RelationName(Optional.empty(), "orders"), RelationName.parse("Orders"));
    }

    @Test
    void rejectsTextThatIsNotARelationName() {
        for (String bad : List.of("Sales 2026.daily", "public.orders;", "a.b.c", "public.", "'public'.orders",
                "public.\"\"", "\"unterminated.orders", "", "public.orders -- x")) {
            assertThrows(IllegalArgumentException.class, () -> RelationName.parseQualified(bad), bad);
        }
    }

    @Test
    void selectionReportsEveryBadEntryWithItsKeyAndIndex() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SelectedNames.parse(
                "logins.analyst.tables", List.of("public.orders", "Sales 2026.daily", "orders")));
        assertTrue(e.getMessage().startsWith("logins.analyst.tables[1]: Sales 2026.daily is not a relation name"),
                e.getMessage());
        assertTrue(e.getMessage().contains("; logins.analyst.tables[2]: orders must be schema-qualified"),
                e.getMessage());
    }

    @Test
    void selectionKeepsTextsAndOrder() {
        SelectedNames selection = SelectedNames.parse("tables", List.of("hr.\"Salaries\"", "public.orders"));
        assertEquals(List.of("hr.\"Salaries\"", "public.orders"), selection.texts());
        assertEquals("Salaries", selection.names().get(0).name());
        assertTrue(SelectedNames.parse("tables", List.of()).isEmpty());
    }
}
