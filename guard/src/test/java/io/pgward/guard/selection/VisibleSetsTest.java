package io.pgward.guard.selection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.selection.VisibleCatalog.Catalog;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The visible sets of a selection, on a real PostgreSQL (run on 14 to 18 by scripts/test-postgres-versions.sh):
 * every OID is turned back into a name through regclass, regtype and the catalogs, and the names are compared with
 * exactly what a login selecting {@code shop.orders, shop.customers, shop.v_orders, shop.mv_status} may see.
 */
@PostgresTest
class VisibleSetsTest {

    private static final String READER = "pgward_visible_reader";
    private static final String SHOP_OWNER = "pgward_visible_shop_owner";
    private static final String VAULT_OWNER = "pgward_visible_vault_owner";
    private static final List<String> SELECTION = List.of("shop.orders", "shop.customers", "shop.v_orders",
            "shop.mv_status");

    private final TestDatabase database;

    VisibleSetsTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeAll
    static void fixture(TestDatabase database) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            for (String role : List.of(READER, SHOP_OWNER, VAULT_OWNER)) {
                statement.execute("DO $$ BEGIN CREATE ROLE " + role
                        + "; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
            }
            statement.execute("""
                    CREATE SCHEMA shop;
                    CREATE SCHEMA vault;
                    CREATE TYPE shop.status AS ENUM ('new', 'paid');
                    CREATE TYPE shop.tag AS ENUM ('gift', 'bulk');
                    CREATE TYPE shop.money_range AS RANGE (subtype = numeric);
                    CREATE DOMAIN shop.price_band AS shop.money_range CONSTRAINT price_band_check CHECK (NOT isempty(VALUE));
                    CREATE TYPE shop.address AS (street text, zip int);
                    CREATE COLLATION shop.c_copy FROM "C";
                    CREATE TYPE shop.hidden_kind AS ENUM ('x');
                    CREATE TYPE vault.level AS ENUM ('top');
                    CREATE COLLATION vault.c_hidden FROM "C";
                    CREATE TABLE shop.customers (id int PRIMARY KEY, name text);
                    ALTER TABLE shop.customers OWNER TO %s;
                    CREATE TABLE shop.secrets (id int PRIMARY KEY, kind shop.hidden_kind);
                    CREATE TABLE vault.keys (id int PRIMARY KEY, level vault.level, label text COLLATE vault.c_hidden);
                    ALTER TABLE vault.keys OWNER TO %s;
                    CREATE TABLE shop.orders (
                        id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                        ref serial CONSTRAINT orders_ref_key UNIQUE,
                        status shop.status NOT NULL DEFAULT 'new',
                        tags shop.tag[],
                        band shop.price_band,
                        ship_to shop.address,
                        customer_id int REFERENCES shop.customers (id),
                        key_id int REFERENCES vault.keys (id),
                        secret_id int CONSTRAINT orders_secret_fk REFERENCES shop.secrets (id),
                        qty int CONSTRAINT orders_qty_check CHECK (qty > 0),
                        note text COLLATE shop.c_copy);
                    CREATE INDEX orders_status_idx ON shop.orders (status);
                    CREATE FUNCTION shop.touch() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
                    CREATE TRIGGER orders_touch BEFORE UPDATE ON shop.orders FOR EACH ROW EXECUTE FUNCTION shop.touch();
                    CREATE TRIGGER orders_suppress BEFORE UPDATE ON shop.orders FOR EACH ROW
                        EXECUTE FUNCTION pg_catalog.suppress_redundant_updates_trigger();
                    CREATE VIEW shop.v_orders AS SELECT id, status FROM shop.orders;
                    CREATE VIEW shop.v_secrets AS SELECT * FROM shop.secrets;
                    CREATE MATERIALIZED VIEW shop.mv_status AS SELECT status, count(*) AS n FROM shop.orders GROUP BY status;
                    """.formatted(SHOP_OWNER, VAULT_OWNER));
        }
    }

    private ResolvedSelection resolve(List<String> names) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("SET ROLE " + READER);
            return SelectionResolver.resolve(connection, SelectedNames.parse("tables", names));
        }
    }

    /** The text of {@code sql}'s single column for every OID of {@code oids} (bound as {@code ?::oid[]}). */
    private Set<String> names(String sql, OidSet oids) throws SQLException {
        Set<String> names = new TreeSet<>();
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, oids.arrayLiteral());
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    names.add(rows.getString(1));
                }
            }
        }
        return names;
    }

    private long oid(String sql) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery(sql)) {
            assertTrue(row.next(), sql);
            return row.getLong(1);
        }
    }

    private static Set<String> sorted(String... names) {
        return new TreeSet<>(List.of(names));
    }

    private OidSet oidsOf(List<String> relations) throws SQLException {
        long[] oids = new long[relations.size()];
        for (int i = 0; i < oids.length; i++) {
            oids[i] = oid("SELECT '" + relations.get(i) + "'::regclass::oid");
        }
        return OidSet.of(oids);
    }

    @Test
    void relationsAreTheSelectionWithItsIndexesSequencesToastAndCompositeTypes() throws SQLException {
        VisibleCatalog visible = resolve(SELECTION).visible();
        OidSet relations = visible.oids(Catalog.PG_CLASS);
        assertEquals(sorted("shop.orders", "shop.customers", "shop.v_orders", "shop.mv_status",
                        "shop.orders_pkey", "shop.orders_ref_key", "shop.orders_status_idx", "shop.customers_pkey",
                        "shop.orders_id_seq", "shop.orders_ref_seq", "shop.address"),
                names("SELECT x::regclass::text FROM unnest(?::oid[]) x WHERE x::regclass::text NOT LIKE 'pg_toast.%'",
                        relations));
        // The TOAST tables of the selected relations that have one, and their indexes; nothing else in pg_toast.
        Set<String> toast = names("""
                WITH s AS (SELECT unnest(?::oid[]) AS oid)
                SELECT c.reltoastrelid::text FROM pg_class c JOIN s ON c.oid = s.oid WHERE c.reltoastrelid <> 0
                UNION SELECT i.indexrelid::text FROM pg_class c JOIN s ON c.oid = s.oid
                      JOIN pg_index i ON i.indrelid = c.reltoastrelid""", oidsOf(SELECTION));
        assertFalse(toast.isEmpty(), "shop.orders has text columns, hence a TOAST table");
        assertEquals(toast, names("SELECT x::text FROM unnest(?::oid[]) x WHERE x::regclass::text LIKE 'pg_toast.%'",
                relations));
        assertTrue(visible.relation(oid("SELECT 'shop.orders'::regclass::oid")));
        assertTrue(visible.relation(oid("SELECT 'pg_catalog.pg_class'::regclass::oid")), "built-ins are visible");
        for (String hidden : List.of("shop.secrets", "shop.secrets_pkey", "shop.v_secrets", "vault.keys",
                "vault.keys_pkey", "vault.keys_id_seq")) {
            if (oid("SELECT coalesce(to_regclass('" + hidden + "')::oid, 0)") != 0) {
                assertFalse(visible.relation(oid("SELECT '" + hidden + "'::regclass::oid")), hidden);
            }
        }
    }

    @Test
    void typesAreTheUserTypesOfTheColumnsClosedOverArraysDomainsRangesAndComposites() throws SQLException {
        VisibleCatalog visible = resolve(SELECTION).visible();
        assertEquals(sorted("shop.status", "shop.status[]", "shop.tag", "shop.tag[]",
                        "shop.money_range", "shop.money_range[]", "shop.money_multirange", "shop.money_multirange[]",
                        "shop.price_band", "shop.price_band[]", "shop.address", "shop.address[]",
                        "shop.orders", "shop.orders[]", "shop.customers", "shop.customers[]",
                        "shop.v_orders", "shop.v_orders[]", "shop.mv_status", "shop.mv_status[]"),
                names("SELECT x::regtype::text FROM unnest(?::oid[]) x", visible.oids(Catalog.PG_TYPE)));
        assertTrue(visible.type(oid("SELECT 'pg_catalog.int4'::regtype::oid")), "built-ins are visible");
        assertTrue(visible.type(oid("SELECT 'pg_catalog.numeric'::regtype::oid")));
        for (String hidden : List.of("shop.hidden_kind", "shop.hidden_kind[]", "vault.level", "vault.level[]",
                "shop.secrets", "vault.keys", "shop.v_secrets")) {
            assertFalse(visible.type(oid("SELECT '" + hidden + "'::regtype::oid")), hidden);
        }
    }

    @Test
    void namespacesAreThoseHoldingSomethingVisiblePlusTheSystemOnes() throws SQLException {
        VisibleCatalog visible = resolve(SELECTION).visible();
        assertEquals(sorted("information_schema", "pg_catalog", "shop"),
                names("SELECT x::regnamespace::text FROM unnest(?::oid[]) x", visible.oids(Catalog.PG_NAMESPACE)));
        assertFalse(visible.namespace(oid("SELECT 'public'::regnamespace::oid")), "public holds nothing selected");
        assertFalse(visible.namespace(oid("SELECT 'vault'::regnamespace::oid")));
        assertFalse(visible.namespace(oid("SELECT 'pg_toast'::regnamespace::oid")));
    }

    @Test
    void constraintsAreThoseAmongVisibleObjectsAndNotForeignKeysToHiddenTables() throws SQLException {
        VisibleCatalog visible = resolve(SELECTION).visible();
        OidSet constraints = visible.oids(Catalog.PG_CONSTRAINT);
        assertEquals(sorted("orders_pkey", "orders_ref_key", "orders_qty_check", "orders_customer_id_fkey",
                        "customers_pkey", "price_band_check"),
                names("SELECT conname FROM pg_constraint WHERE oid = ANY (?::oid[]) AND contype <> 'n'", constraints));
        // PostgreSQL 18 stores the NOT NULL constraints of tables (17: of domains) in pg_constraint: those of the
        // visible relations and types are visible, as they follow conrelid and contypid; none exist before.
        Set<String> notNull = names("SELECT oid::text FROM pg_constraint WHERE oid = ANY (?::oid[]) AND contype = 'n'",
                constraints);
        assertEquals(names("""
                        SELECT oid::text FROM pg_constraint WHERE contype = 'n'
                        AND (conrelid = ANY (?::oid[]) OR contypid = 'shop.price_band'::regtype)""",
                        oidsOf(List.of("shop.orders", "shop.customers"))), notNull);
        assertEquals(database.serverMajor() >= 18, !notNull.isEmpty());
        for (String hidden : List.of("orders_key_id_fkey", "orders_secret_fk", "secrets_pkey", "keys_pkey")) {
            assertFalse(visible.constraint(oid("SELECT oid FROM pg_constraint WHERE conname = '" + hidden + "'")),
                    hidden);
        }
    }

    @Test
    void defaultsRulesTriggersCollationsAndRoles() throws SQLException {
        VisibleCatalog visible = resolve(SELECTION).visible();
        assertEquals(sorted("shop.orders.ref", "shop.orders.status"), names("""
                        SELECT d.adrelid::regclass::text || '.' || a.attname FROM pg_attrdef d
                        JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
                        WHERE d.oid = ANY (?::oid[])""", visible.oids(Catalog.PG_ATTRDEF)));
        assertEquals(sorted("shop.mv_status", "shop.v_orders"),
                names("SELECT ev_class::regclass::text FROM pg_rewrite WHERE oid = ANY (?::oid[])",
                        visible.oids(Catalog.PG_REWRITE)));
        assertFalse(visible.rule(oid("SELECT oid FROM pg_rewrite WHERE ev_class = 'shop.v_secrets'::regclass")));
        // The foreign-key triggers of orders_customer_id_fkey (two on each side) and the built-in function
        // trigger; not the user function's, not those of the foreign key to vault.keys.
        assertEquals(sorted("orders_customer_id_fkey shop.customers", "orders_customer_id_fkey shop.orders",
                        "orders_suppress"),
                names("""
                        SELECT coalesce(k.conname || ' ' || g.tgrelid::regclass::text, g.tgname) FROM pg_trigger g
                        LEFT JOIN pg_constraint k ON k.oid = g.tgconstraint WHERE g.oid = ANY (?::oid[])""",
                        visible.oids(Catalog.PG_TRIGGER)));
        assertEquals(5, visible.oids(Catalog.PG_TRIGGER).size());
        assertEquals(sorted("shop.c_copy"), names("""
                        SELECT n.nspname || '.' || l.collname FROM pg_collation l
                        JOIN pg_namespace n ON n.oid = l.collnamespace WHERE l.oid = ANY (?::oid[])""",
                visible.oids(Catalog.PG_COLLATION)));
        // The owner of shop, and of pg_catalog and information_schema (the bootstrap superuser).
        Set<String> owners = names("SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname IN "
                + "('shop', 'pg_catalog', 'information_schema') AND cardinality(?::oid[]) = 0", OidSet.EMPTY);
        owners.addAll(List.of(READER, SHOP_OWNER, database.user()));
        assertEquals(owners, names("SELECT rolname FROM pg_roles WHERE oid = ANY (?::oid[])",
                visible.oids(Catalog.PG_AUTHID)));
        assertEquals(oid("SELECT oid FROM pg_roles WHERE rolname = '" + READER + "'"), visible.sessionRole());
        assertFalse(visible.role(oid("SELECT oid FROM pg_roles WHERE rolname = '" + VAULT_OWNER + "'")));
    }

    @Test
    void aSelectionOfWhichNothingExistsSeesOnlyBuiltInsTheSystemSchemasAndItsRole() throws SQLException {
        ResolvedSelection resolved = resolve(List.of("shop.nope"));
        assertTrue(resolved.noneExists());
        VisibleCatalog visible = resolved.visible();
        assertTrue(visible.oids(Catalog.PG_CLASS).isEmpty());
        assertTrue(visible.oids(Catalog.PG_TYPE).isEmpty());
        assertEquals(sorted("information_schema", "pg_catalog"),
                names("SELECT x::regnamespace::text FROM unnest(?::oid[]) x", visible.oids(Catalog.PG_NAMESPACE)));
        assertTrue(visible.role(visible.sessionRole()));
        assertEquals(database.serverMajor(), visible.serverVersionNum() / 10000);
        assertEquals(VisibleCatalog.NONE, resolve(List.of()).visible());
    }

    @Test
    void aSchemaChangeGivesANewValueAndAnUnrelatedOneAnEqualValue() throws SQLException {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(database.jdbcUrl());
        dataSource.setUser(database.user());
        dataSource.setPassword(database.password());
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE shop.changing (id int)");
        }
        LiveSelection live = LiveSelection.resolve(dataSource, SelectedNames.parse("tables", List.of(
                "shop.changing", "shop.customers")));
        VisibleCatalog before = live.current().visible();

        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TYPE vault.unused AS ENUM ('a'); CREATE TABLE vault.more (id int)");
        }
        VisibleCatalog unrelated = live.refresh(dataSource).visible();
        assertEquals(before, unrelated);
        assertEquals(before.fingerprint(), unrelated.fingerprint());

        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("""
                    CREATE TYPE shop.priority AS ENUM ('low', 'high');
                    ALTER TABLE shop.changing ADD COLUMN priority shop.priority""");
        }
        long priority = oid("SELECT 'shop.priority'::regtype::oid");
        assertFalse(before.type(priority));
        VisibleCatalog after = live.refresh(dataSource).visible();
        assertEquals(after, live.current().visible());
        assertTrue(after.type(priority));
        assertTrue(after.type(oid("SELECT 'shop.priority[]'::regtype::oid")));
        assertFalse(after.type(oid("SELECT 'vault.unused'::regtype::oid")));
        assertNotEquals(before.fingerprint(), after.fingerprint());
        assertFalse(before.type(priority), "a value never changes");
    }
}
