package io.pgward.guard.selection;

/** The kinds of pg_class entries that can be selected and read, with the words pgward shows for them. */
public enum RelationKind {
    TABLE('r', "table"),
    /** Shown as a table: to the reader it is one. */
    PARTITIONED_TABLE('p', "table"),
    FOREIGN_TABLE('f', "foreign table"),
    VIEW('v', "view"),
    MATERIALIZED_VIEW('m', "materialized view");

    /** The relkind values of all kinds, for {@code relkind IN (...)}. */
    static final String RELKINDS_SQL = "('r', 'p', 'f', 'v', 'm')";

    private final char relkind;
    private final String label;

    RelationKind(char relkind, String label) {
        this.relkind = relkind;
        this.label = label;
    }

    public String label() {
        return label;
    }

    public boolean isView() {
        return this == VIEW || this == MATERIALIZED_VIEW;
    }

    /** Tables, views and materialized views; foreign tables are not sampled (a sample would reach another server). */
    boolean isSampled() {
        return this != FOREIGN_TABLE;
    }

    static RelationKind of(String relkind) {
        for (RelationKind kind : values()) {
            if (relkind.length() == 1 && kind.relkind == relkind.charAt(0)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("not a selectable relkind: " + relkind);
    }
}
