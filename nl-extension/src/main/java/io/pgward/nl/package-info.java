/**
 * Natural-language questions to SQL, for the {@code pgward.*} functions pgward answers itself.
 *
 * <p>What the proxy wires, once per pgward, per login and per statement:
 *
 * <pre>{@code
 * ChatModel model = ChatModels.create(settings.provider().orElseThrow());      // once; skip when no provider
 *
 * SchemaCatalog catalog = SchemaCatalog.builder(controlPool::getConnection)   // once per login
 *         .role(login.databaseRole())
 *         .selection(RelationSelection.oids(login.selectedOids()))            // omit for "everything the role can read"
 *         .sampleGuard(l3GuardOf(login))
 *         .settings(settings)
 *         .build();
 * NlAssistant assistant = NlAssistant.builder(login.name(), settings, catalog)
 *         .chatModel(model).rules(login.rules()).rowCap(login.rowCap())
 *         .validator(validatorFor(login, defaultSearchPath)).audit(auditLog)
 *         .build();
 *
 * Optional<PgwardCall> call = PgwardCallParser.recognize(sql, standardConformingStrings);   // every statement
 * StatementValidator validator = new ExplainValidator(controlPool::getConnection, Optional.of(role),
 *         Optional.of(sessionSearchPath), settings.explainTimeout()).after(guardOfAllLayers(login));
 * AskResult result = assistant.withValidator(validator).ask(question, rowLimit);   // off the event loop
 * }</pre>
 *
 * <p>The validate-and-retry loop itself ({@link io.pgward.nl.QueryGenerator}) knows no query language: it is given
 * a {@link io.pgward.nl.QueryLanguage} (the reply's query field and response format) and a
 * {@link io.pgward.nl.ProposalCheck}. SQL uses it through {@code SqlGenerator}; arango-bridge's {@code AqlAssistant}
 * uses it for AQL, with ArangoDB's EXPLAIN and read-only plan check as the check.
 *
 * <p>Invariants: no statement generated here runs outside a read-only transaction that is rolled back (EXPLAIN,
 * value samples); the SQL {@code ask} returns is run by the proxy on the client's own backend session; rows are
 * never passed to the model or the audit listener; with a table selection, no name outside it reaches a prompt.
 */
package io.pgward.nl;
