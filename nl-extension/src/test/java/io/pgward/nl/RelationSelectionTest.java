package io.pgward.nl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class RelationSelectionTest {

    private static final RelationRef ORDERS = new RelationRef(16_400, "public", "orders");
    private static final RelationRef MIXED = new RelationRef(16_500, "Sales", "Big Orders");
    private static final RelationRef SALARIES = new RelationRef(16_600, "hr", "salaries");

    @Test
    void namesFollowPostgresQuotingAndFoldingAndDefaultToPublic() {
        Predicate<RelationRef> selection = RelationSelection.names(List.of("ORDERS", "\"Sales\".\"Big Orders\""));
        assertTrue(selection.test(ORDERS));
        assertTrue(selection.test(MIXED));
        assertFalse(selection.test(SALARIES));
        assertFalse(RelationSelection.names(List.of("sales.\"Big Orders\"")).test(MIXED));
        assertThrows(IllegalArgumentException.class, () -> RelationSelection.names(List.of("a.b.c")));
    }

    @Test
    void oidsMatchExactly() {
        Predicate<RelationRef> selection = RelationSelection.oids(List.of(16_400L));
        assertTrue(selection.test(ORDERS));
        assertFalse(selection.test(SALARIES));
    }

    @Test
    void snapshotFindsQualifiedQuotedAndUnambiguousBareNames() {
        SchemaSnapshot snapshot = new SchemaSnapshot(List.of(relation(ORDERS), relation(MIXED),
                relation(new RelationRef(16_700, "archive", "orders"))), Instant.EPOCH);
        assertEquals(Optional.of(MIXED), snapshot.find("\"Sales\".\"Big Orders\"").map(Relation::ref));
        assertEquals(Optional.of(MIXED), snapshot.find("\"Big Orders\"").map(Relation::ref));
        assertEquals(Optional.of(ORDERS), snapshot.find("Public.Orders").map(Relation::ref));
        assertEquals(Optional.empty(), snapshot.find("orders"), "two relations are named orders");
        assertEquals(Optional.empty(), snapshot.find("\"unterminated"));
        assertEquals("\"Sales\".\"Big Orders\"", MIXED.qualifiedName());
    }

    private static Relation relation(RelationRef ref) {
        return new Relation(ref, Relation.Kind.TABLE, Optional.empty(), List.of(), List.of(), List.of(), Map.of());
    }
}
