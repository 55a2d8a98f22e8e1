package io.pgward.nl;

import static io.pgward.nl.CallTokens.isBitOrHexString;
import static io.pgward.nl.CallTokens.isIdentifier;
import static io.pgward.nl.CallTokens.isName;
import static io.pgward.nl.CallTokens.isPunctuation;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.Token;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;

/**
 * Finds the calls of {@code pgward.*} functions anywhere in a statement text, by PostgreSQL's lexical rules (so a
 * call inside a string literal, a dollar quote or a comment is not a call, and comments or whitespace may stand
 * between the tokens of one): {@code pgward . f ( args )} with {@code pgward} and {@code f} unquoted in any case or
 * quoted exactly. Each argument must be a constant (a string literal, an integer) or a bound parameter
 * {@code $n}: pgward computes the function's rows before PostgreSQL runs the statement.
 *
 * <p>Each call is placed either in a FROM list (after FROM, JOIN, LATERAL or a comma of a FROM list, at the same
 * parenthesis depth as the query's FROM) or in an expression (everything else: the select list, WHERE, function
 * arguments). A FROM item may be followed by an alias ({@link CallSite#aliased}).
 */
public final class PgwardCallSites {

    /** The functions pgward answers, in the order its error for an unknown one lists them. */
    public static final List<String> FUNCTIONS = List.of("ask", "sql", "schema", "refresh_schema", "dialect",
            "relations", "describe", "aql");

    /** A statement text holds at most this many calls: each is computed before the statement runs. */
    public static final int MAX_CALLS = 16;

    /** Words that end a FROM item instead of naming its alias. */
    private static final Set<String> NOT_ALIASES = Set.of("where", "join", "inner", "left", "right", "full",
            "cross", "natural", "on", "using", "group", "having", "window", "order", "limit", "offset", "fetch",
            "for", "union", "intersect", "except", "returning", "with", "tablesample", "into", "set", "values",
            "select", "from", "lateral", "as", "then", "else", "end", "when", "and", "or", "not", "is");

    private static final Set<String> QUERY_STARTS = Set.of("select", "values", "with", "table");
    private static final Set<String> CLAUSES = Set.of("select", "from", "where", "group", "having", "window",
            "order", "limit", "offset", "fetch", "on", "using", "returning", "values", "set", "into", "for",
            "union", "intersect", "except");

    private PgwardCallSites() {
    }

    /** One argument: a constant or a bound parameter. */
    public sealed interface Argument {
    }

    /** A string literal's decoded value, or an integer's digits. */
    public record Constant(String value, boolean string) implements Argument {
    }

    /** {@code $n}. */
    public record Parameter(int number) implements Argument {
    }

    /**
     * One call.
     *
     * @param start offset of {@code pgward} in the text
     * @param end offset just past the closing parenthesis
     * @param function the function's name, folded as PostgreSQL folds it
     * @param arguments in order
     * @param inFrom it stands as an item of a FROM list
     * @param aliased an alias ({@code AS x}, {@code x}, {@code x(a, b)}) follows it
     * @param definitions the column definition list that follows it ({@code AS t(name text, total numeric)}, as
     *                    PostgreSQL takes for a function returning record), empty for none; with one, {@code end}
     *                    is past the list and {@code alias} is the alias as written
     * @param alias with {@code definitions}: the alias as written, or null when there is none
     *              ({@code AS (name text)})
     */
    public record CallSite(int start, int end, String function, List<Argument> arguments, boolean inFrom,
                           boolean aliased, List<ColumnDefinition> definitions, String alias) {

        public CallSite {
            definitions = List.copyOf(definitions);
        }

        /** Whether any argument is a bound parameter. */
        public boolean bindsParameters() {
            return arguments.stream().anyMatch(a -> a instanceof Parameter);
        }
    }

    /**
     * One column of a column definition list.
     *
     * @param name the column's name as written
     * @param type the type as written
     */
    public record ColumnDefinition(String name, String type) {
    }

