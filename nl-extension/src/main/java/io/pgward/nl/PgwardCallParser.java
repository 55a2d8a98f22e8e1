package io.pgward.nl;

import static io.pgward.nl.CallTokens.isBitOrHexString;
import static io.pgward.nl.CallTokens.isIdentifier;
import static io.pgward.nl.CallTokens.isName;
import static io.pgward.nl.CallTokens.isPunctuation;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Recognises the statements that call a natural-language {@code pgward.*} function, which pgward answers itself:
 *
 * <pre>
 *   SELECT * FROM pgward.f(args) [;]
 *   SELECT pgward.f(args) [;]
 * </pre>
 *
 * where f is ask, sql, aql, schema, refresh_schema, dialect, relations or describe (keywords and names in any
 * case, {@code "pgward"} and {@code "f"} may be quoted), and each argument is a string literal ({@code '...'} with {@code ''} for a quote,
 * {@code E'...'}, {@code $$...$$}) or, for ask's row limit, an integer. Comments and whitespace anywhere are
 * ignored, as PostgreSQL ignores them. Anything else (aliases, WHERE, casts, other functions, a second statement)
 * is not one of these calls and is handled as SQL.
 */
public final class PgwardCallParser {

    private PgwardCallParser() {
    }

    /**
     * What the proxy asks of every statement text: the comment form (a question for {@code pgward.ask} with the
     * default row limit, see {@link NlComment}) or one of the call forms, or empty when it is neither.
     *
     * @throws NlException when it calls one of these functions with arguments it does not take
     */
    public static Optional<PgwardCall> recognize(String sql, boolean standardConformingStrings) throws NlException {
        Optional<String> question = NlComment.question(sql);
        if (question.isPresent()) {
            return Optional.of(new PgwardCall.Ask(question.get(), OptionalInt.empty()));
        }
        return parse(sql, standardConformingStrings);
    }

    /**
     * @return the call, or empty when {@code sql} is not such a call
     * @throws NlException when it calls one of these functions with arguments it does not take
     */
    public static Optional<PgwardCall> parse(String sql, boolean standardConformingStrings) throws NlException {
        List<Token> tokens;
        try {
            tokens = new ArrayList<>(SqlLexer.tokenize(sql, standardConformingStrings));
        } catch (LexerException e) {
            return Optional.empty();
        }
        if (!tokens.isEmpty() && isPunctuation(tokens.getLast(), ";")) {
            tokens.removeLast();
        }
        int i = 0;
        if (tokens.size() < 6 || !tokens.get(i++).isWord("select")) {
            return Optional.empty();
        }
        if (tokens.get(i).kind() == Token.Kind.OPERATOR && tokens.get(i).text().equals("*")) {
            if (!tokens.get(i + 1).isWord("from")) {
                return Optional.empty();
            }
            i += 2;
        }
        if (tokens.size() < i + 5 || !isName(tokens.get(i), "pgward") || !isPunctuation(tokens.get(i + 1), ".")
                || !isIdentifier(tokens.get(i + 2)) || !isPunctuation(tokens.get(i + 3), "(")
                || !isPunctuation(tokens.getLast(), ")")) {
            return Optional.empty();
        }
        String function = tokens.get(i + 2).value();
        Optional<List<Token>> arguments = arguments(tokens.subList(i + 4, tokens.size() - 1));
        if (arguments.isEmpty()) {
            return Optional.empty();
        }
        return call(function, arguments.get());
    }

    private static Optional<PgwardCall> call(String function, List<Token> args) throws NlException {
        return switch (function) {
            case "ask" -> {
                arity(function, args, 1, 2);
                OptionalInt limit = args.size() == 2 ? OptionalInt.of(integer(function, args.get(1)))
                        : OptionalInt.empty();
                yield Optional.of(new PgwardCall.Ask(string(function, args.getFirst()), limit));
            }
            case "sql" -> {
                arity(function, args, 1, 1);
                yield Optional.of(new PgwardCall.Sql(string(function, args.getFirst())));
            }
            case "aql" -> {
                arity(function, args, 1, 1);
                yield Optional.of(new PgwardCall.Aql(string(function, args.getFirst())));
            }
            case "schema" -> {
                arity(function, args, 0, 1);
                yield Optional.of(new PgwardCall.Schema(args.isEmpty() ? Optional.empty()
                        : Optional.of(string(function, args.getFirst()))));
            }
            case "refresh_schema" -> {
                arity(function, args, 0, 0);
                yield Optional.of(new PgwardCall.RefreshSchema());
            }
            case "dialect" -> {
                arity(function, args, 0, 0);
                yield Optional.of(new PgwardCall.Dialect());
            }
            case "relations" -> {
                arity(function, args, 0, 0);
                yield Optional.of(new PgwardCall.Relations());
            }
            case "describe" -> {
                arity(function, args, 1, 1);
                yield Optional.of(new PgwardCall.Describe(string(function, args.getFirst())));
            }
            default -> Optional.empty();
        };
    }

    /** The argument tokens, each one a single token; empty when an argument is an expression. */
    private static Optional<List<Token>> arguments(List<Token> inside) {
        List<Token> args = new ArrayList<>();
        if (inside.isEmpty()) {
            return Optional.of(args);
        }
        int i = 0;
        while (true) {
            Token token = inside.get(i);
            if (token.kind() == Token.Kind.OPERATOR && token.text().equals("-") && i + 1 < inside.size()
                    && inside.get(i + 1).kind() == Token.Kind.NUMBER) {
                Token number = inside.get(i + 1);
                args.add(new Token(Token.Kind.NUMBER, "-" + number.text(), "-" + number.value(), token.start(),
                        number.end()));
                i += 2;
            } else if (token.kind() == Token.Kind.STRING || token.kind() == Token.Kind.NUMBER) {
                args.add(token);
                i++;
            } else {
                return Optional.empty();
            }
            if (i == inside.size()) {
                return Optional.of(args);
            }
            if (!isPunctuation(inside.get(i), ",") || i + 1 == inside.size()) {
                return Optional.empty();
            }
            i++;
        }
    }

    private static void arity(String function, List<Token> args, int min, int max) throws NlException {
        if (args.size() < min || args.size() > max) {
            String expected = min == max ? String.valueOf(min) : min + " or " + max;
            throw new NlException(NlException.INVALID_PARAMETER, "pgward." + function + " takes " + expected
                    + (max == 1 && min == max ? " argument" : " arguments") + ", not " + args.size());
        }
    }

    private static String string(String function, Token token) throws NlException {
        if (token.kind() != Token.Kind.STRING || isBitOrHexString(token)) {
            throw new NlException(NlException.INVALID_PARAMETER, "pgward." + function
                    + " takes a string literal here, not " + token.text());
        }
        return token.value();
    }

    private static int integer(String function, Token token) throws NlException {
        try {
            return Integer.parseInt(token.value().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new NlException(NlException.INVALID_PARAMETER, "pgward." + function
                    + " takes an integer row limit, not " + token.text());
        }
    }
}
