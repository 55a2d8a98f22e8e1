package io.pgward.guard.catalog;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/** TEST ONLY: the guard corpus's fixture and the selection its README names. */
final class GuardFixture {

    static final List<String> SELECTED = List.of("public.orders", "public.customers", "public.v_sales",
            "public.mv_region");

    private GuardFixture() {
    }

    static Path corpusDirectory() {
        return io.pgward.guard.classify.CorpusFiles.corpusPath().getParent();
    }

    /** Runs fixture.sql; the role it creates is cluster-wide, so an earlier run may have made it already. */
    static void load(Connection owner) throws IOException, SQLException {
        String text = Files.readString(corpusDirectory().resolve("fixture.sql"));
        try (Statement s = owner.createStatement()) {
            for (String statement : text.split(";\\s*\\n")) {
                String sql = statement.strip();
                if (sql.isEmpty()) {
                    continue;
                }
                if (sql.startsWith("CREATE ROLE ")) {
                    sql = "DO $$ BEGIN " + sql + "; EXCEPTION WHEN duplicate_object THEN NULL; END $$";
                }
                s.execute(sql);
            }
        }
    }

    /** The selection, resolved the simplest way (resolution proper is not the catalog check's job). */
    static TableSelection selection(Connection owner) throws SQLException {
        return selection(owner, SELECTED);
    }

    static TableSelection selection(Connection owner, List<String> names) throws SQLException {
        List<SelectedRelation> relations = new java.util.ArrayList<>();
        for (String name : names) {
            try (var ps = owner.prepareStatement("SELECT to_regclass(?)::oid")) {
                ps.setString(1, name);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    long oid = rs.getLong(1);
                    if (!rs.wasNull()) {
                        relations.add(new SelectedRelation(oid, name));
                    }
                }
            }
        }
        return new TableSelection(relations, relations.isEmpty() && !names.isEmpty());
    }
}
