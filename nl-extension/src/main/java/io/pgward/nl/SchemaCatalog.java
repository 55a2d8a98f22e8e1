package io.pgward.nl;

import dev.langchain4j.model.embedding.EmbeddingModel;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The cached schema of one login (one role and table selection): the snapshot {@code pgward.schema()} serves and
 * the prompt describes, and, when that schema is larger than the prompt budget, the embedding index that picks
 * relations per question. Both are built together by one reflection and replaced together by {@link #refresh()};
 * a failed refresh leaves both as they were. Thread-safe.
 */
public final class SchemaCatalog {

    /** What the prompt shows for one question. */
    record PromptSchema(List<Relation> shown, int omitted) {
    }

    private record Loaded(SchemaSnapshot snapshot, Optional<RelationIndex> index) {
    }

    private final SchemaReflector reflector;
    private final Supplier<EmbeddingModel> embeddings;
    private final int promptBudgetChars;
    private final int topK;
    private final RetrievalSettings retrieval;
    private volatile Loaded loaded;

    private SchemaCatalog(Builder builder) {
        this.reflector = new SchemaReflector(builder.connections, builder.role, builder.selection,
                builder.sampleGuard, builder.clock);
        this.embeddings = builder.embeddings;
        this.promptBudgetChars = builder.promptBudgetChars;
        this.topK = builder.topK;
        this.retrieval = builder.retrieval;
    }

    public static Builder builder(JdbcConnections connections) {
        return new Builder(connections);
    }

    /** The current snapshot, reflecting on first use. */
    public SchemaSnapshot snapshot() throws NlException {
        return load().snapshot;
    }

    /** Re-reflects; on failure keeps what was cached and says why. */
    public synchronized RefreshResult refresh() {
        try {
            Loaded fresh = reflect();
            loaded = fresh;
            return new RefreshResult.Refreshed(fresh.snapshot.reflectedAt(), fresh.snapshot.relations().size());
        } catch (SQLException e) {
            return new RefreshResult.Failed("Schema refresh failed: " + DatabaseMessages.primary(e));
        }
    }

    PromptSchema forQuestion(String question) throws NlException {
        return forQuestion(question, topK);
    }

    PromptSchema forQuestion(String question, int k) throws NlException {
        Loaded current = load();
        List<Relation> all = current.snapshot.relations();
        if (current.index.isEmpty()) {
            return new PromptSchema(all, 0);
        }
        List<Relation> shown = RelationChooser.choose(current.index.get(), question, k, promptBudgetChars,
                relation -> SchemaText.render(relation).length());
        return new PromptSchema(shown, all.size() - shown.size());
    }

    private Loaded load() throws NlException {
        Loaded current = loaded;
        if (current != null) {
            return current;
        }
        synchronized (this) {
            if (loaded == null) {
                try {
                    loaded = reflect();
                } catch (SQLException e) {
                    throw new NlException(NlException.SCHEMA_UNAVAILABLE,
                            "pgward could not read the schema: " + DatabaseMessages.primary(e), e);
                }
            }
            return loaded;
        }
    }

    private Loaded reflect() throws SQLException {
        SchemaSnapshot snapshot = reflector.reflect();
        Optional<RelationIndex> index = retrieves(snapshot.relations())
                ? Optional.of(RelationIndex.build(embeddings.get(), snapshot.relations(), retrieval))
                : Optional.empty();
        return new Loaded(snapshot, index);
    }

    /**
     * Whether relations are chosen per question: when the schema text is over the budget, or when there are more
     * relations than the limit (a model reads a long list of tables worse than a short one, even when it fits).
     */
    private boolean retrieves(List<Relation> relations) {
        return relations.size() > retrieval.relationLimit()
                || SchemaText.render(relations).length() > promptBudgetChars;
    }

    public static final class Builder {
        private final JdbcConnections connections;
        private Optional<String> role = Optional.empty();
        private Optional<Predicate<RelationRef>> selection = Optional.empty();
        private SqlGuard sampleGuard = SqlGuard.NONE;
        private Supplier<EmbeddingModel> embeddings = Embeddings::shared;
        private int promptBudgetChars = NlSettings.DEFAULT_PROMPT_BUDGET_CHARS;
        private int topK = NlSettings.DEFAULT_TOP_K;
        private RetrievalSettings retrieval = RetrievalSettings.defaults();
        private Clock clock = Clock.systemUTC();

        private Builder(JdbcConnections connections) {
            this.connections = Objects.requireNonNull(connections, "connections");
        }

        /** The database role the login's queries run as; reflection runs as it (SET LOCAL ROLE). */
        public Builder role(String role) {
            this.role = Optional.of(role);
            return this;
        }

        /**
         * The login's table selection: only relations it accepts are reflected (and only those the role can
         * SELECT). Without one, every relation the role can SELECT outside the system schemas.
         */
        public Builder selection(Predicate<RelationRef> selection) {
            this.selection = Optional.of(selection);
            return this;
        }

        /** Every value-sample statement passes this guard first; a refused column is not sampled. */
        public Builder sampleGuard(SqlGuard guard) {
            this.sampleGuard = Objects.requireNonNull(guard, "guard");
            return this;
        }

        public Builder embeddings(Supplier<EmbeddingModel> embeddings) {
            this.embeddings = Objects.requireNonNull(embeddings, "embeddings");
            return this;
        }

        /** The prompt budget and top k of the {@code nl:} settings. */
        public Builder settings(NlSettings settings) {
            return promptBudgetChars(settings.promptBudgetChars()).topK(settings.topK()).retrieval(settings.retrieval());
        }

        /** How relations are chosen per question, and above how many relations that starts. */
        public Builder retrieval(RetrievalSettings retrieval) {
            this.retrieval = Objects.requireNonNull(retrieval, "retrieval");
            return this;
        }

        /** Size of the schema part of a prompt, in characters, above which relations are chosen per question. */
        public Builder promptBudgetChars(int chars) {
            this.promptBudgetChars = chars;
            return this;
        }

        public Builder topK(int topK) {
            this.topK = topK;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public SchemaCatalog build() {
            return new SchemaCatalog(this);
        }
    }
}
