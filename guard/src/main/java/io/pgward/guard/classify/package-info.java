/**
 * L2 of the guard: what a read-only login may run, decided from the syntax of one statement.
 *
 * <p>{@link io.pgward.guard.classify.ReadOnlyClassifier#classify} takes one statement as the lexer (L1) split it and
 * the login's {@link io.pgward.guard.classify.ReadOnlyPolicy}, and returns a {@link io.pgward.guard.Verdict}: allow,
 * or refuse with a rule id, a message that names what was refused and the position in the input
 * ({@link io.pgward.guard.classify.Refusals}). pgward sends a refusal as an ErrorResponse with SQLSTATE 42501, or
 * 54001 for a statement too complex to check and 42601 for one PostgreSQL's grammar rejects. The cursor an allowed
 * DECLARE opens is read apart from the verdict
 * ({@link io.pgward.guard.classify.ReadOnlyClassifier#declaredCursor}).
 *
 * <p>What L2 decides: the statement kind (reads, EXPLAIN without ANALYZE, the session and transaction commands
 * clients send on their own, cursors, COPY TO STDOUT; everything else refused); INTO, locking clauses and
 * data-modifying CTEs at any depth; built-in functions with side effects or reach outside the statement
 * ({@code denied-functions.txt}); and every way to turn read-only off. What it leaves to later layers: which
 * relations, user functions, operators and types a query may use, resolved by name the way PostgreSQL resolves them
 * (the catalog check, L3), and what only the server can enforce (the read-only backend session and its limits, L4).
 *
 * <p>Fail closed: a statement JSqlParser cannot parse, a utility command whose tokens do not read as its grammar,
 * and any fault in the classifier are refusals.
 */
package io.pgward.guard.classify;
