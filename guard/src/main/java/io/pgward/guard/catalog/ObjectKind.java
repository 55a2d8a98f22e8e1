package io.pgward.guard.catalog;

import io.pgward.guard.SqlStates;
import io.pgward.guard.selection.VisibleCatalog;
import io.pgward.guard.selection.VisibleCatalog.Catalog;

/**
 * What an argument of a gated catalog function, or a value of an object-identifier type, names; and how a login
 * with a filtered catalog may see it. Kinds with a {@link Catalog} are visible as its set says; the others are
 * visible when built in ({@code oid < 16384}: initdb made them, they hold no user's data), and kinds whose objects
 * pgward cannot tell apart yet ({@link #STATISTICS}, {@link #DATABASE}) are never proven by a constant.
 *
 * <p>The texts are PostgreSQL's own for an absent object: by name as the regclass input or {@code to_regclass}
 * family reports it, and by OID as {@code has_table_privilege} and friends do.
 */
enum ObjectKind {
    RELATION(Catalog.PG_CLASS, "to_regclass", SqlStates.UNDEFINED_TABLE, "relation \"%s\" does not exist",
            "relation with OID %d does not exist"),
    /**
     * A relation whose size or statistics a function reads: a user relation of the selection's visible set only. A
     * built-in catalog's size and row counts grow with every object in the database, hidden ones too.
     */
    RELATION_DATA(Catalog.PG_CLASS, "to_regclass", SqlStates.UNDEFINED_TABLE, "relation \"%s\" does not exist",
            "relation with OID %d does not exist"),
    TYPE(Catalog.PG_TYPE, "to_regtype", "42704", "type \"%s\" does not exist", "type with OID %d does not exist"),
    NAMESPACE(Catalog.PG_NAMESPACE, "to_regnamespace", "3F000", "schema \"%s\" does not exist",
            "schema with OID %d does not exist"),
    ROLE(Catalog.PG_AUTHID, "to_regrole", "42704", "role \"%s\" does not exist", "role with OID %d does not exist"),
    CONSTRAINT(Catalog.PG_CONSTRAINT, null, "42704", null, "constraint with OID %d does not exist"),
    TRIGGER(Catalog.PG_TRIGGER, null, "42704", null, "trigger with OID %d does not exist"),
    RULE(Catalog.PG_REWRITE, null, "42704", null, "rule with OID %d does not exist"),
    COLLATION(Catalog.PG_COLLATION, "to_regcollation", "42704", "collation \"%s\" does not exist",
            "collation with OID %d does not exist"),
    /** Functions: built-in ones only (user functions are hidden, design section 3.4). */
    FUNCTION(null, "to_regprocedure", "42883", "function %s does not exist", "function with OID %d does not exist"),
    /** As {@link #FUNCTION}, named without an argument list (regproc). */
    FUNCTION_NAME(null, "to_regproc", "42883", "function \"%s\" does not exist",
            "function with OID %d does not exist"),
    OPERATOR(null, "to_regoperator", "42883", "operator does not exist: %s", "operator with OID %d does not exist"),
    OPERATOR_NAME(null, "to_regoper", "42883", "operator does not exist: %s", "operator with OID %d does not exist"),
    LANGUAGE(null, null, "42704", null, "language with OID %d does not exist"),
    TABLESPACE(null, null, "42704", null, "tablespace with OID %d does not exist"),
    /**
     * A tablespace whose directory a function reads (pg_tablespace_location): a built-in one, whose location
     * PostgreSQL gives as an empty text. 0, which stands for the current database's tablespace there, is not one.
     */
    TABLESPACE_DIRECTORY(null, null, "42704", null, "tablespace with OID %d does not exist"),
    ACCESS_METHOD(null, null, "42704", null, "access method with OID %d does not exist"),
    /**
     * Text search configurations and dictionaries, named by a constant passed to a text search function: built-in
     * ones only, as for {@link #BUILT_IN}. PostgreSQL has no to_reg* function for them; a name is resolved by its
     * input function ({@link #resolvedByCast}).
     */
    TEXT_SEARCH_CONFIGURATION(null, "regconfig", "42704", "text search configuration \"%s\" does not exist",
            "text search configuration with OID %d does not exist"),
    TEXT_SEARCH_DICTIONARY(null, "regdictionary", "42704", "text search dictionary \"%s\" does not exist",
            "text search dictionary with OID %d does not exist"),
    /** Operator classes and families, conversions, other text search objects: built-in ones only. */
    BUILT_IN(null, null, "42704", null, "object with OID %d does not exist"),
    /** Extended statistics objects: no visible set yet, so only a filtered column could prove one. */
    STATISTICS(null, null, "42704", null, "statistics object with OID %d does not exist"),
    /** Databases: no visible set yet; never proven. */
    DATABASE(null, null, "3D000", null, "database with OID %d does not exist");

