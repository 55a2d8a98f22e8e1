package io.pgward.guard.catalog;

import io.pgward.guard.Hints;
import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import java.util.List;

/**
 * The catalog check's refusal texts and rule ids. The texts are the table-selection reference's, with "pgward"
 * for the product name and "this login's table selection" where the reference says "this node's": a selection
 * belongs to a pgward login.
 *
 * <p>SQLSTATEs: 42501 (insufficient_privilege) for every rule that keeps a login from something it asked for,
 * including the missing TEMP privilege. A statement beyond the check's bounds is 54001 (statement_too_complex), as
 * PostgreSQL answers for one beyond its own. Two refusals are not about privileges: "None of the selected tables or
 * views exist any more." is 42P01 (undefined_table), and the read-only standby is 25006
 * (read_only_sql_transaction), what PostgreSQL reports when a standby is asked to write. A PostgreSQL error raised
 * while the statement is analysed keeps PostgreSQL's own SQLSTATE.
 */
public final class CatalogRefusals {

    public static final String RELATION = "relation-not-selected";
    public static final String FUNCTION = "function-not-built-in";
    public static final String OPERATOR = "operator-not-built-in";
    public static final String TYPE = "type-not-built-in";
    public static final String OBJECT_IDENTIFIER_TYPE = "object-identifier-type";
    public static final String DENIED_BUILT_IN = "denied-built-in";
    public static final String RISKY_DOMAIN = "risky-domain";
    /** A constant names an object the login's filtered catalog hides: PostgreSQL's error for an absent one. */
    public static final String ABSENT_OBJECT = "absent-object";
    /**
     * A to_reg* call of a name the login does not see, hidden or absent: never sent to a client as such. The serving
     * rewrite answers the call NULL, as PostgreSQL does for an absent name ({@code NullNames}); where it cannot, the
     * refusal is published as {@link #ABSENT_OBJECT} ({@link #published}).
     */
    static final String NULL_NAME = "null-name";
    /**
     * A call of current_schema or current_schemas by a statement of a login with a table selection: never sent to a
     * client as such. The serving rewrite keeps of its answer the schemas the login sees ({@code SchemaPathCalls});
     * where it cannot, the refusal is published as {@link #DENIED_BUILT_IN} ({@link #published}).
     */
    static final String SCHEMA_PATH = "schema-path";
    /** A value bound to a regtype parameter that pgward does not read as a plain name ({@link BoundTypeNames}). */
    public static final String TYPE_NAME_PARAMETER = "type-name-parameter";
    public static final String NONE_EXISTS = "selection-gone";
    public static final String NO_TEMP = "no-temp-privilege";
    public static final String NO_SQL_LANGUAGE = "no-sql-language-usage";
    public static final String STANDBY = "read-only-standby";
    public static final String NOT_ONE_STATEMENT = "not-one-statement";
    public static final String NOT_READ_ONLY = "statement-kind";
    /** An EXPLAIN would print a definition the login's catalog withholds: a view's, a policy's, a function's body. */
    public static final String EXPLAIN_WITHHELD = "explain-withheld-definition";
    /**
     * A statement reads a selected view over relations the selection leaves out, which is no security barrier, with
     * code that could fail on a row the view filters out ({@code LeakyViews}).
     */
    public static final String LEAKY_VIEW = "leaky-view";
    /** PostgreSQL rejected the statement while it was analysed; the refusal carries PostgreSQL's error. */
    public static final String POSTGRES_ERROR = "postgres-error";
    /**
     * PostgreSQL's grammar rejected a text pgward's own layers refused ({@code ServerGrammar}); the refusal carries
     * PostgreSQL's error, which it gives before anything else, in an aborted transaction too.
     */
    public static final String GRAMMAR = "postgres-grammar";
    /**
     * The statement is beyond the catalog check's bounds: PostgreSQL's analysis did not finish within the check's
     * statement_timeout, or the parse tree it stored is larger or deeper than pgward reads. SQLSTATE 54001.
     */
    public static final String TOO_COMPLEX = "too-complex";
    /**
     * A covered catalog is read through a filter subquery without the fence, and a condition of the statement could
     * observe a hidden row ({@link QuietQuals}): the same statement with fenced filters may be allowed. The text is
     * the relation rule's.
     */
    public static final String FENCE_NEEDED = "fence-needed";
    /** The check itself failed (a fault, a timeout, a parse tree it cannot read); it fails closed. */
    public static final String CHECK_FAILED = "check-failed";

    static final String PRIVILEGE = SqlStates.INSUFFICIENT_PRIVILEGE;
    static final String UNDEFINED_TABLE = SqlStates.UNDEFINED_TABLE;
    static final String READ_ONLY_TRANSACTION = SqlStates.READ_ONLY_SQL_TRANSACTION;
    /** statement_too_complex, what PostgreSQL answers when a statement exceeds max_stack_depth. */
    static final String STATEMENT_TOO_COMPLEX = SqlStates.STATEMENT_TOO_COMPLEX;

    private CatalogRefusals() {
    }

