package io.pgward.guard.catalog;

import io.pgward.guard.selection.VisibleCatalog;
import java.util.Set;

/**
 * The functions initdb creates in information_schema that the code rules treat as pg_catalog built-ins (design
 * section 3.2): pure functions of their arguments (array expansion, type arithmetic), which pgjdbc's
 * {@code getPrimaryKeys} and information_schema's own views call. They are built in only with an OID below
 * FirstNormalObjectId: an information_schema dropped and created again is user code, judged by the user-function
 * rule. {@code _pg_index_position} is not listed: it reads pg_index for an index OID it is given, which could be a
 * hidden index's.
 */
final class InformationSchemaFunctions {

    private static final Set<String> PURE = Set.of("_pg_expandarray", "_pg_char_max_length", "_pg_char_octet_length",
            "_pg_datetime_precision", "_pg_interval_type", "_pg_numeric_precision", "_pg_numeric_precision_radix",
            "_pg_numeric_scale", "_pg_truetypid", "_pg_truetypmod");

    private InformationSchemaFunctions() {
    }

    static boolean builtIn(CatalogReader.Function f) {
        return f.schema().equals("information_schema") && f.oid() < VisibleCatalog.FIRST_NORMAL_OBJECT_ID
                && f.oid() > 0 && PURE.contains(f.name());
    }
}
