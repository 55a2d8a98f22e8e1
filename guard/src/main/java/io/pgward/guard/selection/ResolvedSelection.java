package io.pgward.guard.selection;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A table selection resolved against the database at one moment.
 *
 * <ul>
 *   <li>No selection: {@code relations} empty and {@code noneExists} false ({@link #NONE}).</li>
 *   <li>A selection: {@code relations} holds the selected names that exist, in the configured order.</li>
 *   <li>A selection of which nothing exists any more: {@code relations} empty and {@code noneExists} true; every
 *       statement is then refused with {@link #NONE_EXISTS_MESSAGE}.</li>
 * </ul>
 *
 * @param relations the selected relations that exist, in list order, each once
 * @param missing the configured names that did not resolve to a table or view, as written
 * @param noneExists a selection is configured and none of its names exists
 * @param visible what the login may see of the catalogs, read in the same snapshot as {@code relations} (used by the
 *                catalog rewrite, step 2 of {@code docs/filtered-catalog-design.md}); {@link VisibleCatalog#NONE}
 *                without a selection, where nothing is filtered and the value is not consulted
 * @param names the names of {@code visible}'s relations, schemas and constraints, read in the same snapshot, which
 *              the filtered system views and information_schema are keyed on; {@link VisibleNames#NONE} without them
 */
public record ResolvedSelection(List<SelectedRelation> relations, List<String> missing, boolean noneExists,
                                VisibleCatalog visible, VisibleNames names) {

    public static final ResolvedSelection NONE = new ResolvedSelection(List.of(), List.of(), false);

    public static final String NONE_EXISTS_MESSAGE = "None of the selected tables or views exist any more.";

    public ResolvedSelection {
        relations = List.copyOf(relations);
        missing = List.copyOf(missing);
        Objects.requireNonNull(visible, "visible");
        Objects.requireNonNull(names, "names");
        if (noneExists && !relations.isEmpty()) {
            throw new IllegalArgumentException("noneExists with relations");
        }
    }

    /** A resolution without the visible names ({@link VisibleNames#NONE}: the name-keyed views show nothing). */
    public ResolvedSelection(List<SelectedRelation> relations, List<String> missing, boolean noneExists,
                             VisibleCatalog visible) {
        this(relations, missing, noneExists, visible, VisibleNames.NONE);
    }

    /** A resolution without visible sets ({@link VisibleCatalog#NONE}: built-ins only), as tests build by hand. */
    public ResolvedSelection(List<SelectedRelation> relations, List<String> missing, boolean noneExists) {
        this(relations, missing, noneExists, VisibleCatalog.NONE);
    }

    /** Whether a selection is configured (even one of which nothing exists). */
    public boolean isSet() {
        return noneExists || !relations.isEmpty();
    }

    public Optional<SelectedRelation> byOid(long oid) {
        return relations.stream().filter(r -> r.oid() == oid).findFirst();
    }

    /** The display names in list order, joined with ", ", for messages. */
    public String displayNames() {
        return String.join(", ", relations.stream().map(SelectedRelation::displayName).toList());
    }

    /** The oids as a PostgreSQL array literal, for {@code ?::oid[]}. */
    String oidArrayLiteral() {
        StringBuilder literal = new StringBuilder("{");
        for (SelectedRelation relation : relations) {
            if (literal.length() > 1) {
                literal.append(',');
            }
            literal.append(relation.oid());
        }
        return literal.append('}').toString();
    }
}