    static Verdict.Refuse relations(List<String> notSelected, TableSelection selection) {
        return refuse(RELATION, Verdict.Refuse.PREFIX + "it reads " + String.join(", ", notSelected)
                + ", which this login's table selection does not include. Selected: "
                + String.join(", ", selection.relations().stream().map(SelectedRelation::qualifiedName).toList())
                + ".").withHint(Hints.relations());
    }

    static Verdict.Refuse fenceNeeded(List<String> notSelected, TableSelection selection) {
        Verdict.Refuse r = relations(notSelected, selection);
        return new Verdict.Refuse(r.sqlState(), r.message(), r.position(), FENCE_NEEDED);
    }

    static Verdict.Refuse function(String qualifiedName) {
        return refuse(FUNCTION, Verdict.Refuse.PREFIX + "function " + qualifiedName + " is not built in.");
    }

    static Verdict.Refuse operator(String qualifiedName) {
        return refuse(OPERATOR, Verdict.Refuse.PREFIX + "operator " + qualifiedName + " is not built in.");
    }

    static Verdict.Refuse type(String name) {
        return refuse(TYPE, Verdict.Refuse.PREFIX + "type " + name + " is not built in.");
    }

    static Verdict.Refuse objectIdentifierType(String name) {
        return refuse(OBJECT_IDENTIFIER_TYPE, Verdict.Refuse.PREFIX + "type " + name
                + " is not allowed while a table selection is set.").withHint(Hints.relations());
    }

    /** Text read as an aclitem while the statement runs looks role names up, hidden ones too. */
    static Verdict.Refuse aclitemFromText() {
        return refuse(OBJECT_IDENTIFIER_TYPE, Verdict.Refuse.PREFIX + "reading text as aclitem is not allowed while a "
                + "table selection is set.").withHint(Hints.relations());
    }

    static Verdict.Refuse deniedBuiltIn(String name) {
        return refuse(DENIED_BUILT_IN, Verdict.Refuse.PREFIX + name
                + " is not allowed while a table selection is set.").withHint(Hints.relations());
    }

    /**
     * A refusal for code the user never wrote, found in the definition of a view, or in a row-security policy,
     * that the statement reaches through {@code read}: says where, then why.
     */
    static Verdict.Refuse inDefinition(Verdict.Refuse inside, String read, String definedOn, boolean policy) {
        String why = inside.message().startsWith(Verdict.Refuse.PREFIX)
                ? inside.message().substring(Verdict.Refuse.PREFIX.length()) : inside.message();
        return new Verdict.Refuse(inside.sqlState(), Verdict.Refuse.PREFIX + "it reads " + read
                + (read.equals(definedOn) ? "" : ", which reaches " + definedOn) + "; inside "
                + (policy ? "a row-security policy of " : "the definition of ") + definedOn + ": " + why,
                0, inside.rule(), null, inside.hint());
    }

    /**
     * Code found in the definition of a view, or a policy of a table, that {@code read} reaches and the selection does
     * not include: the refusal names neither that relation nor what its definition uses, which the login's catalog
     * withholds.
     */
    static Verdict.Refuse inHiddenDefinition(Verdict.Refuse inside, String read) {
        return new Verdict.Refuse(inside.sqlState(), Verdict.Refuse.PREFIX + "it reads " + read + ", which reaches "
                + "a view or a row-security policy outside this login's table selection whose code this login may "
                + "not run", 0, inside.rule(), null, null);
    }

    /**
     * An EXPLAIN whose plan would print a definition the login's catalog withholds ({@code ExplainedPlan}): reached
     * through {@code read}, a view the statement reads, or a table whose row-security policies it reads. The text
     * names nothing the statement does not name: what the definition uses is the secret.
     */
    static Verdict.Refuse explainShowsDefinition(String read, boolean view) {
        return refuse(EXPLAIN_WITHHELD, Verdict.Refuse.PREFIX + "EXPLAIN would show "
                + (view ? "what " + read + " reads, and it reads" : "the row-security policies of " + read
                + ", and they read") + " objects outside this login's table selection. The "
                + (view ? "view" : "table") + " can be read without EXPLAIN.");
    }

    /**
     * A read of {@code view}, a selected view over relations outside the selection that is no security barrier, by a
     * statement whose {@code leak} (a function, an operator or a cast) could run on rows the view filters out. The
     * text names only the view the statement reads, never what it reads.
     */
    static Verdict.Refuse leakyView(String view, String leak) {
        return refuse(LEAKY_VIEW, Verdict.Refuse.PREFIX + view + " is a view over relations outside this login's "
                + "table selection, and " + leak + " could run on rows it filters out (PostgreSQL may evaluate "
                + "conditions before the view's own). Use leakproof functions and operators only with it, or have "
                + "the database owner make it a security barrier: ALTER VIEW " + view
                + " SET (security_barrier = true).");
    }

