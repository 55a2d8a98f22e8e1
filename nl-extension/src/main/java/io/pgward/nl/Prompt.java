package io.pgward.nl;

import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;

/**
 * The prompt for one question. The system message holds the instructions, the database description, the
 * login's rules inside {@code <analyst_rules>} tags and the schema the login may read (with a selection, only
 * selected relations: no other name appears anywhere). The user message is the question alone. Rows are never
 * part of a prompt; only the value samples of the schema are.
 */
final class Prompt {

    private Prompt() {
    }

    static SystemMessage system(String description, String rules, SchemaCatalog.PromptSchema schema, int rowLimit) {
        StringBuilder text = new StringBuilder();
        text.append("""
                You translate questions about one PostgreSQL database into one SQL query.

                - Dialect: PostgreSQL. Write one SELECT query (WITH, VALUES or TABLE are also fine) and nothing \
                else: no second statement, no comments.
                - Read only: never INSERT, UPDATE, DELETE, MERGE, DDL, COPY, SET, SELECT ... INTO, FOR UPDATE or \
                FOR SHARE, and no function that changes data or settings. Such a statement is refused.
                - Use only the relations and columns listed under Schema, qualified with their schema as shown. \
                Nothing else is readable.
                - Always end the query with a LIMIT clause of at most %d rows.
                - For a filter on a text column, use the listed values when there are some, else ILIKE.
                - When the question is not about this database, or it cannot be answered from the schema below, \
                set isValid to false, sql to "" and put a short answer for the user in answer.
                - Reply with only a JSON object: {"isValid": true or false, "sql": "...", "answer": "..."}.
                - When told that a query failed, reply with a corrected query in the same JSON form.
                """.formatted(rowLimit));
        if (!description.isBlank()) {
            text.append("\nWhat this database holds:\n").append(description.strip()).append('\n');
        }
        text.append(AnalystRules.section(rules));
        text.append("\nSchema:\n\n");
        if (schema.shown().isEmpty()) {
            text.append("(no relations are readable)\n");
        } else {
            text.append(SchemaText.render(schema.shown()));
        }
        if (schema.omitted() > 0) {
            text.append("(").append(schema.omitted()).append(schema.omitted() == 1 ? " more relation exists" :
                    " more relations exist").append(" that this prompt does not show; the ones above are those most "
                    + "related to the question.)\n");
        }
        return SystemMessage.from(text.toString());
    }

    static UserMessage question(String question) {
        return UserMessage.from(question);
    }

    /** What the model is told after a rejected statement: the statement and the exact reason. */
    static UserMessage feedback(String sql, String error) {
        return UserMessage.from("That query was rejected.\nQuery:\n" + sql + "\nError: " + error
                + "\nReply with a corrected query in the same JSON form.");
    }

    static UserMessage unreadable(String problem, String field) {
        return UserMessage.from("Your reply could not be used: " + problem
                + ". Reply with only the JSON object {\"isValid\": ..., \"" + field
                + "\": \"...\", \"answer\": \"...\"}.");
    }
}
