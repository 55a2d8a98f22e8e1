package io.pgward.it;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * psql's describe commands for CatalogOracleIT ({@code catalog-oracle/psql-commands.txt}), one psql process per
 * command: what it printed on stdout, on stderr (its errors) and its exit status.
 */
final class PsqlItems {

    private PsqlItems() {
    }

    static List<String> commands() throws IOException {
        try (InputStream in = PsqlItems.class.getResourceAsStream("catalog-oracle/psql-commands.txt")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        }
    }

    static Map<String, String> run(Target target) throws IOException {
        Path psql = RealClients.require("psql");
        Map<String, String> items = new LinkedHashMap<>();
        for (String command : commands()) {
            // -X: no ~/.psqlrc; no pager; the command's own output only.
            RealClients.Result r = RealClients.run(List.of(psql.toString(), "-X", "-P", "pager=off", target.uri(),
                    "-c", command));
            items.put(command, r.out() + (r.err().isEmpty() ? "" : "[stderr]\n" + r.err())
                    + (r.exit() == 0 ? "" : "[exit " + r.exit() + "]\n"));
        }
        return items;
    }
}
