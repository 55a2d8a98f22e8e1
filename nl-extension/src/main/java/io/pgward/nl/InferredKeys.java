package io.pgward.nl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Join keys inferred from column names, for relations of one schema that have no foreign keys. Names are compared
 * without case and separators ({@code customer_id}, {@code CustomerID} and {@code customerId} are one name).
 *
 * <ul>
 *   <li><b>Shared key column.</b> Both relations have a column of the same name that looks like a key: part of
 *       either primary key, or ending in id, code, key, no or num. A bare {@code id} never counts: it would join
 *       every table with every other. When many relations share the name (more than half of a schema of five or
 *       more, or more than 50), it joins them only to the relations whose primary key it is alone (the
 *       dimension or the hub table), not to each other; with no such relation it is an attribute ({@code tenant_id}) and joins
 *       nothing.</li>
 *   <li><b>Reference by name.</b> A relation with a one-column primary key (or, without one, an {@code id}
 *       column) is referenced by a column named after it plus that key, possibly with a prefix:
 *       {@code customer_id} or {@code billing_customer_id} for {@code customers.id}, {@code setCode} for
 *       {@code sets.code}; and by a column that ends in its key when that key is key-like and specific
 *       ({@code home_team_api_id} for {@code team.team_api_id}).</li>
 * </ul>
 *
 * <p>The work grows with the number of columns times their length, not with the square of the relations: names are
 * looked up in maps, and a column's suffixes are looked up instead of comparing it with every relation.
 */
final class InferredKeys {

    private static final List<String> KEY_ENDINGS = List.of("id", "code", "key", "no", "num");
    private static final int MANY = 50;
    /** A key this short ({@code no}, {@code code}) is too common to be matched as a column's ending. */
    private static final int SPECIFIC_KEY = 6;

    interface Link {
        void join(int a, int b);
    }

    private InferredKeys() {
    }

    static void find(List<Relation> relations, List<Integer> members, Link link) {
        Map<Integer, Set<String>> columns = new HashMap<>();
        Map<Integer, Set<String>> primaryKey = new HashMap<>();
        Map<String, List<Integer>> havingColumn = new HashMap<>();
        for (int i : members) {
            Set<String> names = new LinkedHashSet<>();
            relations.get(i).columns().forEach(c -> names.add(normalize(c.name())));
            columns.put(i, names);
            Set<String> key = new LinkedHashSet<>();
            relations.get(i).primaryKey().forEach(c -> key.add(normalize(c)));
            primaryKey.put(i, key);
            names.forEach(n -> havingColumn.computeIfAbsent(n, x -> new ArrayList<>()).add(i));
        }
        int crowd = Math.min(MANY, members.size() >= 5 ? members.size() / 2 : members.size());
        sharedKeyColumns(members, columns, primaryKey, havingColumn, crowd, link);
        referencesByName(relations, members, columns, primaryKey, link);
    }

    private static void sharedKeyColumns(List<Integer> members, Map<Integer, Set<String>> columns,
                                         Map<Integer, Set<String>> primaryKey, Map<String, List<Integer>> havingColumn,
                                         int crowd, Link link) {
        Map<String, List<Integer>> holders = new HashMap<>();
        for (int a : members) {
            for (String column : columns.get(a)) {
                if (column.equals("id") || !(keyLike(column) || primaryKey.get(a).contains(column))) {
                    continue;
                }
                List<Integer> sharing = havingColumn.get(column);
                List<Integer> partners = sharing.size() <= crowd || primaryKey.get(a).equals(Set.of(column))
                        ? sharing : holders.computeIfAbsent(column, c -> sharing.stream()
                                .filter(b -> primaryKey.get(b).equals(Set.of(c))).toList());
                for (int b : partners) {
                    if (b != a) {
                        link.join(a, b);
                    }
                }
            }
        }
    }

    private static void referencesByName(List<Relation> relations, List<Integer> members,
                                         Map<Integer, Set<String>> columns, Map<Integer, Set<String>> primaryKey,
                                         Link link) {
        // Every column name that references a relation, and the relations it references.
        Map<String, Set<Integer>> referencing = new HashMap<>();
        Map<String, Set<Integer>> endingWithKey = new HashMap<>();
        for (int b : members) {
            String key = primaryKey.get(b).size() == 1 ? primaryKey.get(b).iterator().next()
                    : primaryKey.get(b).isEmpty() && columns.get(b).contains("id") ? "id" : null;
            if (key == null) {
                continue;
            }
            String name = normalize(relations.get(b).ref().name());
            for (String target : new LinkedHashSet<>(List.of(name + key, Words.stem(name) + key))) {
                if (!target.equals(key)) {
                    referencing.computeIfAbsent(target, t -> new HashSet<>()).add(b);
                }
            }
            if (keyLike(key) && key.length() >= SPECIFIC_KEY) {
                endingWithKey.computeIfAbsent(key, t -> new HashSet<>()).add(b);
            }
        }
        for (int a : members) {
            for (String column : columns.get(a)) {
                for (int start = 0; start < column.length(); start++) {
                    String suffix = column.substring(start);
                    for (int b : referencing.getOrDefault(suffix, Set.of())) {
                        if (b != a) {
                            link.join(a, b);
                        }
                    }
                    if (start > 0) {
                        for (int b : endingWithKey.getOrDefault(suffix, Set.of())) {
                            if (b != a) {
                                link.join(a, b);
                            }
                        }
                    }
                }
            }
        }
    }

    static boolean keyLike(String normalized) {
        return normalized.length() > 2 && KEY_ENDINGS.stream().anyMatch(normalized::endsWith);
    }

    static String normalize(String name) {
        StringBuilder text = new StringBuilder();
        for (char c : name.toLowerCase(Locale.ROOT).toCharArray()) {
            if (Character.isLetterOrDigit(c)) {
                text.append(c);
            }
        }
        return text.toString();
    }
}
