package io.pgward.nl;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything a login may read, as reflected at one moment. Immutable; a refresh replaces the whole snapshot.
 *
 * @param relations in schema, then name order
 * @param reflectedAt when the reflection finished
 */
public record SchemaSnapshot(List<Relation> relations, Instant reflectedAt) {

    public SchemaSnapshot {
        relations = List.copyOf(relations);
        Objects.requireNonNull(reflectedAt, "reflectedAt");
    }

    /**
     * The relation a name means: {@code schema.name} (quoted parts allowed), or a bare name that matches exactly
     * one relation. Unquoted parts fold to lower case as PostgreSQL folds them.
     */
    public Optional<Relation> find(String name) {
        List<String> parts = NameParts.split(name);
        if (parts.isEmpty() || parts.size() > 2) {
            return Optional.empty();
        }
        List<Relation> matches = relations.stream()
                .filter(r -> r.ref().name().equals(parts.getLast()))
                .filter(r -> parts.size() == 1 || r.ref().schema().equals(parts.getFirst()))
                .toList();
        return matches.size() == 1 ? Optional.of(matches.getFirst()) : Optional.empty();
    }

    /** Splits {@code a.b} / {@code "A"."b.c"} into identifiers, folding unquoted ones; empty when malformed. */
    static final class NameParts {

        private NameParts() {
        }

        static List<String> split(String name) {
            List<String> parts = new java.util.ArrayList<>();
            StringBuilder current = new StringBuilder();
            int i = 0;
            boolean expectPart = true;
            String text = name.strip();
            while (i < text.length()) {
                char c = text.charAt(i);
                if (expectPart && c == '"') {
                    int j = i + 1;
                    while (true) {
                        int quote = text.indexOf('"', j);
                        if (quote < 0) {
                            return List.of();
                        }
                        if (quote + 1 < text.length() && text.charAt(quote + 1) == '"') {
                            current.append(text, j, quote + 1);
                            j = quote + 2;
                        } else {
                            current.append(text, j, quote);
                            i = quote + 1;
                            break;
                        }
                    }
                    parts.add(current.toString());
                    current.setLength(0);
                    expectPart = false;
                } else if (c == '.' && !expectPart) {
                    expectPart = true;
                    i++;
                } else if (expectPart && c != '.') {
                    int end = text.indexOf('.', i);
                    end = end < 0 ? text.length() : end;
                    String part = text.substring(i, end).strip();
                    if (part.isEmpty() || part.contains("\"")) {
                        return List.of();
                    }
                    parts.add(Identifiers.fold(part));
                    i = end;
                    expectPart = false;
                } else {
                    return List.of();
                }
            }
            return expectPart ? List.of() : parts;
        }
    }
}
