package io.pgward.guard.policy;

import io.pgward.guard.ReadOnlyGuard;
import io.pgward.guard.ShapeTemplate;
import io.pgward.guard.catalog.CatalogCheck;
import io.pgward.guard.catalog.CheckRequest;
import io.pgward.guard.catalog.TableSelection;
import io.pgward.guard.classify.ReadOnlyPolicy;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a session keeps of one text that every layer allowed as it is (no rewrite, no change to the session's state),
 * to allow a text of the same shape ({@link ShapeTemplate#matches}) without lexing it: the keys under which L1 and L3
 * share that allow, and everything else they depend on. {@link #allows} answers from those keys in the caches, never
 * from this object alone. Immutable; opaque outside the pipeline ({@link GuardPipeline#sameShape}).
 */
public final class SameShape {

    /** The text and what it was judged with. */
    record Context(LoginPolicy login, String database, String sql, boolean standardConformingStrings,
                   String searchPath, List<Integer> parameterTypes, boolean simpleQuery) {

        Context {
            parameterTypes = List.copyOf(parameterTypes);
        }
    }

    private final ShapeTemplate template;
    private final Context context;
    private final ReadOnlyPolicy policy;
    /** The login's guard when the template was made; null without a catalog layer. */
    private final LoginGuard loginGuard;
    /** The selection L3 proved the text against; null without a catalog layer. */
    private final TableSelection selection;
    /** One key per statement of the text, in order; empty without a catalog layer. */
    private final List<CatalogCheck.SharedShape> shared;

    private SameShape(ShapeTemplate template, Context context, ReadOnlyPolicy policy, LoginGuard loginGuard,
                      TableSelection selection, List<CatalogCheck.SharedShape> shared) {
        this.template = template;
        this.context = context;
        this.policy = policy;
        this.loginGuard = loginGuard;
        this.selection = selection;
        this.shared = List.copyOf(shared);
    }

    /**
     * The template of a text just allowed, or null when the text has no shape or a layer does not share its allow by
     * shape now.
     *
     * @param loginGuard the login's guard, null without a catalog layer
     */
    static SameShape of(ReadOnlyGuard guard, ReadOnlyPolicy policy, LoginGuard loginGuard, Context context) {
        List<StatementText> statements;
        try {
            statements = SqlLexer.split(context.sql(), context.standardConformingStrings());
        } catch (LexerException e) {
            return null;
        }
        ShapeTemplate template = ShapeTemplate.of(context.sql(), statements, context.standardConformingStrings());
        if (template == null || !guard.allowsShape(template.shapeKey(), context.standardConformingStrings(), policy)) {
            return null;
        }
        if (loginGuard == null) {
            return new SameShape(template, context, policy, null, null, List.of());
        }
        TableSelection selection = loginGuard.selectionNow();
        if (selection == null || context.searchPath() == null) {
            return null;
        }
        List<CatalogCheck.SharedShape> shared = new ArrayList<>(statements.size());
        for (StatementText statement : statements) {
            CatalogCheck.SharedShape key = loginGuard.check().sharedShape(new CheckRequest(selection, null,
                    context.searchPath(), context.standardConformingStrings(), statement.text(),
                    context.parameterTypes(), context.simpleQuery()), statement);
            if (key == null || !loginGuard.check().shared(key)) {
                return null;
            }
            shared.add(key);
        }
        return new SameShape(template, context, policy, loginGuard, selection, shared);
    }

    LoginPolicy login() {
        return context.login();
    }

    String database() {
        return context.database();
    }

    /**
     * Whether {@code sql} is the kept text with new constant values, in the same context, and every layer still
     * shares the allow: L1's allowed shapes, and L3's shared allows with the same login guard ({@code current}, the
     * login's guard now) and the same selection.
     */
    boolean allows(ReadOnlyGuard guard, LoginGuard current, String sql, boolean standardConformingStrings,
                   String searchPath, List<Integer> parameterTypes, boolean simpleQuery) {
        if (context.simpleQuery() != simpleQuery || !context.parameterTypes().equals(parameterTypes)
                || !Objects.equals(context.searchPath(), searchPath)
                || !template.matches(sql, standardConformingStrings)
                || !guard.allowsShape(template.shapeKey(), standardConformingStrings, policy)) {
            return false;
        }
        if (loginGuard == null) {
            return current == null;
        }
        if (current != loginGuard || loginGuard.selectionNow() != selection) {
            return false;
        }
        for (CatalogCheck.SharedShape key : shared) {
            if (!loginGuard.check().shared(key)) {
                return false;
            }
        }
        shared.forEach(key -> loginGuard.check().answeredByShape());
        return true;
    }
}
