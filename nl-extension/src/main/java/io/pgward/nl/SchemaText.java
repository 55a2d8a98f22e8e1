package io.pgward.nl;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The schema as the model reads it: one block per relation with its kind and comment, then one line per column
 * (type, NOT NULL, comment, sample values as SQL literals), then its keys. Comments are folded to one line so
 * that a comment cannot pose as another relation or as an instruction block of the prompt.
 */
final class SchemaText {

    private SchemaText() {
    }

    static String render(List<Relation> relations) {
        StringBuilder text = new StringBuilder();
        for (Relation relation : relations) {
            append(text, relation);
        }
        return text.toString();
    }

    static String render(Relation relation) {
        StringBuilder text = new StringBuilder();
        append(text, relation);
        return text.toString();
    }

    private static void append(StringBuilder text, Relation relation) {
        text.append(relation.kind().label()).append(' ').append(relation.qualifiedName());
        comment(text, relation.comment());
        text.append('\n');
        for (Relation.Column column : relation.columns()) {
            text.append("  ").append(Identifiers.quote(column.name())).append(' ').append(column.type());
            if (column.notNull()) {
                text.append(" NOT NULL");
            }
            comment(text, column.comment());
            List<String> samples = relation.samples().get(column.name());
            if (samples != null) {
                text.append(" [values: ").append(samples.stream().map(SchemaText::literal)
                        .collect(Collectors.joining(", "))).append(']');
            }
            text.append('\n');
        }
        if (!relation.primaryKey().isEmpty()) {
            text.append("  PRIMARY KEY (").append(names(relation.primaryKey())).append(")\n");
        }
        for (Relation.ForeignKey key : relation.foreignKeys()) {
            text.append("  FOREIGN KEY (").append(names(key.columns())).append(") REFERENCES ")
                    .append(key.target().qualifiedName()).append(" (").append(names(key.targetColumns()))
                    .append(")\n");
        }
        text.append('\n');
    }

    private static void comment(StringBuilder text, Optional<String> comment) {
        comment.map(SchemaText::oneLine).filter(c -> !c.isEmpty()).ifPresent(c -> text.append(" -- ").append(c));
    }

    static String oneLine(String text) {
        return text.strip().replaceAll("\\s+", " ");
    }

    private static String names(List<String> columns) {
        return columns.stream().map(Identifiers::quote).collect(Collectors.joining(", "));
    }

    private static String literal(String value) {
        return "'" + oneLine(value).replace("'", "''") + "'";
    }
}
