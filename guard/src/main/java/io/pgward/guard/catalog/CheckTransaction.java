package io.pgward.guard.catalog;

import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.LexerException;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.postgresql.util.PSQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One catalog check on one control connection: PostgreSQL analyses the statement's query by storing it in the body
 * of a temporary SQL function, and pgward reads the stored parse tree back. The transaction always rolls back.
 *
 * <pre>
 *   [PREPARE the catalog reads; keep the temporary schema]      -- once per connection, see PreparedReads
 *   one round trip:
 *     BEGIN TRANSACTION READ WRITE                  -- a temporary function is a write, even for a read-only role
 *     set_config: statement_timeout, plan_cache_mode, check_function_bodies, role,
 *                 search_path = pg_catalog, pg_temp                                            (all LOCAL)
 *     read the domain CHECK expressions
 *     set_config: search_path = the session's, standard_conforming_strings = the session's
 *   judge the domain CHECK expressions              -- before anything of the statement is parsed; a catalog read
 *                                                   -- this needs sets search_path = pg_catalog, pg_temp first
 *   [read what reaches the risky domains; refuse a statement that names it]     -- only when there are any
 *   [PREPARE pgward_params (...) AS query; read pg_prepared_statements; DEALLOCATE]   -- infer $n types
 *   one round trip (two when the query's text ends inside a comment, a quote or a parenthesis):
 *     CREATE FUNCTION pg_temp.pgward_check() RETURNS bool LANGUAGE sql
 *         RETURN EXISTS (SELECT 1 FROM (query with $n as typed NULLs) AS pgward_query)
 *     set_config: search_path = pg_catalog, pg_temp
 *     read pg_proc.prosqlbody and pg_depend of the function (CheckFunctionRead)
 *   [read the rows of the relations, column types and view definitions it depends on]  -- unless SharedRows has them
 *   read the views, policies, functions, operators and types it reaches                 -- unless SharedRows has them
 *   ROLLBACK
 * </pre>
 *
 * <p>The fixed statements of one round trip go as one pgjdbc statement text, which pgjdbc sends as a Parse,
 * Bind and Execute per statement followed by one Sync; PostgreSQL handles them in order, so each is parsed with
 * the settings the one before it made. The client's text is split by pgjdbc with the session's
 * standard_conforming_strings already in effect (the server reports the setting when it changes), and PostgreSQL
 * receives it as a Parse of its own, alone or followed by the fixed reads of the function when pgjdbc splits the
 * two texts put together into exactly the statements of each ({@link CheckStatements#createCheckFunction}); an error
 * in the function skips them.
 *
 * <p>A function rather than a view: PostgreSQL stores an analysed body for about 0.2 ms less than a view, which
 * is a relation with a row type, columns and a rule (bench/results/never-seen-2026-12-05-check-function.md). What
 * it stores, {@code SELECT 1 FROM (query) AS pgward_query} as an EXISTS sublink, is the query a view would store,
 * analysed the same way; {@link CheckFunctionBody} holds the rest of the body to the shape written.
 *
 * <p>Wrapping the query as a subquery of {@code SELECT 1} keeps the stored query's own output trivial, so
 * duplicate output names and record or void columns cannot make the function fail. The text goes to the server as
 * one extended-protocol Parse (the pool sets preferQueryMode=extended), and pgjdbc's own splitter must see one
 * statement in it first; PostgreSQL refuses a Parse with more than one command. So the server's own parser proves
 * the statement is exactly one: {@code SELECT 1) x; DROP ...; SELECT (1} cannot run as three.
 */
final class CheckTransaction {

    private static final Logger log = LoggerFactory.getLogger(CheckTransaction.class);

    static final String CHECK_FUNCTION = "pgward_check";
    private static final String PREPARED = "pgward_params";
    static final String SAFE_PATH = "pg_catalog, pg_temp";
    /** pg_catalog.regtype's pinned OID (pg_type.dat). */
    /**
     * The most parameter values a Bind message carries (its count is an unsigned int16), so no statement can run with
     * a higher {@code $n}. Past it, finding the types would make PostgreSQL (and the check) size everything by the
     * number alone: {@code $200000000} alone asks for 800 MB of parameter types.
     */
    static final int MAX_PARAMETER = 65_535;
    private static final long REGTYPE = 2206;
    private static final long TEXT = 25;
    /**
     * The largest stored parse tree read back, in bytes of its text. PostgreSQL writes about 150 bytes per
     * constant, so this admits an IN list of some 25,000 values; NodeTreeParser and QueryTreeWalker read 4 MB in
     * tens of milliseconds. A larger tree is not sent over the control connection at all: the statement is refused
     * as too complex (54001).
     */
    static final int MAX_TREE_CHARS = 4 << 20;

    private final Connection connection;
    private final CheckRequest request;
    private final StatementShape shape;
    private final Duration timeout;
    private final CatalogReader catalog;
    private final CheckStatements statements;
    private final SharedRows.Generation shared;
    private final boolean reanalysis;
    // The session's search_path is in effect, not the safe one: a catalog query must restore the safe one first.
    private boolean sessionPath;
    // What reaches the database's risky domains, when it has any (DomainReach); null when it has none.
    private DomainReach domainReach;
    // Set by judge() when it allows: the allow holds for every statement with the same ConstantShape key.
    private boolean shareableByShape;
    // The $n of type regtype (given at Parse or inferred), checked as KeyMatch operands; see Verdict.Allow.
    private final Set<Integer> typeNameParameters = new TreeSet<>();
    // The $n of a text type used only as to_regtype's argument (TypeNameTexts), with a selection.
    private Set<Integer> typeNameTexts = Set.of();
    /** The client's parameters include one of a type that could carry a name, other than typeNameTexts. */
    private boolean textParameters;
    /** unknown (not told), name, text, bpchar, varchar, unknown. */
    private static final Set<Long> TEXT_TYPES = Set.of(0L, 19L, 25L, 1042L, 1043L, 705L);
    // The types of the $n the statement uses, by OID (0 when one could not be told): see GatedUses.
    private final Set<Long> parameterTypeOids = new java.util.HashSet<>();
    // The type of each $n the statement uses, by number.
    private final Map<Integer, Long> parameterOids = new HashMap<>();

    /** @param reanalysis this check is {@link HiddenNameLiterals}' second analysis of a statement, not a client's */
    private CheckTransaction(Connection connection, CheckRequest request, StatementShape shape, Duration timeout,
                             SharedRows.Generation shared, boolean reanalysis) {
        this.connection = connection;
        this.request = request;
        this.shape = shape;
        this.timeout = timeout;
        this.shared = shared;
        this.reanalysis = reanalysis;
        this.catalog = new CatalogReader(connection, shared, this::safePathForCatalog);
        this.statements = new CheckStatements(connection, request.standardConformingStrings(), timeout);
    }

    /**
     * Runs the check. The connection must be in autocommit mode; it is left in autocommit mode, outside any
     * transaction. SQLExceptions other than PostgreSQL's verdict on the statement itself propagate.
     */
    static Verdict run(Connection connection, CheckRequest request, StatementShape shape, Duration timeout)
            throws SQLException {
        return run(connection, request, shape, timeout, new SharedRows.Generation());
    }

    /** As {@link #run(Connection, CheckRequest, StatementShape, Duration)}, with the rows that checks share. */
    static Verdict run(Connection connection, CheckRequest request, StatementShape shape, Duration timeout,
                         SharedRows.Generation shared) throws SQLException {
        return checked(connection, request, shape, timeout, shared, allowed -> { }).verdict();
    }

    /**
     * A verdict, and whether it holds for every statement with the same {@link ConstantShape} key (see
     * {@link ShapeSharing}); only an allow ever does.
     */
    record Checked(Verdict verdict, boolean shareableByShape) {
    }

    /**
     * As {@link #run(Connection, CheckRequest, StatementShape, Duration, SharedRows.Generation)}, with sharing.
     * An allow is final once the function's tree is judged, so {@code allowed} is given it then, before the
     * ROLLBACK's round trip (and PostgreSQL's work to undo the function) that the connection still needs; a refusal
     * is worked out further after the ROLLBACK and comes only as the result.
     */
    static Checked checked(Connection connection, CheckRequest request, StatementShape shape, Duration timeout,
                           SharedRows.Generation shared, Consumer<Checked> allowed)
            throws SQLException {
        CheckTransaction check = new CheckTransaction(connection, request, shape, timeout, shared, false);
        Verdict verdict = check.runWithKnownDomains(allowed);
        if (verdict == null) {
            check = new CheckTransaction(connection, request, shape, timeout, shared, false);
            verdict = check.run(allowed);
        }
        return new Checked(verdict, verdict == Verdict.ALLOW && check.shareableByShape);
    }

    /**
     * The check in one round trip before its verdict where the last domain CHECK expressions read were judged harmless
     * from rows of this generation ({@link SharedRows.Generation#harmlessDomainChecks}): the opening goes with the
     * function, and in place of reading the expressions it has PostgreSQL fail unless they are still the same ones,
     * which skips the function and the reads (PostgreSQL ignores the rest of a pipeline up to its Sync); the same
     * statement takes the session's settings ({@link CatalogReader#DOMAIN_CHECKS_UNCHANGED}). So no
     * statement is analysed under expressions not judged, as in {@link #run}. Null when {@link #run} must decide: no
     * such digest is known, the statement has parameters (their types may take round trips of their own before the
     * function), or PostgreSQL failed anything of the round trip. A failure is decided again, so a changed expression
     * is judged and PostgreSQL's error for the statement is worked out as it always is.
     */
    private Verdict runWithKnownDomains(Consumer<Checked> allowed) throws SQLException {
        String digest = shared.harmlessDomainChecks;
        if (digest == null || !QueryText.parameters(shape).isEmpty()) {
            return null;
        }
        PreparedReads.ensure(connection);
        String opening = openingWithKnownDomains(digest);
        if (opening == null) {
            return null;
        }
        statements.openWith(opening);
        sessionPath = true;
        Verdict verdict;
        try {
            verdict = inTransaction(CatalogReader.DomainChecks.KNOWN);
            if (verdict == Verdict.ALLOW) {
                allowed.accept(new Checked(verdict, shareableByShape));
            }
        } catch (PostgresVerdict v) {
            verdict = null;
        } finally {
            if (statements.opened()) {
                try (Statement s = connection.createStatement()) {
                    s.execute("ROLLBACK");
                }
            }
        }
        return verdict == null ? null : settled(verdict);
    }

    private Verdict run(Consumer<Checked> allowed) throws SQLException {
        PreparedReads.ensure(connection);
        CatalogReader.DomainChecks domainChecks;
        try {
            domainChecks = begin();
        } catch (SQLException e) {
            // A standby refuses read-write mode (0A000 "cannot set transaction read-write mode during recovery").
            if (inRecovery()) {
                return CatalogRefusals.standby();
            }
            throw e;
        }
        Verdict verdict;
        try {
            verdict = inTransaction(domainChecks);
            if (verdict == Verdict.ALLOW) {
                allowed.accept(new Checked(verdict, shareableByShape));
            }
        } catch (PostgresVerdict v) {
            verdict = v.verdict;
        } finally {
            try (Statement s = connection.createStatement()) {
                s.execute("ROLLBACK");
            }
        }
        return settled(verdict);
    }

    /** The verdict of the check function's analysis, worked out further once its transaction is rolled back. */
    private Verdict settled(Verdict verdict) throws SQLException {
        if (verdict instanceof Verdict.Refuse r && r.rule().equals(CatalogRefusals.ABSENT_OBJECT) && r.position() > 0) {
            // A reg* literal of a hidden object, the first in the order the walk met it, which is not always the
            // order PostgreSQL reads them (the select list before WHERE): PostgreSQL decides which it would stop at.
            return hiddenNameFirst().orElse(r);
        }
        // Creating the check function is the only step that needs privileges the role may lack.
        if (verdict instanceof Verdict.Refuse r && r.rule().equals(CatalogRefusals.POSTGRES_ERROR)
                && r.sqlState().equals(CatalogRefusals.PRIVILEGE)) {
            if (!hasPrivilege("database_privilege(%spg_catalog.current_database(), 'TEMP')")) {
                return CatalogRefusals.noTemp(request.selection().isSet());
            }
            if (!hasPrivilege("language_privilege(%s'sql', 'USAGE')")) {
                return CatalogRefusals.noSqlLanguage(request.selection().isSet());
            }
        }
        if (verdict instanceof Verdict.Refuse r && r.rule().equals(CatalogRefusals.POSTGRES_ERROR)
                && request.selection().isSet() && !request.selection().filters().isEmpty()) {
            Optional<Verdict.Refuse> schema = HiddenSchemaNames.replacing(connection, r, shape.tokens(),
                    request.selection().filters().visible());
            if (schema.isPresent()) {
                return schema.get();
            }
        }
        if (verdict instanceof Verdict.Refuse r && r.rule().equals(CatalogRefusals.POSTGRES_ERROR)
                && request.selection().isSet() && !request.selection().filters().isEmpty()
                && !r.sqlState().equals(SqlStates.SYNTAX_ERROR)) {
            Optional<Verdict.Refuse> absent = hiddenNameFirst();
            if (absent.isPresent()) {
                return absent.get();
            }
        }
        if (verdict instanceof Verdict.Refuse r && r.rule().equals(CatalogRefusals.POSTGRES_ERROR)
                && request.selection().isSet() && !r.sqlState().equals(SqlStates.SYNTAX_ERROR)) {
            List<String> hidden = HiddenRelationNames.named(connection, shape.tokens(), request.selection());
            if (!hidden.isEmpty()) {
                return CatalogRefusals.relations(hidden, request.selection());
            }
        }
        if (verdict instanceof Verdict.Refuse r && r.rule().equals(CatalogRefusals.POSTGRES_ERROR)) {
            return TempSchemaErrors.asSession(r, shape.tokens()).orElse(r);
        }
        return verdict;
    }

    /**
     * The error of a database without the login's hidden objects, where a reg* literal naming one of them could have
     * made PostgreSQL's error differ ({@link HiddenNameLiterals}): names are resolved as the session would, in a
     * read-only transaction of their own (the check's rolled back with the error), and the statement with those
     * literals replaced is analysed again in a check of its own.
     */
    private Optional<Verdict.Refuse> hiddenNameFirst() throws SQLException {
        if (reanalysis) {
            return Optional.empty();
        }
        List<HiddenNameLiterals.Candidate> candidates = HiddenNameLiterals.candidates(shape.tokens());
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        if (HiddenNameLiterals.names(candidates) > HiddenNameLiterals.MAX_NAMES) {
            return Optional.of(CatalogRefusals.tooComplex("PostgreSQL's error for it could depend on more than "
                    + HiddenNameLiterals.MAX_NAMES + " names in string literals, which may name what this login "
                    + "does not see"));
        }
        HiddenNameLiterals.Substitution substitution;
        try (Statement s = connection.createStatement()) {
            s.execute("BEGIN TRANSACTION READ ONLY");
        }
        try {
            List<Setting> opening = new ArrayList<>(List.of(
                    new Setting("statement_timeout", Long.toString(Math.max(1, timeout.toMillis())))));
            if (request.role() != null) {
                opening.add(new Setting("role", request.role()));
            }
            opening.addAll(sessionSettings());
            settings(opening);
            sessionPath = true;
            substitution = HiddenNameLiterals.substitution(request.sql(), candidates, this::resolveName,
                    request.selection().filters().visible(), connection.getMetaData().getDatabaseMajorVersion());
        } finally {
            sessionPath = false;
            try (Statement s = connection.createStatement()) {
                s.execute("ROLLBACK");
            }
        }
        if (substitution == null) {
            return Optional.empty();
        }
        StatementShape substituted;
        try {
            substituted = StatementShape.of(substitution.sql(), request.standardConformingStrings());
        } catch (LexerException e) {
            return Optional.empty();
        }
        Verdict again = new CheckTransaction(connection, request.withSql(substitution.sql()), substituted, timeout,
                shared, true).run(allowed -> { });
        return substitution.answer(again);
    }

    private Verdict inTransaction(CatalogReader.DomainChecks domainChecks) throws SQLException, PostgresVerdict {
        if (!domainChecks.checks().isEmpty()) {
            // Every database has some (information_schema's). Judging them reads the catalog only for rows not
            // known yet, and such a read puts the safe path back first (safePathForCatalog).
            DomainsJudged judged = judgeDomains(domainChecks.checks());
            Map<Long, String> risky = judged.risky();
            shared.harmlessDomainChecks = risky.isEmpty() && judged.builtInOnly() ? domainChecks.digest() : null;
            if (!risky.isEmpty()) {
                // Decided before PostgreSQL sees any of the statement: only a statement that names what is built
                // on a risky domain can make parse analysis run its CHECK (see DomainReach for the reasons).
                safePathForCatalog();
                domainReach = DomainReach.read(connection, risky);
                List<Long> parameterTypes = new ArrayList<>();
                for (int n = 1; n <= request.parameterTypes().size(); n++) {
                    parameterTypes.add(request.parameterType(n));
                }
                if (domainReach.named(shape.tokens()) || domainReach.typesAnyOf(parameterTypes)) {
                    return CatalogRefusals.riskyDomains(domainReach.domainNames());
                }
            }
            if (!sessionPath) {
                settings(sessionSettings());
                sessionPath = true;
            }
        }
        Map<Integer, String> parameterTypes = parameterTypeNames();
        parameterTypeOids.addAll(parameterOids.values());
        if (request.selection().isSet()) {
            typeNameTexts = TypeNameTexts.of(shape, parameterOids);
        }
        textParameters = parameterOids.entrySet().stream().anyMatch(p -> TEXT_TYPES.contains(p.getValue())
                && !typeNameTexts.contains(p.getKey()));
        if (!typeNameParameters.isEmpty()) {
            // A regtype parameter is analysed as to_regtype(NULL::text) (QueryText): that NULL stands for it.
            parameterTypeOids.add(TEXT);
        }
        QueryText query = parametersAsWritten(QueryText.parameters(shape))
                ? QueryText.withParameters(request.sql(), shape)
                : QueryText.withTypedNulls(request.sql(), shape, parameterTypes,
                        request.selection().isSet() ? typeNameParameters : Set.of());
        Verdict verdict = judge(statements.createCheckFunction(query));
        if (verdict != Verdict.ALLOW || !request.selection().isSet()
                || typeNameParameters.isEmpty() && typeNameTexts.isEmpty()) {
            return verdict;
        }
        List<Verdict.TypeNameParameter> typeNames = new ArrayList<>();
        typeNameParameters.forEach(n -> typeNames.add(new Verdict.TypeNameParameter(n, false)));
        typeNameTexts.forEach(n -> typeNames.add(new Verdict.TypeNameParameter(n, true)));
        typeNames.sort(java.util.Comparator.comparingInt(Verdict.TypeNameParameter::number));
        return new Verdict.Allow(false, typeNames);
    }

    /** LOCAL settings as one SELECT of set_config calls, in order; its parameters are {@link Setting#value}s. */
    private record Setting(String name, String value) {
        static String select(List<Setting> settings) {
            return "SELECT " + String.join(", ", Collections.nCopies(settings.size(),
                    "pg_catalog.set_config(?, ?, true)"));
        }

        static int bind(PreparedStatement ps, List<Setting> settings, int first) throws SQLException {
            int p = first;
            for (Setting s : settings) {
                ps.setString(p++, s.name());
                ps.setString(p++, s.value());
            }
            return p;
        }

        /** {@link #select} with the names and values written as escape-string literals. */
        static String literalSelect(List<Setting> settings) {
            return "SELECT " + String.join(", ", settings.stream().map(s -> "pg_catalog.set_config("
                    + PreparedReads.literal(s.name()) + ", " + PreparedReads.literal(s.value()) + ", true)").toList());
        }
    }

    /** Whether a domain CHECK names only objects that initdb made (OIDs below 16384). */
    private static boolean onlyBuiltIns(References check) {
        return Stream.of(check.functions, check.operators, check.types).flatMap(Collection::stream)
                .allMatch(SharedRows::builtIn)
                && check.directConstArguments.stream().allMatch(a -> SharedRows.builtIn(a.type()));
    }

    private void safePathForCatalog() throws SQLException {
        if (sessionPath) {
            settings(safePath());
            sessionPath = false;
        }
    }

    private static List<Setting> safePath() {
        return List.of(new Setting("search_path", SAFE_PATH));
    }

    private List<Setting> sessionSettings() {
        return List.of(new Setting("search_path", request.searchPath()),
                new Setting("standard_conforming_strings", standardConformingStrings()));
    }

    private String standardConformingStrings() {
        return request.standardConformingStrings() ? "on" : "off";
    }

    /**
     * Opens the transaction, takes the role with the safe path, reads the domain CHECK expressions and then takes
     * the session's search_path and standard_conforming_strings, all in one round trip.
     */
    private CatalogReader.DomainChecks begin() throws SQLException {
        List<Setting> opening = openingSettings();
        List<Setting> session = sessionSettings();
        try (PreparedStatement ps = connection.prepareStatement("BEGIN TRANSACTION READ WRITE; "
                + Setting.select(opening) + "; " + PreparedReads.Read.DOMAIN_CHECKS.execute() + "; "
                + Setting.select(session))) {
            Setting.bind(ps, session, Setting.bind(ps, opening, 1));
            ps.execute();
            ps.getMoreResults(); // the settings' row
            if (!ps.getMoreResults()) {
                throw new SQLException("the domain CHECK expressions were not returned");
            }
            CatalogReader.DomainChecks domainChecks;
            try (ResultSet rs = ps.getResultSet()) {
                domainChecks = CatalogReader.domainChecks(rs);
            }
            sessionPath = true;
            return domainChecks;
        }
    }

    /**
     * {@link #begin}'s statements as text, with the domain CHECK expressions of {@code digest} required in place of
     * reading them; null when a setting has no value or holds a NUL, which no text can carry.
     */
    private String openingWithKnownDomains(String digest) {
        List<Setting> opening = openingSettings();
        List<Setting> session = sessionSettings();
        if (Stream.concat(opening.stream(), session.stream())
                .anyMatch(s -> s.value() == null || s.value().indexOf('\0') >= 0)) {
            return null;
        }
        return "BEGIN TRANSACTION READ WRITE; " + Setting.literalSelect(opening) + "; "
                + PreparedReads.Read.domainChecksUnchanged(digest, request.searchPath(), standardConformingStrings());
    }

    /** The check's own settings, the role's and the safe path, LOCAL to its transaction. */
    private List<Setting> openingSettings() {
        List<Setting> opening = new ArrayList<>(List.of(
                new Setting("statement_timeout", Long.toString(Math.max(1, timeout.toMillis()))),
                // The PreparedReads by OID: PostgreSQL would plan each execution anew (its estimate for an
                // unknown array favours a custom plan), where the generic plan's index scans are as good.
                new Setting("plan_cache_mode", "force_generic_plan"),
                // The check function's body is analysed as it is created whatever this says; what it turns off is
                // the validator, which would also rewrite the stored query (views expanded, row security applied),
                // work the check does not need and PostgreSQL's own analysis of the statement does not do.
                new Setting("check_function_bodies", "off")));
        opening.addAll(safePath());
        if (request.role() != null) {
            opening.add(new Setting("role", request.role()));
        }
        return opening;
    }

    private void settings(List<Setting> settings) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(Setting.select(settings))) {
            Setting.bind(ps, settings, 1);
            ps.executeQuery().close();
        }
    }

    /**
     * @param risky the domains whose CHECK could run other code or change data (seed 003's rule), by OID, in name
     *              order
     * @param builtInOnly every CHECK names only objects that initdb made, whose rows the generation shares
     */
    private record DomainsJudged(Map<Long, String> risky, boolean builtInOnly) {
    }

    private DomainsJudged judgeDomains(List<CatalogReader.DomainCheck> domainChecks) throws SQLException {
        Map<Long, String> risky = new java.util.LinkedHashMap<>();
        boolean builtInOnly = true;
        CodeRules rules = new CodeRules(catalog, true);
        for (CatalogReader.DomainCheck domain : domainChecks) {
            References check = DomainCheckUses.SHARED.of(domain.check());
            if (!check.relations.isEmpty() || !check.nonReading.isEmpty()
                    || rules.riskInDomainCheck(check) != null) {
                risky.putIfAbsent(domain.type(), domain.name());
            }
            builtInOnly &= onlyBuiltIns(check);
        }
        return new DomainsJudged(risky, builtInOnly);
    }

    /**
     * The type name of every {@code $n} the query uses: the type the Parse message gave, or the one PostgreSQL
     * infers (PREPARE with {@code unknown} for the types not given, then pg_prepared_statements).
     */
    private Map<Integer, String> parameterTypeNames() throws SQLException, PostgresVerdict {
        TreeSet<Integer> used = QueryText.parameters(shape);
        Map<Integer, String> names = new HashMap<>();
        if (used.isEmpty() || parametersAsWritten(used)) {
            return names;
        }
        if (used.last() > MAX_PARAMETER) {
            throw new PostgresVerdict(CatalogRefusals.tooComplex("it uses parameter $" + used.last()
                    + ", and a Bind message carries at most 65,535 parameter values"));
        }
        int count = Math.max(used.last(), request.parameterTypes().size());
        List<Long> given = new ArrayList<>();
        for (int n = 1; n <= count; n++) {
            given.add(request.parameterType(n));
        }
        List<String> givenNames = typeNames(given);
        if (used.stream().allMatch(n -> request.parameterType(n) != 0)) {
            used.forEach(n -> names.put(n, givenNames.get(n - 1)));
            used.stream().filter(n -> request.parameterType(n) == REGTYPE).forEach(typeNameParameters::add);
            used.forEach(n -> parameterOids.put(n, request.parameterType(n)));
            return names;
        }
        QueryText query = QueryText.withParameters(request.sql(), shape);
        String prefix = "PREPARE " + PREPARED + " (" + String.join(", ", givenNames) + ") AS ";
        statements.execute(prefix + query.text(), query, prefix.length());
        List<String> inferred;
        List<String> inferredOids;
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT parameter_types::pg_catalog.text[], "
                     + "parameter_types::pg_catalog.oid[]::pg_catalog.text[] FROM "
                     + "pg_catalog.pg_prepared_statements WHERE name OPERATOR(pg_catalog.=) '" + PREPARED + "'")) {
            if (!rs.next()) {
                throw new SQLException("the prepared statement " + PREPARED + " is missing");
            }
            Array array = rs.getArray(1);
            inferred = List.of((String[]) array.getArray());
            inferredOids = List.of((String[]) rs.getArray(2).getArray());
        } finally {
            try (Statement s = connection.createStatement()) {
                s.execute("DEALLOCATE " + PREPARED);
            }
        }
        used.forEach(n -> names.put(n, inferred.get(n - 1)));
        used.stream().filter(n -> Long.parseLong(inferredOids.get(n - 1)) == REGTYPE)
                .forEach(typeNameParameters::add);
        used.forEach(n -> parameterOids.put(n, Long.parseLong(inferredOids.get(n - 1))));
        return names;
    }

    /**
     * Whether the function gets the query's {@code $n} as written rather than typed NULLs, so that PostgreSQL's
     * analysis refuses the statement with the very error the server would give the client: the function's query is
     * analysed with no parameters, as a simple Query's statement is, so every {@code $n} is 42P02 "there is no
     * parameter $n" at its place, whatever its number, and nothing is inferred or sized by it. For a simple Query
     * that is the server's own answer; a Parse gets the same one for {@code $0}, never a parameter, and
     * otherwise has its parameters' types inferred ({@link #parameterTypeNames}).
     */
    private boolean parametersAsWritten(TreeSet<Integer> used) {
        return !used.isEmpty() && (request.simpleQuery() || used.first() < 1);
    }

    /** Type names as the session's search_path shows them, for OIDs; 0 becomes {@code unknown}. */
    private List<String> typeNames(List<Long> oids) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT CASE WHEN t OPERATOR(pg_catalog.=) 0 "
                + "THEN 'unknown' ELSE t::pg_catalog.regtype::pg_catalog.text END FROM pg_catalog.unnest(CAST(? AS "
                + "pg_catalog.oid[])) WITH ORDINALITY AS u(t, i) ORDER BY i")) {
            ps.setObject(1, oids.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(",",
                    "{", "}")), Types.OTHER);
            List<String> names = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
            return names;
        }
    }

    private boolean inRecovery() throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("ROLLBACK");
            try (ResultSet rs = s.executeQuery("SELECT pg_catalog.pg_is_in_recovery()")) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** has_{@code check}, with the role's name as its first argument where the check takes a role. */
    private boolean hasPrivilege(String check) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT pg_catalog.has_"
                + check.formatted(request.role() == null ? "" : "?, "))) {
            if (request.role() != null) {
                ps.setString(1, request.role());
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** Runs with search_path = pg_catalog, pg_temp: every name below resolves in the catalog. */
    private Verdict judge(CheckFunctionRead checkFunction) throws SQLException {
        sessionPath = false;
        if (checkFunction.body() == null) {
            return CatalogRefusals.tooComplex("PostgreSQL's parse tree of it is larger than the "
                    + MAX_TREE_CHARS + " bytes the catalog check reads");
        }
        checkFunction.readRowsAround(shared, catalog);
        CatalogFilters filters = request.selection().isSet() ? request.selection().filters() : CatalogFilters.NONE;
        TreeValue parsed = CheckFunctionBody.query(NodeTreeParser.parse(checkFunction.body()));
        if (!filters.isEmpty() && filters.references() == null && FilterReferences.readsCovered(parsed, filters)) {
            filters.remember(FilterReferences.read(connection, filters));
        }
        ViewFilters views = request.selection().isSet() ? request.selection().views() : ViewFilters.NONE;
        References statement = QueryTreeWalker.walk(parsed, Set.of(), filters, views);
        // A filter subquery without the fence is proven only when no condition can observe a hidden row.
        boolean fenceNeeded = false;
        boolean quiet = false;
        if (readsCoveredCatalog(statement, filters)) {
            References unfenced = QueryTreeWalker.walk(parsed, Set.of(), filters, views, true);
            if (!unfenced.relations.equals(statement.relations)) {
                String loud = QuietQuals.loudness(parsed, connection, filters);
                if (loud == null) {
                    statement = unfenced;
                    quiet = true;
                } else {
                    log.debug("the statement keeps its filters fenced: it has {}", loud);
                    fenceNeeded = true;
                }
            }
        }
        GatedUses gates = filters.isEmpty() ? null
                : new GatedUses(filters, views, catalog, this::resolveName,
                        NameLiterals.of(shape.tokens()), parameterTypeOids, textParameters, quiet,
                        connection.getMetaData().getDatabaseMajorVersion());
        if (gates != null) {
            // Before the relation rule: a reg* constant naming a hidden relation is a dependency on it, and the
            // answer for it is PostgreSQL's for an absent object, not a refusal that confirms it exists.
            Optional<Verdict.Refuse> absent = gates.absent(statement);
            if (absent.isPresent()) {
                return absent.get();
            }
        }
        Set<Long> constantRelations = gates == null ? Set.of()
                : gates.visibleConstants(GatedUses.VisibleConstant.RELATION);
        Set<Long> constantTypes = gates == null ? Set.of() : gates.visibleConstants(GatedUses.VisibleConstant.TYPE);
        Set<Long> constantFunctions = gates == null ? Set.of()
                : gates.visibleConstants(GatedUses.VisibleConstant.FUNCTION);
        // PostgreSQL records a dependency on every relation an RTE reads, filter subqueries' catalogs included, and
        // on every object a reg* constant names. A catalog the walk saw only inside proven filters is not read
        // otherwise, nor is an object only a proven reg* constant names; any other reg* value is refused by the
        // code rules with a selection.
        // A filtered system view so seen is left out of the relations read as well, so its definition (PostgreSQL's
        // own code, calling built-ins the rules deny to statements) is not walked by reachedCode.
        Set<Long> walked = Set.copyOf(statement.relations);
        Set<Long> walkedFunctions = Set.copyOf(statement.functions);
        Set<Long> walkedTypes = Set.copyOf(statement.types);
        for (long[] dependency : checkFunction.dependencies()) {
            long oid = dependency[1];
            if (dependency[0] == CatalogReader.PG_PROC) {
                if (!(constantFunctions.contains(oid) && !walkedFunctions.contains(oid))) {
                    statement.functions.add(oid);
                }
            } else if (dependency[0] == CatalogReader.PG_OPERATOR) {
                statement.operators.add(oid);
            } else if (dependency[0] == CatalogReader.PG_TYPE) {
                if (!(constantTypes.contains(oid) && !walkedTypes.contains(oid))) {
                    statement.types.add(oid);
                }
            } else if (dependency[0] == CatalogReader.PG_CLASS
                    && !((statement.filteredRelations.contains(oid) || constantRelations.contains(oid))
                    && !walked.contains(oid))) {
                statement.relations.add(oid);
            }
        }
        if (!statement.nonReading.isEmpty()) {
            return CatalogRefusals.notReadOnly(statement.nonReading.get(0));
        }
        Set<Long> read = new LinkedHashSet<>(statement.relations);
        read.addAll(rowTypeRelations(statement.types));
        TableSelection selection = request.selection();
        if (selection.isSet()) {
            List<Long> notSelected = read.stream().filter(oid -> !selection.selects(oid)).toList();
            if (!notSelected.isEmpty()) {
                Map<Long, CatalogReader.Relation> rows = catalog.relations(notSelected);
                List<String> names = notSelected.stream().map(oid -> rows.containsKey(oid)
                        ? rows.get(oid).name() : String.valueOf(oid)).toList();
                return fenceNeeded && notSelected.stream().allMatch(oid -> filters.byRelid(oid) != null)
                        ? CatalogRefusals.fenceNeeded(names, selection) : CatalogRefusals.relations(names, selection);
            }
        }
        References code = new References();
        code.addAll(statement);
        List<ReachedDefinition> definitions = new ArrayList<>();
        Set<Long> reached = reachedCode(read, code, definitions);
        if (domainReach != null && (domainReach.typesAnyOf(code.types) || domainReach.hasColumnOf(reached))) {
            // Executing it could coerce a value to a risky domain, or it reads a column of one.
            return CatalogRefusals.riskyDomains(domainReach.domainNames());
        }
        Verdict verdict = codeRules(statement, definitions, selection, gates).<Verdict>map(r -> r)
                .orElse(Verdict.ALLOW);
        if (verdict == Verdict.ALLOW && gates != null) {
            verdict = gates.unreadableSettings(statement).<Verdict>map(r -> r).orElse(Verdict.ALLOW);
        }
        if (verdict == Verdict.ALLOW && !typeNameTexts.isEmpty()
                && (gates == null || !gates.keyedTypeNameTexts(statement))) {
            verdict = CatalogRefusals.deniedBuiltIn("to_regtype of a parameter, other than compared with pg_type.oid "
                    + "in a WHERE condition,");
        }
        if (verdict == Verdict.ALLOW && selection.isSet()) {
            verdict = LeakyViews.refusal(parsed, statement, definitions, selection, catalog).<Verdict>map(r -> r)
                    .orElse(Verdict.ALLOW);
        }
        if (verdict == Verdict.ALLOW && selection.isSet() && shape.explains()) {
            // Last: a statement refused for what it runs gets that refusal, with or without EXPLAIN.
            verdict = ExplainedPlan.of(statement, definitions).withheldFrom(selection, catalog).<Verdict>map(r -> r)
                    .orElse(Verdict.ALLOW);
        }
        if (verdict == Verdict.ALLOW) {
            shareableByShape = ShapeSharing.shareable(statement, catalog);
        }
        return verdict;
    }

    /**
     * Resolves a name as the session would (its search_path and role), for the gates: the OID, or 0 when no object
     * has that name. The name's bytes are in the server's encoding, as the statement's tree holds them.
     */
    private long resolveName(ObjectKind kind, byte[] name) throws SQLException {
        if (failsOnlyWhenFound(kind, name)) {
            return UNRESOLVED_NAME;
        }
        if (!sessionPath) {
            settings(sessionSettings());
            sessionPath = true;
        }
        // Before PostgreSQL 16 the to_reg* functions raise a syntax error for a text that is no name at all, such as
        // '99999', which the reg* input reads as an OID: such a text names nothing, and the check carries on.
        String text = "pg_catalog.convert_from(?, pg_catalog.getdatabaseencoding())";
        String resolved = kind.resolvedByCast() ? "(" + text + ")::pg_catalog." + kind.resolver()
                : "pg_catalog." + kind.resolver() + "(" + text + ")";
        try (PreparedStatement ps = connection.prepareStatement("SAVEPOINT " + RESOLVE_SAVEPOINT
                + "; SELECT " + resolved + "::pg_catalog.oid; RELEASE SAVEPOINT " + RESOLVE_SAVEPOINT)) {
            ps.setBytes(1, name);
            ps.execute();
            if (!ps.getMoreResults()) {
                throw new SQLException("the resolved name was not returned");
            }
            try (ResultSet rs = ps.getResultSet()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        } catch (PSQLException e) {
            // A cast fails for a name nothing has, with the error of an absent object or schema.
            boolean absent = kind.resolvedByCast() && e.getServerErrorMessage() != null
                    && (ObjectKind.NAMESPACE.sqlState().equals(e.getSQLState())
                    || kind.sqlState().equals(e.getSQLState()));
            // Before PostgreSQL 16 a text that is no name at all ('a b': "invalid name syntax") fails to_regclass
            // and the others too: it names nothing.
            boolean noName = e.getServerErrorMessage() != null && (SqlStates.SYNTAX_ERROR.equals(e.getSQLState())
                    || INVALID_NAME.equals(e.getSQLState()));
            if (!absent && !noName) {
                throw e;
            }
            try (Statement s = connection.createStatement()) {
                s.execute("ROLLBACK TO SAVEPOINT " + RESOLVE_SAVEPOINT);
            }
            return absent ? 0 : UNRESOLVED_NAME;
        }
    }

    private static final String RESOLVE_SAVEPOINT = "pgward_resolve";
    private static final String INVALID_NAME = "42602";

    /** Not an OID: the name is not looked up, and a call of it stays unproven. */
    private static final long UNRESOLVED_NAME = -1;

    /**
     * Whether resolving {@code name} could fail after the lookup found a type, where an absent name gives NULL: a
     * type modifier (to_regtype's, or one inside an argument list of to_regprocedure and to_regoperator) is checked
     * against the type found, and {@code %TYPE} reads a relation's column. Such a name is never looked up: its call
     * is refused whatever it names, so the refusal tells nothing.
     */
    static boolean failsOnlyWhenFound(ObjectKind kind, byte[] name) {
        int parentheses = 0;
        for (byte b : name) {
            if (b == '%') {
                return true;
            }
            if (b == '(') {
                parentheses++;
            }
        }
        boolean argumentList = kind == ObjectKind.FUNCTION || kind == ObjectKind.OPERATOR;
        return parentheses > (argumentList ? 1 : 0);
    }

    /**
     * The code rules for the statement's own code first, then for each definition it reaches; a refusal for code
     * found only in a definition says where it was found, since the user never wrote it.
     */
    private Optional<Verdict.Refuse> codeRules(References statement, List<ReachedDefinition> definitions,
                                               TableSelection selection, GatedUses gates) throws SQLException {
        // Without catalog filters a selection login has no visible schemas to answer with: every call is refused.
        SchemaPathProof schemaPath = selection.isSet() && gates != null
                ? new SchemaPathProof(connection, selection.filters().visible(), request.searchPath()) : null;
        CodeRules rules = new CodeRules(catalog, selection.isSet(), gates, schemaPath);
        Optional<Verdict.Refuse> refusal = rules.check(statement);
        if (refusal.isPresent()) {
            // The statement's own call, not one in a view or policy it reaches, is what the serving rewrite replaces.
            return schemaPath == null ? refusal : Optional.of(schemaPath.serving(refusal.get()));
        }
        Map<Long, CatalogReader.Relation> read = catalog.relations(
                definitions.stream().map(ReachedDefinition::read).distinct().toList());
        for (ReachedDefinition d : definitions) {
            refusal = rules.check(d.code());
            if (refusal.isPresent()) {
                CatalogReader.Relation through = read.get(d.read());
                String readName = through == null ? d.definedOn() : through.name();
                if (selection.isSet() && d.relation() != d.read() && !selection.selects(d.relation())) {
                    // The view or table it reaches is hidden, and so is what its definition uses.
                    return Optional.of(CatalogRefusals.inHiddenDefinition(refusal.get(), readName));
                }
                return Optional.of(CatalogRefusals.inDefinition(refusal.get(), readName, d.definedOn(),
                        d.policy()));
            }
        }
        return Optional.empty();
    }

    /** Whether the walk left a covered catalog among the relations read, i.e. outside a proven filter. */
    private static boolean readsCoveredCatalog(References statement, CatalogFilters filters) {
        return !filters.isEmpty() && statement.relations.stream().anyMatch(oid -> filters.byRelid(oid) != null);
    }

    /** The relations whose row types (or arrays or domains of them) the statement uses. */
    private Set<Long> rowTypeRelations(Set<Long> types) throws SQLException {
        Set<Long> relations = new LinkedHashSet<>();
        Set<Long> seen = new LinkedHashSet<>();
        List<Long> work = new ArrayList<>(types);
        while (!work.isEmpty()) {
            List<Long> batch = work.stream().filter(seen::add).toList();
            work = new ArrayList<>();
            Map<Long, CatalogReader.Type> rows = catalog.types(batch);
            for (long oid : batch) {
                CatalogReader.Type t = rows.get(oid);
                if (t == null) {
                    throw new NodeTreeException("type " + oid + " is not in the catalog");
                }
                if (t.relation() != 0) {
                    relations.add(t.relation());
                }
                if (t.element() != 0) {
                    work.add(t.element());
                }
                if (t.base() != 0) {
                    work.add(t.base());
                }
            }
        }
        return relations;
    }

    /**
     * Adds to {@code code} what runs when {@code relations} are read: the definitions of views and materialized
     * views, and row-security policy expressions, following the relations those read in turn. The relations they
     * read are not held to the selection: selecting a view grants what the view reads. Returns every relation
     * visited, {@code relations} included.
     */
    private Set<Long> reachedCode(Set<Long> relations, References code, List<ReachedDefinition> definitionsRead)
            throws SQLException {
        Set<Long> seen = new LinkedHashSet<>();
        List<Long> work = new ArrayList<>(relations);
        // The relation the statement itself reads through which each relation was reached.
        Map<Long, Long> origin = new HashMap<>();
        relations.forEach(oid -> origin.put(oid, oid));
        while (!work.isEmpty()) {
            List<Long> batch = work.stream().filter(seen::add).toList();
            work = new ArrayList<>();
            if (batch.isEmpty()) {
                break;
            }
            Map<Long, CatalogReader.Relation> rows = catalog.relations(batch);
            List<Long> views = batch.stream().filter(oid -> rows.containsKey(oid)
                    && (rows.get(oid).kind() == 'v' || rows.get(oid).kind() == 'm')).toList();
            List<Long> secured = batch.stream().filter(oid -> rows.containsKey(oid) && rows.get(oid).rowSecurity())
                    .toList();
            List<CatalogReader.Definition> definitions = new ArrayList<>(catalog.viewDefinitions(views));
            int viewCount = definitions.size();
            definitions.addAll(catalog.policyExpressions(secured));
            for (int i = 0; i < definitions.size(); i++) {
                CatalogReader.Definition d = definitions.get(i);
                TreeValue tree = i < viewCount ? shared.viewTree(d) : NodeTreeParser.parse(d.tree());
                References refs = QueryTreeWalker.walk(tree, Set.of(d.relation()));
                code.functions.addAll(refs.functions);
                code.operators.addAll(refs.operators);
                code.types.addAll(refs.types);
                code.directConstArguments.addAll(refs.directConstArguments);
                code.calls.addAll(refs.calls);
                code.otherFunctionUses.addAll(refs.otherFunctionUses);
                long read = origin.getOrDefault(d.relation(), d.relation());
                CatalogReader.Relation definedOn = rows.get(d.relation());
                ReachedDefinition.Kind kind = i >= viewCount ? ReachedDefinition.Kind.POLICY
                        : definedOn.kind() == 'm' ? ReachedDefinition.Kind.MATERIALIZED_VIEW
                        : ReachedDefinition.Kind.VIEW;
                definitionsRead.add(new ReachedDefinition(read, d.relation(), definedOn.name(), kind, refs));
                refs.relations.forEach(oid -> origin.putIfAbsent(oid, read));
                work.addAll(refs.relations);
            }
        }
        return seen;
    }
}
