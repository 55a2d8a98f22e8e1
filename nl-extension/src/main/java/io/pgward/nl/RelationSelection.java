package io.pgward.nl;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** Table selections as {@link SchemaCatalog.Builder#selection} takes them. */
public final class RelationSelection {

    private RelationSelection() {
    }

    /** The relations with these pg_class oids, as the guard's catalog layer resolves a selection. */
    public static Predicate<RelationRef> oids(Collection<Long> oids) {
        Set<Long> set = Set.copyOf(oids);
        return ref -> set.contains(ref.oid());
    }

    /**
     * The relations with these names: {@code schema.name}, with PostgreSQL's quoting and folding rules; a bare
     * name means a relation of that name in schema {@code public}.
     */
    public static Predicate<RelationRef> names(Collection<String> names) {
        Set<List<String>> wanted = names.stream().map(name -> {
            List<String> parts = SchemaSnapshot.NameParts.split(name);
            if (parts.isEmpty() || parts.size() > 2) {
                throw new IllegalArgumentException("not a relation name: " + name);
            }
            return parts.size() == 1 ? List.of("public", parts.getFirst()) : parts;
        }).collect(Collectors.toUnmodifiableSet());
        return ref -> wanted.contains(List.of(ref.schema(), ref.name()));
    }
}
