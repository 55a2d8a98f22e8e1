package io.pgward.guard.catalog;

import io.pgward.guard.catalog.RowFilter.AllOf;
import io.pgward.guard.catalog.RowFilter.BuiltIn;
import io.pgward.guard.catalog.RowFilter.CurrentDatabase;
import io.pgward.guard.catalog.RowFilter.Keyed;
import io.pgward.guard.catalog.RowFilter.NoRows;
import io.pgward.guard.catalog.RowFilter.ObjectOf;
import io.pgward.guard.selection.VisibleCatalog.Catalog;
import java.util.Map;

/**
 * The system catalogs a login with a table selection reads filtered (step 2 of
 * {@code docs/filtered-catalog-design.md}), and which of their rows it sees ({@link RowFilter}). Every other
 * pg_catalog relation and view stays refused by L3's relation rule.
 *
 * <p>Rows follow the owning object where the catalog has one, so that a row is shown only with what it describes:
 * pg_attribute by its relation, pg_index by its index (the index of a visible relation is visible; the index of a
 * hidden one is not), pg_inherits, pg_depend and pg_auth_members by both ends, pg_enum and pg_range by their type,
 * pg_description by the object it comments on. Catalogs of objects no selection includes (user functions and
 * operators, publications, foreign servers, event triggers, per-role settings, shared comments) show their
 * built-in rows or none (design section 3.4).
 *
 * <p>pg_roles and pg_user are views over pg_authid (which stays refused): their rows are the visible roles, and
 * their per-role settings are NULL ({@link #withheldColumns}), since those may name schemas, paths and values the
 * login has no business with. Stored query trees that may read other relations (rule actions, policy expressions)
 * are NULL unless they read visible relations alone: a tree carries the names and column names of every relation it
 * reads. The trees of defaults,
 * checks, index expressions and partition bounds cannot hold a subquery, name other objects by OID only and are
 * served as they are.
 */
enum CoveredCatalog {
    /**
     * A built-in catalog's statistics count every row in it, hidden objects' too (pg_class's reltuples is the number
     * of relations, once analysed): they read as for a catalog never vacuumed or analysed. The selected relations'
     * are shown.
     */
    PG_CLASS("pg_class", new Keyed("oid", Catalog.PG_CLASS), Map.of(
            "relpages", Withheld.userStatistic(NullAs.INT4, "0"),
            "reltuples", Withheld.userStatistic(NullAs.FLOAT4, "-1"),
            "relallvisible", Withheld.userStatistic(NullAs.INT4, "0"),
            "relallfrozen", Withheld.userStatistic(NullAs.INT4, "0"))),
    PG_NAMESPACE("pg_namespace", new Keyed("oid", Catalog.PG_NAMESPACE)),
    PG_ATTRIBUTE("pg_attribute", new Keyed("attrelid", Catalog.PG_CLASS)),
    PG_TYPE("pg_type", new Keyed("oid", Catalog.PG_TYPE)),
    PG_CONSTRAINT("pg_constraint", new Keyed("oid", Catalog.PG_CONSTRAINT)),
    PG_ATTRDEF("pg_attrdef", new Keyed("oid", Catalog.PG_ATTRDEF)),
    PG_INDEX("pg_index", new Keyed("indexrelid", Catalog.PG_CLASS)),
    PG_INHERITS("pg_inherits", new AllOf(new Keyed("inhrelid", Catalog.PG_CLASS),
            new Keyed("inhparent", Catalog.PG_CLASS))),
    PG_ENUM("pg_enum", new Keyed("enumtypid", Catalog.PG_TYPE)),
    PG_COLLATION("pg_collation", new Keyed("oid", Catalog.PG_COLLATION)),
    /** Access methods: the built-in ones only (a user access method is not part of any selection yet). */
    PG_AM("pg_am", new BuiltIn("oid")),
    PG_DESCRIPTION("pg_description", new ObjectOf("classoid", "objoid")),
    PG_DATABASE("pg_database", new CurrentDatabase()),
    /** Built-in functions only: a user function's body or name is not part of a table's definition. */
    PG_PROC("pg_proc", new BuiltIn("oid")),
    PG_RANGE("pg_range", new Keyed("rngtypid", Catalog.PG_TYPE)),
    PG_SEQUENCE("pg_sequence", new Keyed("seqrelid", Catalog.PG_CLASS)),
    PG_TRIGGER("pg_trigger", new Keyed("oid", Catalog.PG_TRIGGER)),
    /** A policy's expressions are shown only when they read visible relations alone. */
    PG_POLICY("pg_policy", new Keyed("polrelid", Catalog.PG_CLASS), Map.of(
            "polqual", new Withheld(NullAs.NODE_TREE, Catalog.POLICY_EXPRESSIONS),
            "polwithcheck", new Withheld(NullAs.NODE_TREE, Catalog.POLICY_EXPRESSIONS))),
    PG_STATISTIC_EXT("pg_statistic_ext", new Keyed("stxrelid", Catalog.PG_CLASS)),
    /** A view's stored query names what it reads (design 3.2): shown only when it reads visible relations alone. */
    PG_REWRITE("pg_rewrite", new Keyed("oid", Catalog.PG_REWRITE), Map.of(
            "ev_qual", new Withheld(NullAs.NODE_TREE, Catalog.RULE_ACTIONS),
            "ev_action", new Withheld(NullAs.NODE_TREE, Catalog.RULE_ACTIONS))),
    PG_PUBLICATION("pg_publication", new NoRows()),
    PG_PUBLICATION_REL("pg_publication_rel", new NoRows()),
    /** PostgreSQL 15 and later. */
    PG_PUBLICATION_NAMESPACE("pg_publication_namespace", new NoRows()),
    PG_DEPEND("pg_depend", new AllOf(new ObjectOf("classid", "objid"), new ObjectOf("refclassid", "refobjid"))),
    PG_EXTENSION("pg_extension", new BuiltIn("oid")),
    PG_TABLESPACE("pg_tablespace", new BuiltIn("oid")),
    PG_LANGUAGE("pg_language", new BuiltIn("oid")),
    PG_CAST("pg_cast", new BuiltIn("oid")),
    PG_OPERATOR("pg_operator", new BuiltIn("oid")),
    PG_OPCLASS("pg_opclass", new BuiltIn("oid")),
    PG_OPFAMILY("pg_opfamily", new BuiltIn("oid")),
    PG_CONVERSION("pg_conversion", new BuiltIn("oid")),
    PG_TS_CONFIG("pg_ts_config", new BuiltIn("oid")),
    PG_FOREIGN_DATA_WRAPPER("pg_foreign_data_wrapper", new NoRows()),
    PG_FOREIGN_SERVER("pg_foreign_server", new NoRows()),
    PG_EVENT_TRIGGER("pg_event_trigger", new NoRows()),
    PG_DB_ROLE_SETTING("pg_db_role_setting", new NoRows()),
    PG_SHDESCRIPTION("pg_shdescription", new NoRows()),
    /** A membership among visible roles, granted by a visible role. */
    PG_AUTH_MEMBERS("pg_auth_members", new AllOf(new Keyed("roleid", Catalog.PG_AUTHID),
            new Keyed("member", Catalog.PG_AUTHID), new Keyed("grantor", Catalog.PG_AUTHID))),
    PG_ROLES("pg_roles", new Keyed("oid", Catalog.PG_AUTHID), Map.of("rolconfig", new Withheld(NullAs.TEXT_ARRAY, null))),
    PG_USER("pg_user", new Keyed("usesysid", Catalog.PG_AUTHID), Map.of("useconfig", new Withheld(NullAs.TEXT_ARRAY, null)));