    /** An EXPLAIN whose plan could print the body of a user function the statement calls, which the planner inlines. */
    static Verdict.Refuse explainShowsFunctionBody(String function) {
        return refuse(EXPLAIN_WITHHELD, Verdict.Refuse.PREFIX + "EXPLAIN could show the body of function " + function
                + ", which this login's catalog does not show. The function can be called without EXPLAIN.");
    }

    /**
     * PostgreSQL's own error for an absent object, with its SQLSTATE (42P01, 42704, 42883, 3F000, ...) and its
     * position (1-based in the statement, 0 for none: PostgreSQL points only at what it reads while analysing).
     */
    static Verdict.Refuse absentObject(String sqlState, String message, int position) {
        return new Verdict.Refuse(sqlState, message, position, ABSENT_OBJECT);
    }

    /**
     * The to_reg* call {@code function} of {@code name}, a name the login does not see: the DETAIL carries the call
     * to the serving rewrite ({@code NullNames}) and never reaches a client ({@link #published}).
     */
    static Verdict.Refuse nullName(String sqlState, String message, String function, String name) {
        return new Verdict.Refuse(sqlState, message, 0, NULL_NAME, function + "\n" + name, null);
    }

    /** The function and the name of a {@link #nullName} refusal. */
    static String[] nullNameCall(Verdict.Refuse refuse) {
        int split = refuse.detail().indexOf('\n');
        return new String[] {refuse.detail().substring(0, split), refuse.detail().substring(split + 1)};
    }

    /**
     * {@code denied}, the {@link #deniedBuiltIn} of current_schema or current_schemas, for the serving rewrite: the
     * DETAIL carries the constant of the login's visible schema names and never reaches a client ({@link #published}).
     */
    static Verdict.Refuse schemaPath(Verdict.Refuse denied, String names) {
        return new Verdict.Refuse(denied.sqlState(), denied.message(), 0, SCHEMA_PATH, names, denied.hint());
    }

    /**
     * A verdict as a client may see it: a {@link #nullName} refusal not answered NULL is the absent object's, a
     * {@link #schemaPath} refusal not rewritten is the denied built-in's.
     */
    static Verdict published(Verdict verdict) {
        if (verdict instanceof Verdict.Refuse r && r.rule().equals(SCHEMA_PATH)) {
            return new Verdict.Refuse(r.sqlState(), r.message(), 0, DENIED_BUILT_IN, null, r.hint());
        }
        return verdict instanceof Verdict.Refuse r && r.rule().equals(NULL_NAME)
                ? absentObject(r.sqlState(), r.message(), 0) : verdict;
    }

    static Verdict.Refuse riskyDomains(List<String> domains) {
        return refuse(RISKY_DOMAIN, Verdict.Refuse.PREFIX + "this database has domains whose CHECK could run other "
                + "code or change data while a query is checked: " + String.join(", ", domains) + ".");
    }

    static Verdict.Refuse noneExists() {
        return new Verdict.Refuse(UNDEFINED_TABLE, Verdict.Refuse.PREFIX
                + "none of the selected tables or views exist any more.", 0, NONE_EXISTS);
    }

    static Verdict.Refuse noTemp(boolean selection) {
        return uncheckable(NO_TEMP, selection, "no TEMP privilege on the database");
    }

    /** The check's function is written in SQL, so the role needs USAGE on it (PUBLIC has it unless revoked). */
    static Verdict.Refuse noSqlLanguage(boolean selection) {
        return uncheckable(NO_SQL_LANGUAGE, selection, "no USAGE privilege on the language sql");
    }

    /** The login lacks {@code privilege}, which every check needs. */
    private static Verdict.Refuse uncheckable(String rule, boolean selection, String privilege) {
        return refuse(rule, Verdict.Refuse.PREFIX + "it could not be checked"
                + (selection ? " against the table selection" : "") + ": this database login has " + privilege);
    }

    static Verdict.Refuse standby() {
        return new Verdict.Refuse(READ_ONLY_TRANSACTION,
                Verdict.Refuse.PREFIX + "it could not be checked: the database is a read-only standby", 0, STANDBY);
    }

    static Verdict.Refuse notOneStatement() {
        return refuse(NOT_ONE_STATEMENT, Verdict.Refuse.PREFIX + "it is not exactly one statement");
    }

    static Verdict.Refuse notReadOnly(String what) {
        return refuse(NOT_READ_ONLY, Verdict.Refuse.PREFIX + "it contains " + what + ", and this login may only read");
    }

    /** {@code pgward refused this query: it is too complex to check (<detail>)}, as layer L2 words it. */
    static Verdict.Refuse tooComplex(String detail) {
        return new Verdict.Refuse(STATEMENT_TOO_COMPLEX,
                Verdict.Refuse.PREFIX + "it is too complex to check (" + detail + ")", 0, TOO_COMPLEX);
    }

    static Verdict.Refuse checkFailed(String detail) {
        return refuse(CHECK_FAILED, Verdict.Refuse.PREFIX + "it could not be checked against the catalog (" + detail
                + ")");
    }

    private static Verdict.Refuse refuse(String rule, String message) {
        return new Verdict.Refuse(PRIVILEGE, message, 0, rule);
    }
}
