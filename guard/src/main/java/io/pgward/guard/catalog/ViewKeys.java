package io.pgward.guard.catalog;

import java.util.Set;
import java.util.TreeSet;

/**
 * What the keys of a filtered view's filter ({@link ViewFilters.Filter#conjuncts}) say about the values of its
 * columns in the rows it lets through. {@link ViewFilterProof} proved that the statement's subquery has exactly these
 * conjuncts as its WHERE, each comparing by bytes (names under "C"), so every row satisfies each of them.
 */
final class ViewKeys {

    private ViewKeys() {
    }

    /**
     * Whether columns {@code schemaAttnum} and {@code nameAttnum} are the (schema, name) pair of one of the view's
     * relation keys, and the filter holds that pair to the listed (visible) relations: every row's pair is then a
     * visible relation's schema and name.
     */
    static boolean relationPair(ViewFilters.Filter filter, int schemaAttnum, int nameAttnum) {
        boolean key = filter.view().keys().stream().anyMatch(k -> k.kind() == FilteredView.Kind.RELATION
                && attnum(filter, k.schemaColumn()) == schemaAttnum && attnum(filter, k.column()) == nameAttnum);
        return key && pairHeld(filter, schemaAttnum, nameAttnum);
    }

    /**
     * The values column {@code attnum} may take in the rows the filter lets through, or null when the filter does
     * not bound them: a conjunct {@code column = 'v'} or {@code column = ANY (names)}, an OR of groups each of which
     * has one, or a conjunct that lets no row through at all (an empty list).
     */
    static Set<String> values(ViewFilters.Filter filter, int attnum) {
        for (ViewFilters.Conjunct conjunct : filter.conjuncts()) {
            if (conjunct instanceof ViewFilters.In in && in.values().isEmpty()) {
                return Set.of();
            }
        }
        for (ViewFilters.Conjunct conjunct : filter.conjuncts()) {
            Set<String> bound = bound(conjunct, attnum);
            if (bound != null) {
                return bound;
            }
            if (conjunct instanceof ViewFilters.AnyGroup any) {
                Set<String> union = new TreeSet<>();
                for (Set<ViewFilters.Conjunct> group : any.groups()) {
                    Set<String> inGroup = group.stream().map(c -> bound(c, attnum))
                            .filter(java.util.Objects::nonNull).findFirst().orElse(null);
                    if (inGroup == null) {
                        union = null;
                        break;
                    }
                    union.addAll(inGroup);
                }
                if (union != null) {
                    return union;
                }
            }
        }
        return null;
    }

    /**
     * Whether column {@code attnum} holds, in every row the filter lets through, a setting pg_settings shows the
     * login ({@link VisibleSettings}): the view's setting key is that column, held to that list.
     */
    static boolean visibleSetting(ViewFilters.Filter filter, int attnum) {
        boolean key = filter.view().keys().stream().anyMatch(k -> k.kind() == FilteredView.Kind.SETTING
                && attnum(filter, k.column()) == attnum);
        return key && filter.conjuncts().stream().anyMatch(c -> c instanceof ViewFilters.In in
                && in.attnum() == attnum && in.type() == ViewFilters.ElementType.TEXT
                && VisibleSettings.NAMES.containsAll(in.values()));
    }

    private static Set<String> bound(ViewFilters.Conjunct conjunct, int attnum) {
        return switch (conjunct) {
            case ViewFilters.Eq eq when eq.attnum() == attnum -> Set.of(eq.value());
            case ViewFilters.In in when in.attnum() == attnum && in.type() == ViewFilters.ElementType.NAME ->
                    in.values();
            default -> null;
        };
    }

    /**
     * The pair written as {@link ViewFilters#pairs} writes it: {@code s = 'a' AND n = ANY (..)} as two conjuncts or
     * as the groups of an OR, or the empty list that admits no row.
     */
    private static boolean pairHeld(ViewFilters.Filter filter, int schemaAttnum, int nameAttnum) {
        boolean schema = false;
        boolean name = false;
        for (ViewFilters.Conjunct conjunct : filter.conjuncts()) {
            switch (conjunct) {
                case ViewFilters.In in when in.values().isEmpty() -> {
                    return true;
                }
                case ViewFilters.Eq eq when eq.attnum() == schemaAttnum -> schema = true;
                case ViewFilters.In in when in.attnum() == nameAttnum
                        && in.type() == ViewFilters.ElementType.NAME -> name = true;
                case ViewFilters.AnyGroup any when any.groups().stream().allMatch(g -> g.size() == 2
                        && g.stream().anyMatch(c -> c instanceof ViewFilters.Eq eq && eq.attnum() == schemaAttnum)
                        && g.stream().anyMatch(c -> c instanceof ViewFilters.In in && in.attnum() == nameAttnum
                        && in.type() == ViewFilters.ElementType.NAME)) -> {
                    return true;
                }
                default -> { }
            }
        }
        return schema && name;
    }

    private static int attnum(ViewFilters.Filter filter, String column) {
        return column == null ? -1 : filter.columns().stream().filter(c -> c.name().equals(column))
                .mapToInt(ViewColumns.Column::attnum).findFirst().orElse(-1);
    }
}
