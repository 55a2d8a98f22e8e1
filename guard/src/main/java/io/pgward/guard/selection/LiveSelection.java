package io.pgward.guard.selection;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * One login's selection and its latest resolution. Safe to read from any thread; {@link #refresh} replaces the
 * resolution at once, so readers see either the old one or the new one, never a mix.
 */
public final class LiveSelection {

    private final SelectedNames selection;
    private final AtomicReference<ResolvedSelection> resolved;

    private LiveSelection(SelectedNames selection, ResolvedSelection resolved) {
        this.selection = selection;
        this.resolved = new AtomicReference<>(resolved);
    }

    /** Resolves {@code selection} now. */
    public static LiveSelection resolve(DataSource dataSource, SelectedNames selection) throws SQLException {
        LiveSelection live = new LiveSelection(Objects.requireNonNull(selection, "selection"), ResolvedSelection.NONE);
        live.refresh(dataSource);
        return live;
    }

    public SelectedNames selection() {
        return selection;
    }

    public ResolvedSelection current() {
        return resolved.get();
    }

    /** Resolves the names again, after a schema change. */
    public ResolvedSelection refresh(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            ResolvedSelection fresh = SelectionResolver.resolve(connection, selection);
            resolved.set(fresh);
            return fresh;
        }
    }
}
