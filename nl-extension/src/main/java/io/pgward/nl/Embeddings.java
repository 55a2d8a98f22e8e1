package io.pgward.nl;

import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;

/**
 * The in-process embedding model that picks relations for large schemas: all-MiniLM-L6-v2, quantized, shipped
 * inside its jar, so choosing relations never calls out over the network. Loaded once, on first use.
 */
public final class Embeddings {

    private Embeddings() {
    }

    private static final class Holder {
        static final EmbeddingModel MODEL = new AllMiniLmL6V2QuantizedEmbeddingModel();
    }

    public static EmbeddingModel shared() {
        return Holder.MODEL;
    }
}
