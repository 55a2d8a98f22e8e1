package io.pgward.guard.catalog;

import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.Token;
import io.pgward.guard.selection.VisibleCatalog;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * PostgreSQL stopped analysing a statement at an error, and a reg* literal in it names an object the login does not
 * see. On the full database PostgreSQL read that name and went on; a database without the object stops at the
 * literal, with {@code relation "hr.x" does not exist}, if it reads the literal before it reaches the error. Which
 * comes first is PostgreSQL's order of analysis, not the text's: FROM before the select list
 * ({@code SELECT 'hr.x'::regclass FROM nosuch} fails at {@code nosuch} either way), an operator's operands before the
 * operator ({@code WHERE 1 = 'hr.x'::regclass::text} fails at {@code =} only when {@code hr.x} exists), a call's
 * arguments before the function. Answering by the text's order would tell whether {@code hr.x} exists.
 *
 * <p>So PostgreSQL is asked: the statement is analysed again with each such literal replaced by a literal of the
 * same length that names nothing ({@link #substitution}). If that analysis stops at one of them, a database without
 * the hidden objects stops there, and the answer is that hidden name's absence; otherwise the first error never
 * depended on them, and it stands as PostgreSQL gave it.
 */
final class HiddenNameLiterals {

    /** Names tried as the stand-in for a hidden one, shortest first; each is checked to name nothing. */
    private static final List<String> STAND_INS = List.of("zq", "zq0", "zq1", "zq2", "zq_absent", "q", "z");

    private HiddenNameLiterals() {
    }

    /**
     * How a database without the login's hidden objects reads one literal as names of {@code kind}, in order: the
     * error for the first hidden one; null when the names are found, or one that nothing has comes first
     * (PostgreSQL's own error is then the same on both).
     */
    private static Verdict.Refuse absent(NameLiterals.Literal literal, ObjectKind kind, GatedUses.NameResolver names,
                                         VisibleCatalog visible, int serverMajor) throws SQLException {
        for (String name : GatedUses.names(literal.value())) {
            byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
            if (CheckTransaction.failsOnlyWhenFound(kind, bytes)) {
                return null;
            }
            long oid = names.resolve(kind, bytes);
            String schema = QualifiedName.schema(kind, name);
            long namespace = schema == null ? -1 : names.resolve(ObjectKind.NAMESPACE,
                    schema.getBytes(StandardCharsets.UTF_8));
            boolean hiddenSchema = namespace > 0 && !ObjectKind.NAMESPACE.visible(visible, namespace);
            if (hiddenSchema && (kind == ObjectKind.TYPE || serverMajor <= 15 && kind != ObjectKind.OPERATOR)) {
                return CatalogRefusals.absentObject(ObjectKind.NAMESPACE.sqlState(),
                        ObjectKind.NAMESPACE.absentByName(schema, 0), literal.position());
            }
            if (oid == 0) {
                return null;
            }
            if (!kind.visible(visible, oid)) {
                return CatalogRefusals.absentObject(kind.sqlState(), kind.absentByName(name, oid),
                        literal.position());
            }
        }
        return null;
    }

    /** One literal replaced: how PostgreSQL reads it, the name that took its place, and its absence's error. */
    record Replaced(NameLiterals.Literal literal, ObjectKind kind, String standIn, Verdict.Refuse absent) {
    }

    /** The statement with every replaced literal's text in place, of the same length as the statement. */
    record Substitution(String sql, List<Replaced> replaced) {

        /**
         * The answer of a database without the hidden objects, given the verdict on the substituted statement:
         * the absence of the hidden name whose stand-in PostgreSQL stopped at; empty when it stopped elsewhere.
         */
        Optional<Verdict.Refuse> answer(Verdict again) {
            if (!(again instanceof Verdict.Refuse r) || !r.rule().equals(CatalogRefusals.POSTGRES_ERROR)) {
                return Optional.empty();
            }
            for (Replaced each : replaced) {
                if (each.literal().position() == r.position() && String.valueOf(r.message()).contains(each.standIn())
                        && (r.sqlState().equals(each.kind().sqlState())
                        || r.sqlState().equals(ObjectKind.NAMESPACE.sqlState()))) {
                    return Optional.of(each.absent());
                }
            }
            return Optional.empty();
        }
    }

    /**
     * The most names looked up for one error: each costs the check's connection a round trip or two, and a statement
     * may hold thousands (an IN list of strings, an array literal). The count does not depend on what exists.
     */
    static final int MAX_NAMES = 256;

    /** The names the candidates hold, as {@link #read} looks them up (an array literal's elements each). */
    static int names(List<Candidate> candidates) {
        return candidates.stream().mapToInt(c -> GatedUses.names(c.literal().value()).size()).sum();
    }

    /** A literal PostgreSQL may read as names of {@code kind} while it analyses the statement. */
    record Candidate(NameLiterals.Literal literal, ObjectKind kind) {
    }

    /**
     * The literals PostgreSQL may read as names while it analyses the statement: a reg* literal, or a call's argument
     * (read as a relation, the usual reg* parameter). A number is an OID, which the reg* input functions take
     * without looking anything up; operators are not looked for.
     */
    static List<Candidate> candidates(List<Token> tokens) {
        List<Candidate> candidates = new ArrayList<>();
        for (NameLiterals.Literal literal : NameLiterals.of(tokens)) {
            ObjectKind kind = literal.regTyped() ? ObjectKind.ofRegTypeName(literal.regType())
                    : literal.argument() ? ObjectKind.RELATION : null;
            boolean oid = literal.value().strip().chars().allMatch(Character::isDigit);
            if (kind != null && kind.resolver() != null && kind != ObjectKind.OPERATOR
                    && kind != ObjectKind.OPERATOR_NAME && !oid) {
                candidates.add(new Candidate(literal, kind));
            }
        }
        return candidates;
    }

    /**
     * The statement with every candidate literal that names an object the login does not see replaced by a name of
     * nothing. Null when there is no such literal, or one of them cannot be replaced (then PostgreSQL's error stands
     * as it gave it).
     */
    static Substitution substitution(String sql, List<Candidate> candidates, GatedUses.NameResolver names,
                                     VisibleCatalog visible, int serverMajor) throws SQLException {
        StringBuilder text = new StringBuilder(sql);
        List<Replaced> replaced = new ArrayList<>();
        for (Candidate candidate : candidates) {
            NameLiterals.Literal literal = candidate.literal();
            ObjectKind kind = candidate.kind();
            Verdict.Refuse absent = absent(literal, kind, names, visible, serverMajor);
            if (absent == null) {
                continue;
            }
            int start = literal.start();
            String standIn = standIn(kind, names);
            String standInText = standIn == null || !replaceable(sql, start, literal.end()) ? null
                    : literalText(standIn, kind, literal, literal.end() - start);
            if (standInText == null) {
                return null;
            }
            text.replace(start, literal.end(), standInText);
            replaced.add(new Replaced(literal, kind, standIn, absent));
        }
        return replaced.isEmpty() ? null : new Substitution(text.toString(), replaced);
    }

    /**
     * Whether the literal at {@code start} can give way to a plain one: '...', E'...', a dollar-quoted one, or
     * U&'...' without a UESCAPE clause after it. (A bit string or N'...' is typed, and PostgreSQL does not read it as
     * a name while it analyses the statement. A UESCAPE hidden behind a comment makes the second analysis fail at
     * it, and PostgreSQL's first error then stands.)
     */
    private static boolean replaceable(String sql, int start, int end) {
        char first = Character.toUpperCase(sql.charAt(start));
        if (first == 'U') {
            String after = sql.substring(end).stripLeading();
            return after.length() < 7 || !after.substring(0, 7).equalsIgnoreCase("uescape");
        }
        return first == '\'' || first == 'E' || first == '$';
    }

    /** A name in {@link #STAND_INS} that names no object of {@code kind} for the session, or null. */
    private static String standIn(ObjectKind kind, GatedUses.NameResolver names) throws SQLException {
        for (String name : STAND_INS) {
            String input = kind == ObjectKind.FUNCTION ? name + "()" : name;
            if (names.resolve(kind, input.getBytes(StandardCharsets.UTF_8)) == 0) {
                return name;
            }
        }
        return null;
    }

    /**
     * A plain string literal of exactly {@code length} characters that reads as {@code name} (an array of it when
     * the literal is an array, with an empty argument list for a function with its signature): the input functions
     * of the reg* types and of arrays skip trailing blanks. Null when the name does not fit.
     */
    private static String literalText(String name, ObjectKind kind, NameLiterals.Literal literal, int length) {
        String input = kind == ObjectKind.FUNCTION ? name + "()" : name;
        if (literal.value().strip().startsWith("{")) {
            input = "{" + input + "}";
        }
        if (input.length() + 2 > length) {
            return null;
        }
        return "'" + input + " ".repeat(length - 2 - input.length()) + "'";
    }
}
