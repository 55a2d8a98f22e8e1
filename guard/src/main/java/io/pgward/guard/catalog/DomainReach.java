package io.pgward.guard.catalog;

import io.pgward.guard.lexer.Token;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a statement must avoid for a database's risky domains (domains whose CHECK could run other code) not to
 * matter to it: every type built on one of them, and the names by which a statement reaches those types.
 *
 * <p>Why a statement that reaches none of them can be checked, and run, with such a domain in the database:
 * <ul>
 *   <li>The check runs only parse analysis and rewriting (CREATE FUNCTION with a SQL body, PREPARE); nothing is
 *       planned or executed, so no expression is evaluated and no constant is folded (that is the planner's
 *       eval_const_expressions).</li>
 *   <li>Parse analysis calls exactly one kind of user-visible code: a type's input function, when it turns an
 *       untyped literal into a constant (coerce_type in parse_coerce.c). For a domain target it calls the base
 *       type's input function and wraps the constant in a CoerceToDomain node (coerce_to_domain); the CHECK is
 *       evaluated by that node at execution, never during analysis. The CHECK does run inside an input function
 *       when the domain is nested in the target type: record_in for a composite type with a column of the domain,
 *       array_in for an array of it, range_in and multirange_in for a range over it each call domain_in, which
 *       checks the constraints. That is why every type built on a risky domain counts here, transitively.</li>
 *   <li>A literal is coerced to such a type only when the statement names it (a cast, a typed literal) or names
 *       what it is compared or passed to: a relation with a column of it, a function or an operator with an
 *       argument or result of it; or when the client's Parse gives a parameter that type. So a statement whose
 *       text (read by L1: comments and string contents are not names) names none of them, and whose parameter
 *       types are none of them, cannot make the check evaluate the CHECK.</li>
 *   <li>At execution a CHECK runs only where a value is coerced to the domain, which the stored tree shows: the
 *       verdict also refuses a statement whose tree, or a view or policy it reaches, uses such a type, or that
 *       reads a relation with a column of one.</li>
 * </ul>
 * Names are compared as PostgreSQL compares them: identifiers folded or unquoted by L1, truncated to
 * NAMEDATALEN - 1 bytes, in any schema (a name that could resolve to one of them counts).
 */
final class DomainReach {

    private static final int NAME_BYTES = 63;

    /**
     * The types built on the domains given as an oid[] parameter: themselves, domains over them, arrays of them,
     * row types with a column of them, ranges over them and their multiranges, transitively. Then one row per
     * name that reaches one: kind 't' a type, 'r' a relation (with its oid), 'f' a function, 'o' an operator.
     */
    static final String SQL = """
            WITH RECURSIVE built(oid) AS (
                SELECT pg_catalog.unnest(CAST(? AS pg_catalog.oid[]))
              UNION
                SELECT x.oid FROM built b CROSS JOIN LATERAL (
                    SELECT t.oid FROM pg_catalog.pg_type t
                    WHERE t.typbasetype OPERATOR(pg_catalog.=) b.oid OR t.typelem OPERATOR(pg_catalog.=) b.oid
                    UNION ALL
                    SELECT t.oid FROM pg_catalog.pg_attribute a
                    JOIN pg_catalog.pg_type t ON t.typrelid OPERATOR(pg_catalog.=) a.attrelid
                    WHERE a.atttypid OPERATOR(pg_catalog.=) b.oid AND NOT a.attisdropped
                    UNION ALL
                    SELECT r.rngtypid FROM pg_catalog.pg_range r WHERE r.rngsubtype OPERATOR(pg_catalog.=) b.oid
                    UNION ALL
                    SELECT r.rngmultitypid FROM pg_catalog.pg_range r WHERE r.rngtypid OPERATOR(pg_catalog.=) b.oid
                ) x
            ), types AS (SELECT pg_catalog.array_agg(oid) AS oids FROM built)
            SELECT 't', t.typname::pg_catalog.text, t.oid FROM pg_catalog.pg_type t, types
            WHERE t.oid OPERATOR(pg_catalog.=) ANY (types.oids)
            UNION ALL
            SELECT 'r', c.relname::pg_catalog.text, c.oid FROM pg_catalog.pg_class c, types
            WHERE c.reltype OPERATOR(pg_catalog.=) ANY (types.oids)
            UNION ALL
            SELECT 'f', p.proname::pg_catalog.text, p.oid FROM pg_catalog.pg_proc p, types
            WHERE p.prorettype OPERATOR(pg_catalog.=) ANY (types.oids)
               OR CAST(p.proargtypes AS pg_catalog.oid[]) OPERATOR(pg_catalog.&&) types.oids
               OR p.proallargtypes OPERATOR(pg_catalog.&&) types.oids
            UNION ALL
            SELECT 'o', o.oprname::pg_catalog.text, o.oid FROM pg_catalog.pg_operator o, types
            WHERE o.oprleft OPERATOR(pg_catalog.=) ANY (types.oids)
               OR o.oprright OPERATOR(pg_catalog.=) ANY (types.oids)
               OR o.oprresult OPERATOR(pg_catalog.=) ANY (types.oids)""";

    private final List<String> domainNames;
    private final Set<Long> types = new HashSet<>();
    private final Set<Long> relations = new HashSet<>();
    private final Set<String> names = new HashSet<>();
    private final Set<String> operators = new HashSet<>();

    private DomainReach(List<String> domainNames) {
        this.domainNames = domainNames;
    }

    /**
     * Reads what reaches {@code domains} (names by type OID); the caller has put the safe search_path in place.
     */
    static DomainReach read(Connection connection, Map<Long, String> domains) throws SQLException {
        DomainReach reach = new DomainReach(List.copyOf(domains.values()));
        try (PreparedStatement ps = connection.prepareStatement(SQL)) {
            ps.setObject(1, domains.keySet().stream().map(String::valueOf).collect(Collectors.joining(",", "{", "}")),
                    Types.OTHER);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString(2);
                    long oid = rs.getLong(3);
                    switch (rs.getString(1)) {
                        case "t" -> {
                            reach.types.add(oid);
                            reach.names.add(name);
                        }
                        case "r" -> {
                            reach.relations.add(oid);
                            reach.names.add(name);
                        }
                        case "o" -> reach.operators.add(name);
                        default -> reach.names.add(name);
                    }
                }
            }
        }
        return reach;
    }

    /** The risky domains, for the refusal. */
    List<String> domainNames() {
        return domainNames;
    }

    /** Whether the statement's text names a type, relation, function or operator built on a risky domain. */
    boolean named(List<Token> tokens) {
        for (Token t : tokens) {
            switch (t.kind()) {
                case WORD, QUOTED_IDENTIFIER -> {
                    if (names.contains(truncated(t.value()))) {
                        return true;
                    }
                }
                case OPERATOR -> {
                    if (operators.contains(t.value())) {
                        return true;
                    }
                }
                default -> { }
            }
        }
        return false;
    }

    /** Whether a parameter type the client gave is built on a risky domain. */
    boolean typesAnyOf(Collection<Long> oids) {
        return oids.stream().anyMatch(types::contains);
    }

    /** Whether one of {@code oids} is a relation with a column of a type built on a risky domain. */
    boolean hasColumnOf(Collection<Long> oids) {
        return oids.stream().anyMatch(relations::contains);
    }

    /** PostgreSQL truncates an identifier to NAMEDATALEN - 1 bytes (on a character boundary). */
    static String truncated(String identifier) {
        byte[] bytes = identifier.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= NAME_BYTES) {
            return identifier;
        }
        int end = NAME_BYTES;
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
            end--;
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }
}
