package io.pgward.guard.selection;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The tables and views a login may read, as the security team wrote them in the configuration, in their order.
 * An empty selection means no selection: every relation the login's role can read.
 *
 * @param texts the names as written, for messages and logs
 * @param names the same names as PostgreSQL reads them
 */
public record SelectedNames(List<String> texts, List<RelationName> names) {

    public static final SelectedNames NONE = new SelectedNames(List.of(), List.of());

    public SelectedNames {
        texts = List.copyOf(texts);
        names = List.copyOf(names);
        if (texts.size() != names.size()) {
            throw new IllegalArgumentException("texts and names differ in length");
        }
    }

    /**
     * Reads the configured list.
     *
     * @param key the configuration key the list came from, named in the error
     * @throws IllegalArgumentException naming every entry that is not a schema-qualified relation name
     */
    public static SelectedNames parse(String key, List<String> texts) {
        Objects.requireNonNull(texts, key);
        List<RelationName> names = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            String text = texts.get(i);
            try {
                names.add(RelationName.parseQualified(Objects.requireNonNull(text, "null")));
            } catch (IllegalArgumentException | NullPointerException e) {
                errors.add(key + "[" + i + "]: " + text + " " + e.getMessage());
            }
        }
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", errors));
        }
        return new SelectedNames(texts, names);
    }

    public boolean isEmpty() {
        return names.isEmpty();
    }
}
