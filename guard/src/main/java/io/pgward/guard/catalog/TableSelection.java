package io.pgward.guard.catalog;

import java.util.List;
import java.util.Objects;

/**
 * A login's table selection, resolved to OIDs (resolution is not done here: the configuration's names are
 * resolved, and re-resolved after schema changes, by whoever owns the policy).
 *
 * <ul>
 *   <li>No selection: {@code relations} empty and {@code noneExists} false. Every relation may be read; only the
 *       function, operator, type and domain rules apply.</li>
 *   <li>A selection: {@code relations} lists the selected relations that exist, in the configuration's order.</li>
 *   <li>{@code noneExists}: the configured list was not empty but none of its names exists any more; every
 *       statement is refused with "None of the selected tables or views exist any more."</li>
 * </ul>
 *
 * @param filters the login's catalog filters ({@link CatalogFilters}): a covered catalog read only through its
 *                filter subquery is not held to the selection; {@link CatalogFilters#NONE} refuses every catalog
 *                relation, as without a visible catalog
 * @param views the login's filtered system views ({@link ViewFilters}): a system or information_schema view read only
 *              through its filter subquery is not held to the selection; {@link ViewFilters#NONE} refuses them all
 */
public record TableSelection(List<SelectedRelation> relations, boolean noneExists, CatalogFilters filters,
                             ViewFilters views) {

    /** Every relation may be read. */
    public static final TableSelection NONE = new TableSelection(List.of(), false);

    public TableSelection {
        relations = List.copyOf(Objects.requireNonNull(relations, "relations"));
        Objects.requireNonNull(filters, "filters");
        Objects.requireNonNull(views, "views");
        if (noneExists && !relations.isEmpty()) {
            throw new IllegalArgumentException("noneExists with " + relations.size() + " existing relations");
        }
    }

    /** A selection with catalog filters and without filtered views. */
    public TableSelection(List<SelectedRelation> relations, boolean noneExists, CatalogFilters filters) {
        this(relations, noneExists, filters, ViewFilters.NONE);
    }

    /** A selection without catalog filters: every catalog relation is refused by the relation rule. */
    public TableSelection(List<SelectedRelation> relations, boolean noneExists) {
        this(relations, noneExists, CatalogFilters.NONE);
    }

    /** This selection with the catalog filters of its visible catalog. */
    public TableSelection withFilters(CatalogFilters catalogFilters) {
        return new TableSelection(relations, noneExists, catalogFilters, views);
    }

    /** This selection with the filters of its system views. */
    public TableSelection withViews(ViewFilters viewFilters) {
        return new TableSelection(relations, noneExists, filters, viewFilters);
    }

    public static TableSelection of(List<SelectedRelation> relations) {
        return new TableSelection(relations, false);
    }

    /** A selection is set: the relation rule and the selection-only rules apply. */
    public boolean isSet() {
        return noneExists || !relations.isEmpty();
    }

    boolean selects(long oid) {
        return relations.stream().anyMatch(r -> r.oid() == oid);
    }
}