    private final Catalog catalog;
    private final String resolver;
    private final String sqlState;
    private final String byName;
    private final String byOid;

    ObjectKind(Catalog catalog, String resolver, String sqlState, String byName, String byOid) {
        this.catalog = catalog;
        this.resolver = resolver;
        this.sqlState = sqlState;
        this.byName = byName;
        this.byOid = byOid;
    }

    /** The catalog whose visible set decides, or null for a kind visible only when built in. */
    Catalog catalog() {
        return catalog;
    }

    /** Whether a constant could ever be proven: the kind has a visible set, or its built-ins are visible. */
    boolean provableByConstant() {
        return this != STATISTICS && this != DATABASE;
    }

    /**
     * Whether the object with this OID is visible. 0 names nothing (every function here answers NULL or an
     * "unknown" text for it) and is visible, but for {@link #TABLESPACE_DIRECTORY}.
     */
    boolean visible(VisibleCatalog visible, long oid) {
        if (oid == 0) {
            return this != TABLESPACE_DIRECTORY;
        }
        if (!provableByConstant()) {
            return false;
        }
        if (catalog == null) {
            return oid < VisibleCatalog.FIRST_NORMAL_OBJECT_ID;
        }
        return builtInsVisible() ? visible.visible(catalog, oid) : visible.oids(catalog).contains(oid);
    }

    /** Whether every built-in object of this kind is visible (a column proven to hold built-ins only proves it). */
    boolean builtInsVisible() {
        return provableByConstant() && this != RELATION_DATA && (catalog == null || catalog.builtInsVisible());
    }

    /**
     * The kind whose visibility decides whether a constant names an absent object: a built-in catalog is not
     * absent because its size may not be read.
     */
    ObjectKind existence() {
        return this == RELATION_DATA ? RELATION : this;
    }

    /**
     * The pg_catalog function that resolves a name of this kind to its OID (or, {@link #resolvedByCast}, the type
     * whose input does), or null when names are not resolved.
     */
    String resolver() {
        return resolver;
    }

    /** Whether a name is resolved by a cast to the type {@link #resolver()}, which fails for a name nothing has. */
    boolean resolvedByCast() {
        return this == TEXT_SEARCH_CONFIGURATION || this == TEXT_SEARCH_DICTIONARY;
    }

    /** The kind a text search function's regconfig or regdictionary argument names (by the type's OID), or null. */
    static ObjectKind ofTextSearchType(long type) {
        return switch ((int) type) {
            case 3734 -> TEXT_SEARCH_CONFIGURATION;   // regconfig
            case 3769 -> TEXT_SEARCH_DICTIONARY;      // regdictionary
            default -> null;
        };
    }

    String sqlState() {
        return sqlState;
    }

