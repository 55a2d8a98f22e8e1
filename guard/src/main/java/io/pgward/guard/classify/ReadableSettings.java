package io.pgward.guard.classify;

import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.Token;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The settings a read-only login may read by name: those SHOW may show ({@link SessionCommands#SHOWABLE}), whichever
 * way the name reaches the server. {@code current_setting('port')} and {@code pg_settings_get_flags('port')} read the
 * setting SHOW port is refused, so they get SHOW's refusal, for every read-only login as SHOW does.
 *
 * <p>L2 sees only tokens: a call whose first argument is one string literal is judged here; any other argument (a
 * column, a bound parameter, an expression) names a setting only when the statement runs. With a table selection
 * and the catalog check behind L2 ({@link ReadOnlyPolicy.CatalogFunctions#GATED}) such a call is left to the check,
 * which proves a column of the filtered pg_settings or refuses; every other login gets the refusal here, since
 * nothing proves the name.
 */
public final class ReadableSettings {

    /** The built-in functions whose first argument is a setting's name (set_config is denied outright). */
    public static final Set<String> FUNCTIONS = Set.of("current_setting", "pg_settings_get_flags");

    private ReadableSettings() {
    }

    /** Whether SHOW of {@code name} is allowed; PostgreSQL looks setting names up without case. */
    public static boolean readable(String name) {
        return SessionCommands.SHOWABLE.contains(name.toLowerCase(Locale.ROOT));
    }

    /**
     * The refusal of the call of a {@link #FUNCTIONS} function named at {@code tokens[at]} (an opening parenthesis
     * follows), or null when its setting is readable or the catalog check will judge it.
     */
    static Verdict.Refuse check(List<Token> tokens, int at, ReadOnlyPolicy policy) {
        Token function = tokens.get(at);
        Token argument = at + 2 < tokens.size() ? tokens.get(at + 2) : null;
        Token after = at + 3 < tokens.size() ? tokens.get(at + 3) : null;
        boolean constant = argument != null && argument.kind() == Token.Kind.STRING
                && (TokenReader.isSymbol(after, ")") || TokenReader.isSymbol(after, ","));
        if (constant) {
            return readable(argument.value()) ? null : Refusals.notAllowed(Refusals.SESSION_SETTING,
                    function.value() + "('" + argument.value().replace("'", "''") + "')", policy, function);
        }
        return policy.catalogFunctions() == ReadOnlyPolicy.CatalogFunctions.GATED ? null
                : Refusals.notAllowed(Refusals.SESSION_SETTING, function.value()
                        + "() of a name that is not a constant", policy, function);
    }
}
