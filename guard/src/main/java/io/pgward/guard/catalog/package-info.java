/**
 * L3 of the guard: the catalog check. PostgreSQL's own analysis of a statement decides which relations, functions,
 * operators and types it uses; the login's table selection and the function, type and domain rules are applied to
 * that.
 *
 * <p>Entry point: {@link io.pgward.guard.catalog.CatalogCheck#check(io.pgward.guard.catalog.CheckRequest)}, which
 * answers a {@link io.pgward.guard.Verdict} off the caller's thread (from its cache at once when the
 * same request was checked since the last schema change). A request carries the login's
 * {@link io.pgward.guard.catalog.TableSelection} (resolved to OIDs elsewhere), the backend role, the session's
 * search_path and standard_conforming_strings, the statement text and the Parse message's parameter types.
 *
 * <p>How: the query (or the query inside EXPLAIN, DECLARE, COPY) is stored in the SQL body of a temporary function on a
 * control connection, in a transaction that always rolls back ({@code CheckTransaction}); the function's
 * {@code pg_proc.prosqlbody} is parsed ({@code NodeTreeParser}), held to the shape written ({@code CheckFunctionBody}) and
 * walked ({@code QueryTreeWalker}) for every relation, function, operator and type at any depth; {@code pg_depend} of
 * the function adds every non-built-in object PostgreSQL itself recorded. The definitions of the views and materialized
 * views read, and the row-security policies of the relations read, are walked for the function and type rules. Refusal
 * texts are in {@link io.pgward.guard.catalog.CatalogRefusals}.
 *
 * <p>Fail closed: an unknown parse-node tag, a malformed tree, an object missing from the catalog, a timeout or any
 * other fault is a refusal.
 */
package io.pgward.guard.catalog;