    /** PostgreSQL's text for an absent object named {@code name}, or the OID form when the kind has no name form. */
    String absentByName(String name, long oid) {
        if (byName == null) {
            return absentByOid(oid);
        }
        // A relation, schema or text search object's name is parsed as a qualified identifier, and PostgreSQL names it
        // as parsed.
        return byName.formatted(existence() == RELATION || this == NAMESPACE || resolvedByCast() ? parsedName(name)
                : name);
    }

    /**
     * {@code name} read as PostgreSQL's stringToQualifiedNameList reads it (parts split at dots outside double
     * quotes, unquoted parts folded to lower case, quoted ones unescaped) and joined with dots; the text itself
     * when it does not read as one.
     */
    static String parsedName(String name) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (true) {
            while (i < name.length() && Character.isWhitespace(name.charAt(i))) {
                i++;
            }
            if (i < name.length() && name.charAt(i) == '"') {
                int end = i + 1;
                StringBuilder part = new StringBuilder();
                while (end < name.length()) {
                    if (name.charAt(end) == '"') {
                        if (end + 1 < name.length() && name.charAt(end + 1) == '"') {
                            part.append('"');
                            end += 2;
                            continue;
                        }
                        break;
                    }
                    part.append(name.charAt(end++));
                }
                if (end >= name.length() || part.isEmpty()) {
                    return name;
                }
                out.append(part);
                i = end + 1;
            } else {
                int start = i;
                while (i < name.length() && name.charAt(i) != '.' && name.charAt(i) != '"'
                        && !Character.isWhitespace(name.charAt(i))) {
                    i++;
                }
                if (i == start) {
                    return name;
                }
                out.append(name.substring(start, i).toLowerCase(java.util.Locale.ROOT));
            }
            while (i < name.length() && Character.isWhitespace(name.charAt(i))) {
                i++;
            }
            if (i == name.length()) {
                return out.toString();
            }
            if (name.charAt(i) != '.') {
                return name;
            }
            out.append('.');
            i++;
        }
    }

    String absentByOid(long oid) {
        return byOid.formatted(oid);
    }

    /**
     * The element type of an array of an object-identifier type ({@code regtype[]} and the others, pg_type.dat), or
     * 0 for any other type.
     */
    static long regArrayElement(long type) {
        return switch ((int) type) {
            case 2210 -> 2205;            // regclass[]
            case 2211 -> 2206;            // regtype[]
            case 1008 -> 24;              // regproc[]
            case 2207 -> 2202;            // regprocedure[]
            case 2208 -> 2203;            // regoper[]
            case 2209 -> 2204;            // regoperator[]
            case 4090 -> 4089;            // regnamespace[]
            case 4097 -> 4096;            // regrole[]
            case 4192 -> 4191;            // regcollation[]
            default -> 0;
        };
    }

    /** The kind an object-identifier type names, by the type's name ({@code regclass}); null for any other. */
    static ObjectKind ofRegTypeName(String type) {
        return switch (type) {
            case "regclass" -> RELATION;
            case "regtype" -> TYPE;
            case "regproc" -> FUNCTION_NAME;
            case "regprocedure" -> FUNCTION;
            case "regoper" -> OPERATOR_NAME;
            case "regoperator" -> OPERATOR;
            case "regnamespace" -> NAMESPACE;
            case "regrole" -> ROLE;
            case "regcollation" -> COLLATION;
            default -> null;
        };
    }

    /** The kind an object-identifier type names, by the type's pinned OID (pg_type.dat); null for any other type. */
    static ObjectKind ofRegType(long type) {
        return switch ((int) type) {
            case 2205 -> RELATION;        // regclass
            case 2206 -> TYPE;            // regtype
            case 24 -> FUNCTION_NAME;     // regproc
            case 2202 -> FUNCTION;        // regprocedure
            case 2203 -> OPERATOR_NAME;   // regoper
            case 2204 -> OPERATOR;        // regoperator
            case 4089 -> NAMESPACE;       // regnamespace
            case 4096 -> ROLE;            // regrole
            case 4191 -> COLLATION;       // regcollation
            default -> null;
        };
    }
}
