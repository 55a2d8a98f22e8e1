package io.pgward.guard.catalog;

import io.pgward.guard.Verdict;
import java.util.List;

/**
 * Verdicts by request, least recently used dropped first, and an epoch that every schema change advances. A
 * verdict reached in an earlier epoch is not stored: it may rest on a schema that has changed since it was read.
 *
 * <p>Beside the verdicts by request (the statement's text), allows by {@link ShapeKey}: the same request with the
 * text replaced by its {@link ConstantShape} key. Only an allow that {@link ShapeSharing} found to hold for every
 * statement of its shape is stored there. Both maps share the epoch, are bounded by the same capacity and the same
 * budget of characters ({@link BoundedLru}), and are dropped together.
 *
 * <p>And the {@link Served} texts of statements served filtered, by the client's request: what the statement became
 * ({@link CatalogRewrite}, fenced or not) and L3's verdict on it, so that a catalog statement seen before costs a
 * lookup here and neither a rewrite nor a check. Same epoch, capacity and lifetime.
 */
final class VerdictCache {

    /**
     * Everything of a {@link CheckRequest} but the text, and the text's {@link ConstantShape} key instead.
     */
    record ShapeKey(TableSelection selection, String role, String searchPath, boolean standardConformingStrings,
                    List<Integer> parameterTypes, boolean simpleQuery, String shape) {

        static ShapeKey of(CheckRequest request, String shape) {
            return new ShapeKey(request.selection(), request.role(), request.searchPath(),
                    request.standardConformingStrings(), request.parameterTypes(), request.simpleQuery(), shape);
        }
    }

    /**
     * Characters each of the three maps may hold in its keys' texts and parameter types and its served texts:
     * 8 Mi characters, some 16 MiB of strings per map and per catalog check, where 10,000 entries of the largest
     * statements would be gigabytes.
     */
    static final long DEFAULT_BUDGET = 8L << 20;

    /** An epoch no cache ever reaches (epochs count up from zero): a check started in it stores nothing. */
    static final long NEVER = -1;

    private final BoundedLru<CheckRequest, Verdict> entries;
    private final BoundedLru<ShapeKey, Verdict> byShape;
    private final BoundedLru<CheckRequest, Served> served;
    private long epoch;

    VerdictCache(int capacity) {
        this(capacity, DEFAULT_BUDGET);
    }

    /** @param budget characters each map may hold ({@link #DEFAULT_BUDGET}) */
    VerdictCache(int capacity, long budget) {
        this.entries = new BoundedLru<>(capacity, budget, (request, verdict) -> weight(request) + weight(verdict));
        this.byShape = new BoundedLru<>(capacity, budget, (shape, verdict) -> shape.shape().length()
                + shape.searchPath().length() + shape.parameterTypes().size() + weight(verdict));
        this.served = new BoundedLru<>(capacity, budget, (request, how) -> weight(request) + how.text().length()
                + weight(how.verdict()));
    }

    private static long weight(CheckRequest request) {
        return request.sql().length() + request.searchPath().length() + request.parameterTypes().size();
    }

    /** A refusal carries PostgreSQL's message, which may quote the statement; a rewrite carries its text. */
    private static long weight(Verdict verdict) {
        return switch (verdict) {
            case Verdict.Refuse r -> r.message().length() + (r.detail() == null ? 0 : r.detail().length())
                    + (r.hint() == null ? 0 : r.hint().length());
            case Verdict.Rewrite r -> r.sql().length();
            case Verdict.Answer a -> 64L + (long) a.rows().size() * Math.max(1, a.columns().size());
            case Verdict.Allow a -> a.typeNameParameters().size();
        };
    }

    synchronized Verdict get(CheckRequest request) {
        return entries.get(request);
    }

    /** The allow shared by every statement of this shape, or null. */
    synchronized Verdict get(ShapeKey shape) {
        return byShape.get(shape);
    }

    /** How the client's statement of this request is served, or null when it was not served filtered yet. */
    synchronized Served served(CheckRequest clientRequest) {
        return served.get(clientRequest);
    }

    /** Stores how a statement is served if the schema has not changed since {@code startedInEpoch}. */
    synchronized void put(CheckRequest clientRequest, Served how, long startedInEpoch) {
        if (startedInEpoch == epoch) {
            served.put(clientRequest, how);
        }
    }

    synchronized long epoch() {
        return epoch;
    }

    /** Stores the verdict if the schema has not changed since {@code startedInEpoch}. */
    synchronized void put(CheckRequest request, Verdict verdict, long startedInEpoch) {
        if (startedInEpoch == epoch) {
            entries.put(request, verdict);
        }
    }

    /**
     * Stores an allow for its shape if the schema has not changed since {@code startedInEpoch}; the caller has
     * established that it holds for the whole shape.
     */
    synchronized void put(ShapeKey shape, Verdict allow, long startedInEpoch) {
        if (!(allow instanceof Verdict.Allow)) {
            throw new IllegalArgumentException("only an allow is shared by shape");
        }
        if (startedInEpoch == epoch) {
            byShape.put(shape, allow);
        }
    }

    synchronized void clear() {
        epoch++;
        entries.clear();
        byShape.clear();
        served.clear();
    }

    synchronized int size() {
        return entries.size();
    }

    synchronized int servedTexts() {
        return served.size();
    }

    synchronized int shapes() {
        return byShape.size();
    }
}
