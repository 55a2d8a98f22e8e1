package io.pgward.nl;

import dev.langchain4j.model.chat.ChatModel;
import java.util.Objects;
import java.util.Optional;

/**
 * What every assistant of one login takes, whatever language it writes: the chat model, the login's rules and row
 * cap, and where its attempts are audited. The builders of the SQL and the AQL assistant extend it.
 *
 * @param <B> the builder itself, so that the setters chain
 */
public abstract class AssistantOptions<B extends AssistantOptions<B>> {

    protected Optional<ChatModel> model;
    protected String rules = "";
    protected long rowCap = Long.MAX_VALUE;
    protected NlAuditListener audit = NlAuditListener.NONE;

    protected AssistantOptions(NlSettings settings) {
        this.model = Objects.requireNonNull(settings, "settings").provider().map(ChatModels::create);
    }

    protected abstract B self();

    /** What was set, for the assistant the builder makes. */
    public record Values(Optional<ChatModel> model, String rules, long rowCap, NlAuditListener audit) {
    }

    public Values values() {
        return new Values(model, rules, rowCap, audit);
    }

    /**
     * The chat model to use. Without one, the builder creates one from {@link NlSettings#provider()}; a pgward
     * with many logins creates it once with {@link ChatModels#create} and passes it to each.
     */
    public B chatModel(ChatModel chatModel) {
        this.model = Optional.of(Objects.requireNonNull(chatModel, "chatModel"));
        return self();
    }

    /** The login's {@code rules} text, shown to the model inside {@code <analyst_rules>} tags. */
    public B rules(String text) {
        this.rules = Objects.requireNonNull(text, "rules");
        return self();
    }

    /** The login's row cap; {@code pgward.ask} never asks for more rows. */
    public B rowCap(long cap) {
        if (cap < 1) {
            throw new IllegalArgumentException("row cap must be at least 1, was " + cap);
        }
        this.rowCap = cap;
        return self();
    }

    public B audit(NlAuditListener listener) {
        this.audit = Objects.requireNonNull(listener, "audit");
        return self();
    }
}
