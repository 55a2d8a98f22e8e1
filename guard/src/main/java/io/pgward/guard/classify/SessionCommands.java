package io.pgward.guard.classify;

import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.Token;
import io.pgward.guard.lexer.Token.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * SET, RESET, SHOW and transaction control, decided from the tokens alone (JSqlParser does not model them the way
 * PostgreSQL's grammar does, and they carry no query).
 *
 * <p>What a read-only login may change is an allow-list of client settings; every way to make the session or a
 * transaction read-write is refused: SET / RESET of {@code transaction_read_only} or
 * {@code default_transaction_read_only} to anything but on, {@code SET SESSION CHARACTERISTICS AS TRANSACTION READ
 * WRITE}, {@code BEGIN / START TRANSACTION / SET TRANSACTION ... READ WRITE}, SET ROLE and SET SESSION
 * AUTHORIZATION (and their RESET).
 *
 * <p>{@code RESET ALL}, {@code RESET statement_timeout} and {@code DISCARD ALL} are allowed: they return settings to
 * the session defaults, and pgward starts every read-only backend session with {@code default_transaction_read_only}
 * (and the login's statement timeout, and with a table selection {@code client_min_messages}) as startup
 * parameters, which are those defaults. {@code transaction_read_only} is never touched by RESET ALL.
 */
final class SessionCommands {

    /** Settings a client may SET or RESET; the ones in {@link #CHECKED_VALUE} only to the values checked below. */
    static final Set<String> SETTABLE = Set.of(
            "application_name", "client_encoding", "datestyle", "intervalstyle", "timezone", "extra_float_digits",
            "search_path", "bytea_output", "lock_timeout", "statement_timeout", "client_min_messages",
            "standard_conforming_strings", "transaction_isolation", "default_transaction_isolation",
            "transaction_deferrable", "default_transaction_deferrable", "transaction_read_only",
            "default_transaction_read_only", "lc_monetary", "lc_numeric", "lc_time");

    /**
     * Settings whose value is checked. {@code client_encoding} only to UTF8: the lexer reads UTF-8, and in client
     * encodings that are not ASCII-safe (SJIS, BIG5, GBK, GB18030, UHC) a quote or backslash byte can hide inside
     * a multibyte character, so pgward and PostgreSQL would split the text differently.
     * {@code standard_conforming_strings} only on, for the same reason: off changes what a backslash means.
     */
    static final Set<String> CHECKED_VALUE = Set.of("statement_timeout", "transaction_read_only",
            "default_transaction_read_only", "client_encoding", "standard_conforming_strings", "client_min_messages");

    /**
     * The {@code client_min_messages} levels a login with a table selection may choose. LOG and DEBUG messages are
     * the server log's, and some describe what a statement read: auto_explain, where the server loads it, logs each
     * plan at LOG, views' definitions and hidden relations included. (INFO messages reach the client at every level,
     * so info keeps out what notice does.) The session's own default could be lower (the backend role's or the
     * database's settings), so such a login's backend session starts at notice and RESET returns there.
     */
    static final Set<String> SELECTION_MESSAGE_LEVELS = Set.of("info", "notice", "warning", "error");

    /** RESET of these would turn read-only off (or bring back a setting the policy controls). */
    private static final Set<String> NOT_RESETTABLE = Set.of("transaction_read_only", "default_transaction_read_only");

    /** Harmless settings drivers and GUI clients read. SHOW ALL is refused. */
    static final Set<String> SHOWABLE = Set.of(
            "server_version", "server_version_num", "server_encoding", "client_encoding", "datestyle",
            "intervalstyle", "timezone", "search_path", "standard_conforming_strings", "integer_datetimes",
            "application_name", "transaction_isolation", "default_transaction_isolation", "transaction_read_only",
            "default_transaction_read_only", "transaction_deferrable", "statement_timeout", "lock_timeout",
            "extra_float_digits", "bytea_output", "max_identifier_length", "client_min_messages", "lc_collate",
            "lc_ctype", "lc_messages", "lc_monetary", "lc_numeric", "lc_time", "in_hot_standby", "work_mem", "role");

    private static final Set<String> UTF8_NAMES = Set.of("utf8", "unicode");

    private SessionCommands() {
    }

    // ---------------------------------------------------------------------------------------------------------
    // SET / RESET / SHOW

    /** {@code SET [SESSION | LOCAL] ...}. */
    static Verdict set(List<Token> tokens, ReadOnlyPolicy policy) {
        TokenReader r = new TokenReader(tokens, 1);
        Token start = tokens.get(0);
        if (!r.acceptWord("local")) {
            // SET SESSION SESSION AUTHORIZATION is valid; SET SESSION CHARACTERISTICS is its own statement.
            if (r.peekWord("session") && !(r.peek(1) != null
                    && (r.peek(1).isWord("authorization") || r.peek(1).isWord("characteristics")))) {
                r.next();
            }
        }
        if (r.acceptWord("role")) {
            return refuseSetting("SET ROLE", policy, start);
        }
        if (r.acceptWords("session", "authorization")) {
            return refuseSetting("SET SESSION AUTHORIZATION", policy, start);
        }
        if (r.acceptWords("session", "characteristics", "as", "transaction")) {
            return transactionModes(r, "SET SESSION CHARACTERISTICS AS TRANSACTION", policy, start);
        }
        if (r.acceptWord("transaction")) {
            if (r.peekWord("snapshot")) {
                return refuseSetting("SET TRANSACTION SNAPSHOT", policy, start);
            }
            return transactionModes(r, "SET TRANSACTION", policy, start);
        }
        if (r.acceptWords("time", "zone")) {
            // SET TIME ZONE takes a zone, LOCAL, DEFAULT or an INTERVAL literal: none of them can hurt.
            return r.atEnd() ? Refusals.unparseable("SET TIME ZONE without a value", start) : Verdict.ALLOW;
        }
        if (r.acceptWords("xml", "option")) {
            // How XML text is parsed and serialised: DOCUMENT or CONTENT.
            return (r.acceptWord("document") || r.acceptWord("content")) && r.atEnd() ? Verdict.ALLOW
                    : Refusals.unparseable("SET XML OPTION takes DOCUMENT or CONTENT", start);
        }
        if (r.acceptWord("constraints")) {
            return constraints(r, start);
        }
        String name;
        if (r.acceptWord("schema")) {
            name = "search_path";
        } else if (r.acceptWord("names")) {
            name = "client_encoding";
            if (r.atEnd()) {
                return Verdict.ALLOW;   // SET NAMES alone means the default encoding
            }
        } else {
            name = r.settingName();
            if (name == null) {
                return Refusals.unparseable("SET without a setting name", start);
            }
            if (name.equals("time")) {
                return Refusals.unparseable("SET TIME without ZONE", start);
            }
            if (!r.acceptWord("to") && !r.acceptSymbol("=")) {
                return r.acceptWords("from", "current")
                        ? refuseSetting("SET " + name + " FROM CURRENT", policy, start)
                        : Refusals.unparseable("SET " + name + " without TO or =", start);
            }
        }
        if (!SETTABLE.contains(name)) {
            return refuseSetting("SET " + name, policy, start);
        }
        if (r.atEnd()) {
            return Refusals.unparseable("SET " + name + " without a value", start);
        }
        if (r.peekWord("default") && r.peek(1) == null) {
            if (name.equals("default_transaction_read_only")) {
                // The default is the session's reset value, which is the startup parameter pgward gave the
                // backend session (on); RESET of it stays refused as the corpus decides (tx-11).
                return Verdict.ALLOW;
            }
            return reset(name, "SET " + name + " TO DEFAULT", policy, start);
        }
        List<String> values = new ArrayList<>();
        while (true) {
            String sign = "";
            if (r.peek() != null && r.peek().kind() == Kind.OPERATOR
                    && (r.peek().text().equals("-") || r.peek().text().equals("+"))) {
                sign = r.next().text().equals("-") ? "-" : "";
            }
            Token v = r.next();
            if (v == null || !(v.kind() == Kind.WORD || v.kind() == Kind.STRING || v.kind() == Kind.NUMBER
                    || v.kind() == Kind.QUOTED_IDENTIFIER) || (!sign.isEmpty() && v.kind() != Kind.NUMBER)) {
                return Refusals.unparseable("SET " + name + " with a value that is not a name, string or number",
                        v == null ? start : v);
            }
            values.add(sign + (v.kind() == Kind.NUMBER ? v.text() : v.value()));
            if (r.atEnd()) {
                break;
            }
            if (!r.acceptSymbol(",")) {
                return Refusals.unparseable("unexpected " + r.peek().text() + " after the value of SET " + name,
                        r.peek());
            }
        }
        return checkValue(name, values, policy, start);
    }

    /**
     * {@code SET CONSTRAINTS ALL | name [, ...] DEFERRED | IMMEDIATE}: when the current transaction checks deferrable
     * constraints. A read-only transaction changes no row, so there is nothing to check.
     */
    private static Verdict constraints(TokenReader r, Token start) {
        if (!r.acceptWord("all")) {
            do {
                Token name = r.next();
                if (TokenReader.identifier(name) == null) {
                    return Refusals.unparseable("SET CONSTRAINTS without a constraint name", name == null ? start
                            : name);
                }
                while (r.acceptSymbol(".")) {
                    if (TokenReader.identifier(r.next()) == null) {
                        return Refusals.unparseable("SET CONSTRAINTS with a malformed name", start);
                    }
                }
            } while (r.acceptSymbol(","));
        }
        return (r.acceptWord("deferred") || r.acceptWord("immediate")) && r.atEnd() ? Verdict.ALLOW
                : Refusals.unparseable("SET CONSTRAINTS takes DEFERRED or IMMEDIATE", start);
    }

    private static Verdict checkValue(String name, List<String> values, ReadOnlyPolicy policy, Token start) {
        if (!CHECKED_VALUE.contains(name)) {
            return Verdict.ALLOW;
        }
        if (values.size() != 1) {
            return Refusals.unparseable("SET " + name + " takes one value", start);
        }
        String value = values.get(0);
        return switch (name) {
            case "transaction_read_only", "default_transaction_read_only" ->
                    Boolean.TRUE.equals(SettingValues.parseBool(value)) ? Verdict.ALLOW
                            : refuse(Refusals.READ_WRITE, "SET " + name + " to " + value, policy, start);
            case "standard_conforming_strings" ->
                    Boolean.TRUE.equals(SettingValues.parseBool(value)) ? Verdict.ALLOW
                            : refuseSetting("SET standard_conforming_strings to anything but on", policy, start);
            case "client_encoding" -> UTF8_NAMES.contains(SettingValues.encodingKey(value)) ? Verdict.ALLOW
                    : refuseSetting("SET client_encoding to anything but UTF8", policy, start);
            case "statement_timeout" -> statementTimeout(value, policy, start);
            case "client_min_messages" -> policy.catalogFunctions() == ReadOnlyPolicy.CatalogFunctions.UNRESTRICTED
                    || SELECTION_MESSAGE_LEVELS.contains(value.toLowerCase(Locale.ROOT)) ? Verdict.ALLOW
                    : refuseSetting("SET client_min_messages below NOTICE with a table selection", policy, start);
            default -> throw new IllegalStateException("no value check for " + name);
        };
    }

    private static Verdict statementTimeout(String value, ReadOnlyPolicy policy, Token start) {
        Long ms = SettingValues.parseMilliseconds(value);
        if (ms == null) {
            return Refusals.unparseable("SET statement_timeout to '" + value + "', which is not a time", start);
        }
        if (policy.statementTimeout() == null) {
            return Verdict.ALLOW;
        }
        long cap = policy.statementTimeout().toMillis();
        if (ms == 0) {
            return refuseSetting("SET statement_timeout to 0 (no limit)", policy, start);
        }
        if (ms > cap) {
            return refuseSetting("SET statement_timeout above the login's limit of "
                    + SettingValues.describeMilliseconds(cap), policy, start);
        }
        return Verdict.ALLOW;
    }

    /**
     * A setting given when the connection starts (a startup packet key, or {@code -c name=value} in
     * {@code options}), judged exactly as {@code SET name = 'value'}: the same allow-list, the same value rules.
     *
     * @param name the setting's name in lower case, as PostgreSQL compares setting names
     */
    static Verdict startupSetting(String name, String value, ReadOnlyPolicy policy) {
        if (!SETTABLE.contains(name)) {
            return refuseSetting("SET " + name, policy, null);
        }
        return checkValue(name, List.of(value), policy, null);
    }

    /** {@code RESET name | ALL | TIME ZONE | ROLE | SESSION AUTHORIZATION | TRANSACTION ISOLATION LEVEL}. */
    static Verdict reset(List<Token> tokens, ReadOnlyPolicy policy) {
        TokenReader r = new TokenReader(tokens, 1);
        Token start = tokens.get(0);
        String name;
        if (r.acceptWord("all")) {
            name = "all";
        } else if (r.acceptWords("time", "zone")) {
            name = "timezone";
        } else if (r.acceptWords("session", "authorization")) {
            return refuseSetting("RESET SESSION AUTHORIZATION", policy, start);
        } else if (r.acceptWords("transaction", "isolation", "level")) {
            name = "transaction_isolation";
        } else {
            name = r.settingName();
            if (name == null) {
                return Refusals.unparseable("RESET without a setting name", start);
            }
        }
        if (!r.atEnd()) {
            return Refusals.unparseable("unexpected " + r.peek().text() + " after RESET " + name, r.peek());
        }
        if (name.equals("all")) {
            return Verdict.ALLOW;
        }
        if (name.equals("role")) {
            return refuseSetting("RESET ROLE", policy, start);
        }
        return reset(name, "RESET " + name, policy, start);
    }

    private static Verdict reset(String name, String what, ReadOnlyPolicy policy, Token start) {
        if (NOT_RESETTABLE.contains(name)) {
            return refuse(Refusals.READ_WRITE, what, policy, start);
        }
        return SETTABLE.contains(name) ? Verdict.ALLOW : refuseSetting(what, policy, start);
    }

    /** {@code SHOW name | ALL | TIME ZONE | TRANSACTION ISOLATION LEVEL | SESSION AUTHORIZATION}. */
    static Verdict show(List<Token> tokens, ReadOnlyPolicy policy) {
        TokenReader r = new TokenReader(tokens, 1);
        Token start = tokens.get(0);
        String name;
        if (r.acceptWords("time", "zone")) {
            name = "timezone";
        } else if (r.acceptWords("transaction", "isolation", "level")) {
            name = "transaction_isolation";
        } else if (r.acceptWords("session", "authorization")) {
            name = "session_authorization";
        } else if (r.acceptWord("all")) {
            name = "ALL";
        } else {
            name = r.settingName();
            if (name == null) {
                return Refusals.unparseable("SHOW without a setting name", start);
            }
        }
        if (!r.atEnd()) {
            return Refusals.unparseable("unexpected " + r.peek().text() + " after SHOW " + name, r.peek());
        }
        return SHOWABLE.contains(name) ? Verdict.ALLOW : refuseSetting("SHOW " + name, policy, start);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Transaction control

    /** {@code BEGIN [WORK | TRANSACTION] [modes]} and {@code START TRANSACTION [modes]}. */
    static Verdict begin(List<Token> tokens, ReadOnlyPolicy policy) {
        TokenReader r = new TokenReader(tokens, 1);
        Token start = tokens.get(0);
        String what;
        if (start.isWord("start")) {
            if (!r.acceptWord("transaction")) {
                return Refusals.unparseable("START without TRANSACTION", start);
            }
            what = "START TRANSACTION";
        } else {
            if (!r.acceptWord("work")) {
                r.acceptWord("transaction");
            }
            what = "BEGIN";
        }
        return transactionModes(r, what, policy, start);
    }

    /**
     * Transaction modes, separated by commas or blanks: ISOLATION LEVEL ..., READ ONLY, [NOT] DEFERRABLE. READ WRITE
     * is refused.
     */
    private static Verdict transactionModes(TokenReader r, String what, ReadOnlyPolicy policy, Token start) {
        boolean any = false;
        while (!r.atEnd()) {
            if (any) {
                r.acceptSymbol(",");
            }
            Token mode = r.peek();
            if (r.acceptWords("isolation", "level")) {
                if (!(r.acceptWord("serializable") || r.acceptWords("repeatable", "read")
                        || r.acceptWords("read", "committed") || r.acceptWords("read", "uncommitted"))) {
                    return Refusals.unparseable("unknown isolation level in " + what, r.peek() == null ? mode : r.peek());
                }
            } else if (r.acceptWords("read", "only") || r.acceptWord("deferrable")
                    || r.acceptWords("not", "deferrable")) {
                // harmless
            } else if (r.acceptWords("read", "write")) {
                return refuse(Refusals.READ_WRITE, what + " READ WRITE", policy, mode);
            } else {
                return Refusals.unparseable("unexpected " + mode.text() + " in " + what, mode);
            }
            any = true;
        }
        if (what.startsWith("SET") && !any) {
            return Refusals.unparseable(what + " without a transaction mode", start);
        }
        return Verdict.ALLOW;
    }

    /**
     * {@code COMMIT | END [WORK | TRANSACTION] [AND [NO] CHAIN]}, {@code ROLLBACK | ABORT [WORK | TRANSACTION]
     * [AND [NO] CHAIN]} and {@code ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] name}. COMMIT / ROLLBACK PREPARED
     * (two-phase commit) is a statement kind of its own and refused. ROLLBACK AND CHAIN starts a transaction with
     * the characteristics of the one it ends, which was read-only (nothing can make a read-only login's
     * transaction read-write), so it is allowed; COMMIT AND CHAIN is refused as the corpus decides (tx-18).
     */
    static Verdict endTransaction(List<Token> tokens, ReadOnlyPolicy policy) {
        TokenReader r = new TokenReader(tokens, 1);
        Token start = tokens.get(0);
        String command = start.value().toUpperCase(java.util.Locale.ROOT);
        if ((start.isWord("commit") || start.isWord("rollback")) && r.peekWord("prepared")) {
            return refuse(Refusals.STATEMENT_KIND, command + " PREPARED", policy, start);
        }
        if (!r.acceptWord("work")) {
            r.acceptWord("transaction");
        }
        if ((start.isWord("rollback") || start.isWord("abort")) && r.acceptWord("to")) {
            r.acceptWord("savepoint");
            return oneName(r, command + " TO SAVEPOINT", start);
        }
        if (r.peekWord("and") && r.peek(1) != null && r.peek(1).isWord("chain")
                && !(start.isWord("rollback") || start.isWord("abort"))) {
            return refuse(Refusals.TRANSACTION_CONTROL, command + " AND CHAIN", policy, start);
        }
        r.acceptWords("and", "chain");
        r.acceptWords("and", "no", "chain");
        return r.atEnd() ? Verdict.ALLOW
                : Refusals.unparseable("unexpected " + r.peek().text() + " after " + command, r.peek());
    }

    /** {@code SAVEPOINT name} and {@code RELEASE [SAVEPOINT] name}. */
    static Verdict savepoint(List<Token> tokens) {
        TokenReader r = new TokenReader(tokens, 1);
        Token start = tokens.get(0);
        if (start.isWord("release")) {
            r.acceptWord("savepoint");
        }
        return oneName(r, start.value().toUpperCase(java.util.Locale.ROOT), start);
    }

    /** Exactly one identifier must follow. */
    static Verdict oneName(TokenReader r, String what, Token start) {
        Token name = r.next();
        if (TokenReader.identifier(name) == null) {
            return Refusals.unparseable(what + " without a name", name == null ? start : name);
        }
        return r.atEnd() ? Verdict.ALLOW
                : Refusals.unparseable("unexpected " + r.peek().text() + " after " + what, r.peek());
    }

    private static Verdict.Refuse refuseSetting(String what, ReadOnlyPolicy policy, Token at) {
        return refuse(Refusals.SESSION_SETTING, what, policy, at);
    }

    private static Verdict.Refuse refuse(String rule, String what, ReadOnlyPolicy policy, Token at) {
        return Refusals.notAllowed(rule, what, policy, at);
    }
}
