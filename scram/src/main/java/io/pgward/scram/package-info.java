/**
 * SCRAM-SHA-256 verifiers in PostgreSQL's text form and the RFC 5802 primitives behind them.
 *
 * <p>A module of its own because two modules need one implementation and neither may hold it for the other:
 * wire-proxy checks logins against verifiers and mcp stores bearer tokens as verifiers, and mcp sits below
 * wire-proxy. The guard is below both but is the policy engine; authentication is no part of a verdict. This
 * module depends on no other pgward module and has no state beyond a {@link java.security.SecureRandom}.
 */
package io.pgward.scram;
