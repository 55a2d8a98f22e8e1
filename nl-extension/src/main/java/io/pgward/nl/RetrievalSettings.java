package io.pgward.nl;

import java.util.Objects;

/**
 * How relations are chosen per question when a schema is too large to show whole (the {@code nl.retrieval}
 * settings; see docs/nl.md, where each default is measured on the BIRD mini-dev schemas).
 *
 * @param relationLimit a schema with more relations than this is retrieved per question, whatever its size in
 *                      characters; 0 retrieves for every schema
 * @param lexical rank by BM25 over names, columns, comments and value samples as well as by embedding, the two
 *                fused by reciprocal rank
 * @param expansion which join partners of the chosen relations are added
 * @param inferredKeys between relations that have no foreign keys, treat shared key-like column names as join keys
 * @param schemaRanking rank schemas as well, and lift the relations of the schemas that match the question best
 */
public record RetrievalSettings(int relationLimit, boolean lexical, Expansion expansion, boolean inferredKeys,
                                boolean schemaRanking) {

    public static final int DEFAULT_RELATION_LIMIT = 16;

    /** Which relations joined to the chosen ones are added. */
    public enum Expansion {
        /** Only a relation that joins two chosen relations not joined directly: the join table between them. */
        BRIDGES,
        /** Every relation joined to a chosen one. */
        NEIGHBOURS,
        /** None. */
        NONE
    }

    public RetrievalSettings {
        Objects.requireNonNull(expansion, "expansion");
        if (relationLimit < 0) {
            throw new IllegalArgumentException("nl.retrieval.relation_limit must be at least 0, was " + relationLimit);
        }
    }

    public static RetrievalSettings defaults() {
        return new RetrievalSettings(DEFAULT_RELATION_LIMIT, true, Expansion.BRIDGES, true, true);
    }

    /** What pgward did before these settings existed: embedding only, every foreign-key neighbour. */
    static RetrievalSettings embeddingWithNeighbours() {
        return new RetrievalSettings(Integer.MAX_VALUE, false, Expansion.NEIGHBOURS, false, false);
    }

    RetrievalSettings withRelationLimit(int limit) {
        return new RetrievalSettings(limit, lexical, expansion, inferredKeys, schemaRanking);
    }
}
