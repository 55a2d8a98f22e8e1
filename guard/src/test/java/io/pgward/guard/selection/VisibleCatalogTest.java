package io.pgward.guard.selection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.selection.VisibleCatalog.Catalog;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VisibleCatalogTest {

    private static final VisibleCatalog SAMPLE = VisibleCatalog.of(170005, 16390, Map.of(
            Catalog.PG_CLASS, OidSet.of(16401, 16399, 16401),
            Catalog.PG_NAMESPACE, OidSet.of(11, 13000, 2200),
            Catalog.PG_AUTHID, OidSet.of(10)));

    @Test
    void builtInsAreVisibleExceptSchemasAndRoles() {
        assertTrue(SAMPLE.relation(1259));
        assertTrue(SAMPLE.type(23));
        assertTrue(SAMPLE.constraint(16383));
        assertFalse(SAMPLE.relation(16384));
        assertFalse(SAMPLE.relation(0));
        assertFalse(SAMPLE.namespace(99), "pg_toast is not listed");
        assertTrue(SAMPLE.namespace(2200));
        assertFalse(SAMPLE.role(4200), "a built-in role that owns nothing visible");
        assertTrue(SAMPLE.role(10));
    }

    @Test
    void listedOidsAreSortedDistinctAndTheSessionRoleIsAlwaysVisible() {
        assertEquals("{16399,16401}", SAMPLE.oids(Catalog.PG_CLASS).arrayLiteral());
        assertTrue(SAMPLE.relation(16399));
        assertFalse(SAMPLE.relation(16400));
        assertEquals(OidSet.EMPTY, SAMPLE.oids(Catalog.PG_TRIGGER));
        assertEquals("{10,16390}", SAMPLE.oids(Catalog.PG_AUTHID).arrayLiteral());
        assertTrue(SAMPLE.role(SAMPLE.sessionRole()));
    }

    @Test
    void equalContentsGiveEqualValuesAndFingerprints() {
        VisibleCatalog same = VisibleCatalog.of(170005, 16390, Map.of(
                Catalog.PG_CLASS, OidSet.of(16399, 16401),
                Catalog.PG_NAMESPACE, OidSet.of(2200, 11, 13000),
                Catalog.PG_AUTHID, OidSet.of(10, 16390),
                Catalog.PG_TYPE, OidSet.EMPTY));
        assertEquals(SAMPLE, same);
        assertEquals(SAMPLE.fingerprint(), same.fingerprint());
        assertEquals(64, SAMPLE.fingerprint().length());
        VisibleCatalog otherServer = VisibleCatalog.of(180001, 16390, Map.of(
                Catalog.PG_CLASS, OidSet.of(16399, 16401),
                Catalog.PG_NAMESPACE, OidSet.of(2200, 11, 13000),
                Catalog.PG_AUTHID, OidSet.of(10)));
        assertNotEquals(SAMPLE, otherServer);
        assertNotEquals(SAMPLE.fingerprint(), otherServer.fingerprint());
        VisibleCatalog moved = VisibleCatalog.of(170005, 16390, Map.of(
                Catalog.PG_TYPE, OidSet.of(16399, 16401),
                Catalog.PG_NAMESPACE, OidSet.of(2200, 11, 13000),
                Catalog.PG_AUTHID, OidSet.of(10)));
        assertNotEquals(SAMPLE.fingerprint(), moved.fingerprint(), "the same OIDs in another catalog");
    }

    @Test
    void noneSeesBuiltInsOnly() {
        assertTrue(VisibleCatalog.NONE.relation(1259));
        assertFalse(VisibleCatalog.NONE.namespace(11));
        assertFalse(VisibleCatalog.NONE.relation(16384));
        assertEquals(VisibleCatalog.NONE, ResolvedSelection.NONE.visible());
    }

    @Test
    void oidsAreUnsigned32BitValues() {
        assertTrue(OidSet.of(4294967295L).contains(4294967295L));
        assertThrows(IllegalArgumentException.class, () -> OidSet.of(-1));
        assertThrows(IllegalArgumentException.class, () -> OidSet.of(4294967296L));
        assertEquals("{}", OidSet.EMPTY.arrayLiteral());
    }
}
