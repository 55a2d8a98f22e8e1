package io.pgward.nl;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.chat.ChatModel;
import java.util.List;
import java.util.Optional;

/**
 * The validate-and-retry loop for SQL: a proposed statement is checked by the {@link StatementValidator} (guard
 * and EXPLAIN), then by the one-query shape check; the query offered is {@link QueryShape}'s text of it.
 */
final class SqlGenerator {

    private final QueryGenerator generator;

    SqlGenerator(ChatModel model, int maxAttempts) {
        this.generator = new QueryGenerator(model, maxAttempts, QueryLanguage.SQL);
    }

    Generation generate(List<ChatMessage> prompt, StatementValidator validator, Listener listener) {
        return generator.generate(prompt, sql -> check(sql, validator), listener::attempt);
    }

    static ProposalCheck.Outcome check(String sql, StatementValidator validator) {
        Optional<String> problem = validator.problem(sql);
        if (problem.isPresent()) {
            return new ProposalCheck.Rejected(problem.get());
        }
        return switch (QueryShape.check(sql)) {
            case QueryShape.Query query -> new ProposalCheck.Passed(query.text());
            case QueryShape.Problem shapeProblem -> new ProposalCheck.Rejected(shapeProblem.message());
        };
    }

    @FunctionalInterface
    interface Listener {
        void attempt(Attempt attempt);
    }
}
