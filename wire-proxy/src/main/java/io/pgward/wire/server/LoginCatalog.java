package io.pgward.wire.server;

import com.zaxxer.hikari.HikariDataSource;
import io.pgward.guard.catalog.CatalogCheck;
import io.pgward.guard.catalog.TableSelection;
import io.pgward.guard.selection.LiveSelection;
import io.pgward.guard.selection.ResolvedSelection;
import io.pgward.guard.selection.SelectedNames;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the catalog layer knows of one read-only login on one database: the check that proves its statements
 * (shared by every login with the same backend role), a control pool for pgward's own catalog reads as that role,
 * and its table selection as last resolved. The selection is resolved again after every schema change the check
 * notices, so a selected table dropped and created again under its name is found again.
 */
final class LoginCatalog {

    private static final Logger log = LoggerFactory.getLogger(LoginCatalog.class);

    private final String login;
    private final CatalogCheck check;
    private final HikariDataSource control;
    private final LiveSelection selection;
    // The last resolution and its TableSelection: every statement asks for it, and it changes only with the schema.
    private volatile Converted converted;

    private record Converted(ResolvedSelection from, TableSelection to) {
    }

    LoginCatalog(String login, CatalogCheck check, HikariDataSource control, SelectedNames names) throws SQLException {
        this.login = login;
        this.check = check;
        this.control = control;
        this.selection = names.isEmpty() ? null : LiveSelection.resolve(control, names);
        if (selection != null) {
            report(selection.current());
            check.onSchemaChange(this::refresh);
        }
    }

    CatalogCheck check() {
        return check;
    }

    HikariDataSource control() {
        return control;
    }

    /** The selection as the catalog check takes it: OIDs and names in list order; NONE without a selection. */
    TableSelection tableSelection() {
        ResolvedSelection resolved = resolved();
        if (!resolved.isSet() && !resolved.noneExists()) {
            return TableSelection.NONE;
        }
        Converted last = converted;
        if (last != null && last.from() == resolved) {
            return last.to();
        }
        TableSelection selection = new TableSelection(resolved.relations().stream()
                .map(r -> new io.pgward.guard.catalog.SelectedRelation(r.oid(), r.displayName())).toList(),
                resolved.noneExists());
        converted = new Converted(resolved, selection);
        return selection;
    }

    ResolvedSelection resolved() {
        return selection == null ? ResolvedSelection.NONE : selection.current();
    }

    private void refresh() {
        try {
            report(selection.refresh(control));
        } catch (SQLException | RuntimeException e) {
            log.warn("re-resolving the table selection of login \"{}\" failed ({}); the last one stands", login,
                    e.getMessage());
        }
    }

    private void report(ResolvedSelection resolved) {
        if (resolved.noneExists()) {
            log.warn("login \"{}\": none of its selected tables or views exists; every statement is refused", login);
        } else if (!resolved.missing().isEmpty()) {
            log.warn("login \"{}\": selected relations that do not exist are left out: {}", login, resolved.missing());
        }
    }
}
