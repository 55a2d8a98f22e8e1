package io.pgward.arango;

import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import io.pgward.nl.AnalystRules;
import io.pgward.nl.QueryLanguage;

/**
 * The prompt for one question on an ArangoDB database. The system message holds the instructions, the login's
 * rules inside {@code <analyst_rules>} tags and the reflected schema with the database's configured description
 * (collections as document or edge with their sampled and indexed fields, named graphs with their edge
 * definitions, ArangoSearch views). The user message is the question alone. No document of a result is ever
 * part of a prompt; only the field names and types of the schema sample are.
 */
final class AqlPrompt {

    static final QueryLanguage AQL = QueryLanguage.of("pgward_aql", "aql",
            "the read-only AQL query when isValid is true, else empty");

    private AqlPrompt() {
    }

    /**
     * @param schema the bridge's schema text, description included
     * @param rowLimit the most rows the query may return
     */
    static SystemMessage system(String schema, String rules, int rowLimit) {
        StringBuilder text = new StringBuilder();
        text.append("""
                You translate questions about one ArangoDB database into one AQL query.

                - Dialect: AQL, the ArangoDB Query Language. Write one query and nothing else: no semicolon, \
                no comments, no bind parameters (@name).
                - Read only: use FOR, FILTER, SEARCH, LET, COLLECT, AGGREGATE, SORT, LIMIT, WINDOW, RETURN, graph \
                traversals (FOR v, e, p IN 1..n OUTBOUND start GRAPH 'name') and path searches. Never INSERT, \
                UPDATE, REPLACE, REMOVE or UPSERT: a query that modifies data is refused.
                - Use only the collections, graphs and views listed under Schema. Their fields were sampled from \
                a few documents, so a document may lack a field or have others.
                - Always bound the result with a LIMIT of at most %d.
                - Return objects with named attributes, e.g. RETURN {name: u.name, age: u.age}: each attribute \
                becomes a column of the answer.
                - When the question is not about this database, or it cannot be answered from the schema below, \
                set isValid to false, aql to "" and put a short answer for the user in answer.
                - Reply with only a JSON object: {"isValid": true or false, "aql": "...", "answer": "..."}.
                - When told that a query failed, reply with a corrected query in the same JSON form.
                """.formatted(rowLimit));
        text.append(AnalystRules.section(rules));
        text.append("\nSchema:\n\n").append(schema);
        return SystemMessage.from(text.toString());
    }

    static UserMessage question(String question) {
        return UserMessage.from(question);
    }
}
