package io.pgward.guard.catalog;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Catalog rows that checks share until the next schema change: of relations, types, functions and operators, and
 * views' stored queries, also as read trees. Nearly every statement uses built-in functions, operators and types,
 * and a BI tool's new shapes read the same few tables; reading those rows again for each new statement was most of
 * a check's round trips, and then a third of the work PostgreSQL did for a check's one round trip.
 *
 * <p>Every catalog these rows come from is in the {@link SchemaFingerprint}, and the rows are dropped together with
 * the verdicts ({@link CatalogCheck#invalidate()}, which a DDL statement through pgward calls at once, and the poll
 * for changes made elsewhere), so a check relies on a row no longer than a cached verdict relies on the same row.
 * The rows are the same for every login and role: each comes from the catalog as it is, read with the safe
 * search_path.
 *
 * <p>No row of an object the check's own transaction creates reaches them: the OIDs looked up come from the
 * statement's tree and dependencies, which PostgreSQL wrote before the check function existed, and from the
 * definitions of committed views and policies reached from those. (The transaction creates the check function,
 * and a temporary view that FilterReferences drops again; neither is ever looked up.)
 *
 * <p>A check takes one {@link Generation} when it starts and reads and fills only that one; a schema change
 * starts a new generation, so a row read before the change never reaches a check that starts after it. A
 * generation keeps at most {@link #MAX_ROWS} rows of each kind (and notes of relations whose rows around were read),
 * {@link #MAX_DEFINITION_CHARS} of view definitions and {@link #MAX_TREE_CHARS} of them as trees; past that, rows
 * are read (and trees parsed) for each check.
 */
final class SharedRows {

    /** PostgreSQL's FirstNormalObjectId: OIDs below it were assigned by initdb. */
    static final long FIRST_NORMAL_OID = 16384;

    /** The most rows of one kind a generation keeps. */
    static final int MAX_ROWS = 50_000;

    /** The most characters of view definitions a generation keeps, in all. */
    static final long MAX_DEFINITION_CHARS = 16L << 20;

    /**
     * The most characters of view definitions a generation keeps read as trees, in all: a tree takes several
     * times its text's memory.
     */
    static final long MAX_TREE_CHARS = 4L << 20;

    static boolean builtIn(long oid) {
        return oid > 0 && oid < FIRST_NORMAL_OID;
    }

    /** The rows cached between two schema changes. Thread-safe. */
    static final class Generation {
        final Map<Long, CatalogReader.Relation> relations = new ConcurrentHashMap<>();
        final Map<Long, CatalogReader.Function> functions = new ConcurrentHashMap<>();
        final Map<Long, CatalogReader.Operator> operators = new ConcurrentHashMap<>();
        final Map<Long, CatalogReader.Type> types = new ConcurrentHashMap<>();
        final Map<Long, CatalogReader.Definition> viewDefinitions = new ConcurrentHashMap<>();
        private final AtomicLong definitionChars = new AtomicLong();
        /** View definitions as read trees: every check that reaches a view walks its definition. */
        final Map<CatalogReader.Definition, TreeValue> viewTrees = new ConcurrentHashMap<>();
        private final AtomicLong treeChars = new AtomicLong();
        /**
         * The relations whose rows a check read with everything a check of a statement that depends on them reads
         * next ({@link CheckFunctionRead#ROWS}): the rows of their user column types, their view definitions and the
         * rows of the relations those read.
         */
        final Set<Long> rowsAround = ConcurrentHashMap.newKeySet();
        /**
         * The digest of the domain CHECK expressions last read, when every one was judged harmless from built-in
         * rows alone (so that judging them again would read only rows of this generation); null otherwise.
         */
        volatile String harmlessDomainChecks;

        int size() {
            return relations.size() + functions.size() + operators.size() + types.size() + viewDefinitions.size()
                    + viewTrees.size();
        }

        /** Keeps {@code row} unless {@code rows} holds {@link #MAX_ROWS} already. */
        static <T> void keep(Map<Long, T> rows, long oid, T row) {
            if (rows.size() < MAX_ROWS) {
                rows.put(oid, row);
            }
        }

        /** Notes that the rows around {@code relations} were read, unless {@link #MAX_ROWS} are noted already. */
        void rowsReadAround(Collection<Long> relations) {
            if (rowsAround.size() < MAX_ROWS) {
                rowsAround.addAll(relations);
            }
        }

        /** The tree of a view's definition, read once per generation (within {@link #MAX_TREE_CHARS}). */
        TreeValue viewTree(CatalogReader.Definition definition) {
            TreeValue known = viewTrees.get(definition);
            if (known != null) {
                return known;
            }
            TreeValue tree = NodeTreeParser.parse(definition.tree());
            if (hasRoom(viewTrees, treeChars, MAX_TREE_CHARS, definition)) {
                viewTrees.put(definition, tree);
            }
            return tree;
        }

        void keepDefinition(CatalogReader.Definition definition) {
            if (hasRoom(viewDefinitions, definitionChars, MAX_DEFINITION_CHARS, definition)) {
                viewDefinitions.put(definition.relation(), definition);
            }
        }

        /**
         * Whether {@code kept} may take {@code definition}: it holds fewer than {@link #MAX_ROWS}, and the text
         * stays within {@code limit} characters counted in {@code chars} (which counts it either way).
         */
        private static boolean hasRoom(Map<?, ?> kept, AtomicLong chars, long limit,
                                       CatalogReader.Definition definition) {
            return kept.size() < MAX_ROWS && chars.addAndGet(definition.tree().length()) <= limit;
        }
    }

    private volatile Generation current = new Generation();

    Generation current() {
        return current;
    }

    void clear() {
        current = new Generation();
    }
}