    /** The types of the NULLs served for columns that are withheld. */
    private static final class NullAs {
        static final String NODE_TREE = "pg_catalog.pg_node_tree";
        static final String TEXT_ARRAY = "pg_catalog.text[]";
        static final String INT4 = "pg_catalog.int4";
        static final String FLOAT4 = "pg_catalog.float4";
    }

    /**
     * A column served as NULL of {@code type} (or as {@code otherwise}), except in the rows whose {@code oid} is visible
     * in {@code shownWith} (never shown when that is null; with {@code userRowsOnly}, built-in rows are not shown).
     */
    record Withheld(String type, Catalog shownWith, boolean userRowsOnly, String otherwise) {
        Withheld(String type, Catalog shownWith) {
            this(type, shownWith, false, null);
        }

        /** A statistic of pg_class: shown for listed relations, {@code otherwise} (a constant of the type) for others. */
        static Withheld userStatistic(String type, String otherwise) {
            return new Withheld(type, Catalog.PG_CLASS, true, otherwise);
        }

        /** Where the row is shown. */
        RowFilter shownWhere() {
            return userRowsOnly ? new RowFilter.Listed("oid", shownWith) : new RowFilter.Keyed("oid", shownWith);
        }

        /** The ELSE branch of the CASE that serves the column ({@code ""}: NULL). */
        String elseBranch() {
            return otherwise == null ? "" : " ELSE '" + otherwise + "'::" + type;
        }
    }

    private final String relation;
    private final RowFilter rows;
    private final Map<String, Withheld> withheldColumns;

    CoveredCatalog(String relation, RowFilter rows) {
        this(relation, rows, Map.of());
    }

    CoveredCatalog(String relation, RowFilter rows, Map<String, Withheld> withheldColumns) {
        this.relation = relation;
        this.rows = rows;
        this.withheldColumns = withheldColumns;
    }

    /** The relation's name in pg_catalog. */
    String relation() {
        return relation;
    }

    RowFilter rows() {
        return rows;
    }

    /** Columns withheld, by name. */
    Map<String, Withheld> withheldColumns() {
        return withheldColumns;
    }

    static CoveredCatalog byName(String relation) {
        for (CoveredCatalog c : values()) {
            if (c.relation.equals(relation)) {
                return c;
            }
        }
        return null;
    }
}
