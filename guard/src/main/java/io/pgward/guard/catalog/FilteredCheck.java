package io.pgward.guard.catalog;

import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Decides how a statement of a login with catalog filters is served ({@link CatalogCheck#serve}): a query is
 * rewritten ({@link CatalogRewrite}) without the fence and checked by L3; when L3 answers that a condition needs the
 * fence ({@link CatalogRefusals#FENCE_NEEDED}), it is rewritten fenced and checked again; when L3 refuses the
 * rewrite otherwise, the client's own text is checked and its verdict is the answer. Every check goes through the
 * verdict cache, and the outcome is cached by the caller, so this runs once per text and schema.
 */
final class FilteredCheck {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(FilteredCheck.class);

    private FilteredCheck() {
    }

    static CompletableFuture<Served> serve(CatalogCheck check, CheckRequest request, StatementText statement) {
        return filtered(check, request, statement).thenApply(served ->
                new Served(served.text(), CatalogRefusals.published(served.verdict())));
    }

    private static CompletableFuture<Served> filtered(CatalogCheck check, CheckRequest request,
                                                      StatementText statement) {
        CatalogFilters filters = request.selection().filters();
        ViewFilters views = request.selection().views();
        if (filters.isEmpty() && views.isEmpty() || !rewritable(statement)) {
            return check.raw(request, statement).toCompletableFuture()
                    .thenApply(verdict -> new Served(request.sql(), verdict));
        }
        check.countRewrite();
        String unfenced = CatalogRewrite.rewrite(statement, request.searchPath(), filters, views, false);
        if (unfenced.equals(statement.text())) {
            return own(check, request, statement);
        }
        // Unfenced first: most catalog statements have only quiet conditions, and the fence costs them up to tens
        // of times their time. L3 says when a condition needs it.
        return answered(check, request.withSql(unfenced), null, 0).thenCompose(served -> {
            if (!(served.verdict() instanceof Verdict.Refuse refuse)) {
                return CompletableFuture.completedFuture(served);
            }
            if (!refuse.rule().equals(CatalogRefusals.FENCE_NEEDED)) {
                log.debug("the filtered statement was refused ({}): {}", refuse.rule(), refuse.message());
                return ownOrReason(check, request, statement, refuse);
            }
            String fenced = CatalogRewrite.rewrite(statement, request.searchPath(), filters, views, true);
            return answered(check, request.withSql(fenced), null, 0).thenCompose(again ->
                    again.verdict() instanceof Verdict.Refuse r && logged(r)
                            ? ownOrReason(check, request, statement, r)
                            : CompletableFuture.completedFuture(again));
        });
    }

    /**
     * The text with the unproven relation arguments of the function a refusal names wrapped in the visible set
     * ({@link ListedArguments#wrapAll}), for a function that answers NULL for an OID nothing has; null otherwise.
     */
    private static String listedArguments(CheckRequest request, Verdict.Refuse refused) {
        for (String function : GatedFunctions.NULL_FOR_ABSENT_RELATIONS) {
            if (refused.message().startsWith(CatalogRefusals.deniedBuiltIn(function).message())) {
                return ListedArguments.wrapAll(request.sql(), request.standardConformingStrings(), function,
                        request.selection().filters().visible());
            }
        }
        return null;
    }

    /** How many to_reg* names one statement may have answered NULL ({@link NullNames}); beyond, it is refused. */
    private static final int MAX_NULL_NAMES = 8;

    /**
     * The check's verdict on {@code request}, and the text it holds for: where L3 answers that a to_reg* call names
     * what the login does not see ({@link CatalogRefusals#nullName}), the call's name is replaced by a NULL
     * ({@link NullNames}) and the new text checked again; where it answers that the statement calls current_schema
     * or current_schemas ({@link CatalogRefusals#schemaPath}), the calls are replaced by subqueries that keep the
     * schemas the login sees ({@link SchemaPathCalls}) and the new text checked again.
     */
    private static CompletableFuture<Served> answered(CatalogCheck check, CheckRequest request,
                                                      StatementText statement, int nulled) {
        return answered(check, request, statement, nulled, false);
    }

    /** @param pathsKept the text is already the schema path rewrite's, which is not applied twice */
    private static CompletableFuture<Served> answered(CatalogCheck check, CheckRequest request,
                                                      StatementText statement, int nulled, boolean pathsKept) {
        return check.raw(request, statement).toCompletableFuture().thenCompose(verdict -> {
            if (verdict instanceof Verdict.Refuse r && r.rule().equals(CatalogRefusals.NULL_NAME)
                    && nulled < MAX_NULL_NAMES) {
                String[] call = CatalogRefusals.nullNameCall(r);
                String replaced = NullNames.replace(request.sql(), request.standardConformingStrings(), call[0],
                        call[1]);
                if (replaced != null) {
                    return answered(check, request.withSql(replaced), null, nulled + 1, pathsKept);
                }
            }
            if (verdict instanceof Verdict.Refuse r && r.rule().equals(CatalogRefusals.SCHEMA_PATH) && !pathsKept) {
                String kept = SchemaPathCalls.rewrite(request.sql(), request.standardConformingStrings(), r.detail());
                if (kept != null) {
                    // Once: what is refused again (a call the rewrite did not reach, another rule) keeps this
                    // refusal, whose text names what the client wrote; a fence needed is fenced by serve.
                    return answered(check, request.withSql(kept), null, nulled, true).thenApply(again ->
                            again.verdict() instanceof Verdict.Refuse a
                                    && !a.rule().equals(CatalogRefusals.FENCE_NEEDED)
                                    ? new Served(request.sql(), verdict) : again);
                }
            }
            String listed = verdict instanceof Verdict.Refuse r && r.rule().equals(CatalogRefusals.DENIED_BUILT_IN)
                    && nulled < MAX_NULL_NAMES ? listedArguments(request, r) : null;
            if (listed != null) {
                // Kept when allowed, or when it needs the fence (serve then fences and wraps again); otherwise the
                // refusal of the statement as it was stands.
                return answered(check, request.withSql(listed), null, nulled + 1, pathsKept).thenApply(again ->
                        again.verdict() instanceof Verdict.Refuse r && !r.rule().equals(CatalogRefusals.FENCE_NEEDED)
                                ? new Served(request.sql(), verdict) : again);
            }
            return CompletableFuture.completedFuture(new Served(request.sql(), verdict));
        });
    }

    /**
     * The rules whose refusal of a rewritten statement speaks of what the client wrote: a relation it reads that no
     * filter covers, a function, operator or type it uses, an object it names that is hidden. The client's own text
     * would be refused for reading the covered catalogs, which is not the reason. PostgreSQL's own errors about the
     * rewritten text (positions and fragments of pgward's subqueries) are not among them.
     */
    private static final Set<String> SPEAKS_OF_THE_CLIENTS_TEXT = Set.of(CatalogRefusals.RELATION,
            CatalogRefusals.FUNCTION, CatalogRefusals.OPERATOR, CatalogRefusals.TYPE,
            CatalogRefusals.OBJECT_IDENTIFIER_TYPE, CatalogRefusals.DENIED_BUILT_IN, CatalogRefusals.RISKY_DOMAIN,
            CatalogRefusals.ABSENT_OBJECT, CatalogRefusals.NULL_NAME, CatalogRefusals.SCHEMA_PATH);

    /**
     * The client's own text got the error the rewrite got for a hidden object, with its position in the client's
     * text, which the rewrite's lacks.
     */
    private static boolean sameAbsentObject(Verdict.Refuse own, Verdict.Refuse rewritten) {
        return own.rule().equals(CatalogRefusals.ABSENT_OBJECT) && rewritten.rule().equals(own.rule())
                && own.sqlState().equals(rewritten.sqlState()) && own.message().equals(rewritten.message());
    }

    /**
     * Refused after the rewrite: when the client's own text is refused too, the client gets the rewrite's reason
     * where it names what the client wrote (without a position: it points into the rewritten text), and its own
     * text's verdict otherwise.
     */
    private static CompletableFuture<Served> ownOrReason(CatalogCheck check, CheckRequest request,
                                                         StatementText statement, Verdict.Refuse rewritten) {
        return own(check, request, statement).thenApply(served ->
                served.verdict() instanceof Verdict.Refuse own && SPEAKS_OF_THE_CLIENTS_TEXT.contains(rewritten.rule())
                        && !sameAbsentObject(own, rewritten)
                        ? new Served(served.text(), new Verdict.Refuse(rewritten.sqlState(), rewritten.message(), 0,
                                rewritten.rule(), rewritten.detail(), rewritten.hint()))
                        : served);
    }

    private static boolean logged(Verdict.Refuse refuse) {
        log.debug("the fenced statement was refused ({}): {}", refuse.rule(), refuse.message());
        return true;
    }

    private static CompletableFuture<Served> own(CatalogCheck check, CheckRequest request, StatementText statement) {
        return answered(check, request, statement, 0);
    }

    /**
     * Whether {@link #serve} serves this statement rewritten with the selection's catalog filters rather than as
     * written (unfenced first, as it tries).
     */
    static boolean rewrites(CheckRequest request, StatementText statement) {
        TableSelection selection = request.selection();
        return rewritable(statement) && !CatalogRewrite.rewrite(statement, request.searchPath(), selection.filters(),
                selection.views(), false).equals(statement.text());
    }

    /**
     * Statements the rewrite is applied to: queries (SELECT, WITH, a parenthesised SELECT). EXPLAIN is not: its
     * estimates for a filtered catalog scan follow the size of the whole catalog; it stays refused as before, as do
     * COPY and DECLARE over the catalogs.
     */
    static boolean rewritable(StatementText statement) {
        Token first = statement.tokens().getFirst();
        return first.isWord("select") || first.isWord("with")
                || first.kind() == Token.Kind.PUNCTUATION && first.text().equals("(");
    }
}