    /** Whether the text mentions pgward at all, as cheaply as possible: nearly every text does not. */
    public static boolean mayCall(String sql) {
        int last = sql.length() - 6;
        for (int i = 0; i <= last; i++) {
            char c = sql.charAt(i);
            if ((c == 'p' || c == 'P') && sql.regionMatches(true, i, "pgward", 0, 6)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The calls in {@code sql}, in text order; empty when it makes none (or when PostgreSQL could not read it either:
     * the guard then answers it).
     *
     * @throws NlException an unknown {@code pgward} function (42883), an argument that is not a constant or a
     *                     parameter, or more than {@link #MAX_CALLS} calls
     */
    public static List<CallSite> find(String sql, boolean standardConformingStrings) throws NlException {
        List<Token> tokens;
        try {
            tokens = SqlLexer.tokenize(sql, standardConformingStrings);
        } catch (LexerException e) {
            return List.of();
        }
        List<CallSite> sites = new ArrayList<>();
        // Per parenthesis depth: whether it is a query, and the clause it is in.
        Deque<Level> levels = new ArrayDeque<>();
        levels.push(new Level(true));
        for (int i = 0; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            Level level = levels.peek();
            if (isPunctuation(token, "(")) {
                Level inner = new Level(false);
                if (i + 1 < tokens.size() && tokens.get(i + 1).kind() == Token.Kind.WORD
                        && QUERY_STARTS.contains(tokens.get(i + 1).value())) {
                    inner = new Level(true);
                }
                levels.push(inner);
                continue;
            }
            if (isPunctuation(token, ")")) {
                if (levels.size() > 1) {
                    levels.pop();
                }
                continue;
            }
            if (isPunctuation(token, ";")) {
                levels.clear();
                levels.push(new Level(true));
                continue;
            }
            if (level.query && token.kind() == Token.Kind.WORD) {
                if (CLAUSES.contains(token.value())) {
                    level.clause = token.value();
                } else if (token.value().equals("join")) {
                    level.clause = "from";
                }
            }
            if (level.query && isPunctuation(token, ",") && level.clause.equals("on")) {
                // A join condition holds no comma outside brackets: the comma starts the FROM list's next item.
                level.clause = "from";
            }
            if (isName(token, "pgward") && i + 3 < tokens.size() && isPunctuation(tokens.get(i + 1), ".")
                    && isIdentifier(tokens.get(i + 2)) && isPunctuation(tokens.get(i + 3), "(")
                    && (i == 0 || !isPunctuation(tokens.get(i - 1), "."))) {
                int close = closing(tokens, i + 3);
                if (close < 0) {
                    return List.of();
                }
                String function = tokens.get(i + 2).value();
                if (!FUNCTIONS.contains(function)) {
                    throw unknown(function);
                }
                // DELETE ... USING takes a FROM list too; JOIN ... USING takes a bracketed column list.
                boolean inFrom = level.query && (level.clause.equals("from") || level.clause.equals("using"))
                        && i > 0 && isFromItemStart(tokens.get(i - 1));
                boolean aliased = inFrom && close + 1 < tokens.size() && isAlias(tokens.get(close + 1));
                List<Argument> arguments = arguments(function, tokens.subList(i + 4, close));
                Definitions definitions = aliased ? definitions(sql, tokens, close + 1) : null;
                if (definitions != null) {
                    sites.add(new CallSite(token.start(), tokens.get(definitions.last()).end(), function, arguments,
                            true, true, definitions.columns(), definitions.alias()));
                    close = definitions.last();
                } else {
                    sites.add(new CallSite(token.start(), tokens.get(close).end(), function, arguments, inFrom,
                            aliased, List.of(), null));
                }
                if (sites.size() > MAX_CALLS) {
                    throw new NlException(NlException.INVALID_PARAMETER, "a statement may call pgward functions at "
                            + "most " + MAX_CALLS + " times");
                }
                i = close;
            }
        }
        return sites;
    }

    /**
     * The call this site makes, its parameters read from {@code bound} (a parameter's text value, null for NULL).
     *
     * @throws NlException wrong arguments, as for the literal forms ({@link PgwardCallParser})
     */
    public static PgwardCall call(CallSite site, java.util.Map<Integer, String> bound) throws NlException {
        List<String> values = new ArrayList<>();
        for (Argument argument : site.arguments()) {
            String value = switch (argument) {
                case Constant c -> c.value();
                case Parameter p -> bound.get(p.number());
            };
            if (value == null) {
                throw new NlException(NlException.INVALID_PARAMETER, "pgward." + site.function()
                        + " takes no NULL argument");
            }
            values.add(value);
        }
        String f = site.function();
        return switch (f) {
            case "ask" -> {
                arity(f, values, 1, 2);
                yield new PgwardCall.Ask(values.getFirst(), values.size() == 2
                        ? java.util.OptionalInt.of(integer(f, values.get(1))) : java.util.OptionalInt.empty());
            }
            case "sql" -> {
                arity(f, values, 1, 1);
                yield new PgwardCall.Sql(values.getFirst());
            }
            case "aql" -> {
                arity(f, values, 1, 1);
                yield new PgwardCall.Aql(values.getFirst());
            }
            case "schema" -> {
                arity(f, values, 0, 1);
                yield new PgwardCall.Schema(values.isEmpty() ? java.util.Optional.empty()
                        : java.util.Optional.of(values.getFirst()));
            }
            case "refresh_schema" -> {
                arity(f, values, 0, 0);
                yield new PgwardCall.RefreshSchema();
            }
            case "dialect" -> {
                arity(f, values, 0, 0);
                yield new PgwardCall.Dialect();
            }
            case "relations" -> {
                arity(f, values, 0, 0);
                yield new PgwardCall.Relations();
            }
            case "describe" -> {
                arity(f, values, 1, 1);
                yield new PgwardCall.Describe(values.getFirst());
            }
            default -> throw unknown(f);
        };
    }

    /**
     * The columns of a function's result, all of type text, known before it runs; empty for {@code ask}, whose
     * columns are the generated query's.
     */
    public static List<String> columns(String function) {
        return switch (function) {
            case "relations" -> List.of("name", "kind", "description");
            case "describe" -> List.of("field", "value");
            case "schema" -> SchemaRow.COLUMNS;
            case "sql" -> List.of("sql", "valid", "error", "answer");
            case "aql" -> List.of("aql", "valid", "error", "answer");
            case "refresh_schema" -> List.of("refreshed_at");
            case "dialect" -> List.of("dialect");
            default -> List.of();
        };
    }

    private static void arity(String function, List<String> args, int min, int max) throws NlException {
        if (args.size() < min || args.size() > max) {
            String expected = min == max ? String.valueOf(min) : min + " or " + max;
            throw new NlException(NlException.INVALID_PARAMETER, "pgward." + function + " takes " + expected
                    + (max == 1 && min == max ? " argument" : " arguments") + ", not " + args.size());
        }
    }

    private static int integer(String function, String value) throws NlException {
        try {
            return Integer.parseInt(value.strip().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new NlException(NlException.INVALID_PARAMETER, "pgward." + function
                    + " takes an integer row limit, not " + value);
        }
    }

    /** The error for {@code pgward.name(...)} when pgward has no such function. */
    public static NlException unknown(String function) {
        return new NlException("42883", "function pgward." + function + "() does not exist: pgward has "
                + String.join(", ", FUNCTIONS.stream().map(f -> "pgward." + f + "()").toList()));
    }

    private static final class Level {
        final boolean query;
        String clause = "";

        Level(boolean query) {
            this.query = query;
        }
    }

    private record Definitions(List<ColumnDefinition> columns, String alias, int last) {
    }

    /**
     * The column definition list after a call, from the alias at {@code at} on: {@code [AS] alias (name type, ...)}
     * or {@code AS (name type, ...)}; null when what follows is an alias with or without column names only.
     */
    private static Definitions definitions(String sql, List<Token> tokens, int at) {
        int i = at;
        if (tokens.get(i).isWord("as")) {
            i++;
        }
        String alias = null;
        if (i < tokens.size() && !isPunctuation(tokens.get(i), "(")) {
            alias = tokens.get(i).text();
            i++;
        }
        if (i >= tokens.size() || !isPunctuation(tokens.get(i), "(")) {
            return null;
        }
        int close = closing(tokens, i);
        if (close < 0) {
            return null;
        }
        List<ColumnDefinition> columns = new ArrayList<>();
        boolean typed = false;
        int itemStart = i + 1;
        int depth = 0;
        for (int j = i + 1; j <= close; j++) {
            Token t = tokens.get(j);
            if (isPunctuation(t, "(")) {
                depth++;
            } else if (isPunctuation(t, ")") && j < close) {
                depth--;
            } else if (j == close || depth == 0 && isPunctuation(t, ",")) {
                if (j - itemStart < 1) {
                    return null;
                }
                String type = j - itemStart > 1 ? sql.substring(tokens.get(itemStart + 1).start(),
                        tokens.get(j - 1).end()) : "";
                typed |= !type.isEmpty();
                columns.add(new ColumnDefinition(tokens.get(itemStart).text(), type));
                itemStart = j + 1;
            }
        }
        if (!typed) {
            return null;
        }
        return new Definitions(columns, alias, close);
    }

    private static boolean isFromItemStart(Token previous) {
        return previous.isWord("from") || previous.isWord("join") || previous.isWord("lateral")
                || previous.isWord("using") || isPunctuation(previous, ",");
    }

    private static boolean isAlias(Token next) {
        return next.kind() == Token.Kind.QUOTED_IDENTIFIER || next.isWord("as")
                || next.kind() == Token.Kind.WORD && !NOT_ALIASES.contains(next.value());
    }

    /** The index of the parenthesis that closes the one at {@code open}, or -1. */
    private static int closing(List<Token> tokens, int open) {
        int depth = 0;
        for (int i = open; i < tokens.size(); i++) {
            if (isPunctuation(tokens.get(i), "(")) {
                depth++;
            } else if (isPunctuation(tokens.get(i), ")") && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    private static List<Argument> arguments(String function, List<Token> inside) throws NlException {
        List<Argument> args = new ArrayList<>();
        int i = 0;
        while (i < inside.size()) {
            Token token = inside.get(i);
            boolean negative = token.kind() == Token.Kind.OPERATOR && token.text().equals("-")
                    && i + 1 < inside.size() && inside.get(i + 1).kind() == Token.Kind.NUMBER;
            if (negative) {
                args.add(new Constant("-" + inside.get(i + 1).value(), false));
                i += 2;
            } else if (token.kind() == Token.Kind.STRING && !isBitOrHexString(token)) {
                args.add(new Constant(token.value(), true));
                i++;
            } else if (token.kind() == Token.Kind.NUMBER) {
                args.add(new Constant(token.value(), false));
                i++;
            } else if (token.kind() == Token.Kind.PARAMETER) {
                args.add(new Parameter(parameterNumber(token)));
                i++;
            } else {
                throw notConstant(function, token);
            }
            if (i < inside.size()) {
                if (!isPunctuation(inside.get(i), ",") || i + 1 == inside.size()) {
                    throw notConstant(function, inside.get(i));
                }
                i++;
            }
        }
        return args;
    }

    private static int parameterNumber(Token token) throws NlException {
        try {
            return Integer.parseInt(token.value());
        } catch (NumberFormatException e) {
            throw new NlException("42P02", "there is no parameter " + token.text());
        }
    }

    private static NlException notConstant(String function, Token token) {
        return new NlException(NlException.INVALID_PARAMETER, "pgward." + function + " takes string literals, "
                + "integers or bound parameters ($1) as its arguments, not " + token.text()
                + ": pgward computes its rows before PostgreSQL runs the statement");
    }
}
