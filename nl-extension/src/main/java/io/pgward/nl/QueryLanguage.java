package io.pgward.nl;

import dev.langchain4j.model.chat.request.ResponseFormat;
import java.util.Objects;

/**
 * What the validate-and-retry loop needs to know about the query language the model writes: the name of the
 * reply's query field ({@code sql}, {@code aql}) and the JSON-schema response format that asks for it. How a
 * proposed query is checked is a {@link ProposalCheck} given to each generation.
 *
 * @param replyField the key of the query in {@code {"isValid": ..., "<replyField>": "...", "answer": "..."}}
 * @param responseFormat sent to providers that support a JSON-schema response format
 */
public record QueryLanguage(String replyField, ResponseFormat responseFormat) {

    public static final QueryLanguage SQL = of("pgward_sql", "sql",
            "the PostgreSQL query when isValid is true, else empty");

    public QueryLanguage {
        Objects.requireNonNull(replyField, "replyField");
        Objects.requireNonNull(responseFormat, "responseFormat");
    }

    /**
     * @param schemaName the JSON schema's name, as providers show it
     * @param replyField the key of the query in the reply
     * @param fieldDescription what the model is told the field holds
     */
    public static QueryLanguage of(String schemaName, String replyField, String fieldDescription) {
        return new QueryLanguage(replyField, ModelReply.format(schemaName, replyField, fieldDescription));
    }
}
