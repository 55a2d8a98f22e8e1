package io.pgward.guard.catalog;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The parse-node tags pgward reads in stored query trees of PostgreSQL 14 to 18, and which of their fields name
 * catalog objects. A tag not listed here is refused: a node pgward does not know may hide a relation or a function.
 *
 * <p>PostgreSQL 14 and 15 write some tags with short names (outfuncs.c was hand-written: {@code RTE},
 * {@code COALESCE}, {@code ROW}, {@code CASE}, {@code WHEN}, {@code ARRAY}, {@code MINMAX}, {@code COLLATE},
 * {@code ROWCOMPARE}); 16 generates outfuncs from the struct names ({@code RANGETBLENTRY}, {@code COALESCEEXPR}, ...).
 * Both spellings are listed. Field names come from the node structs (primnodes.h, parsenodes.h), which name the same
 * fields in every version.
 *
 * <p>Every other field is still walked: nested nodes and lists are visited whatever their field is called. As a
 * second net, a numeric field whose name reads as an object reference (…type, …typid, …funcid, …opno, relid) is
 * collected even when the table below does not list it; see {@link QueryTreeWalker}.
 */
final class NodeTags {

    /** What an OID-valued field refers to. */
    enum Ref { RELATION, FUNCTION, OPERATOR, TYPE, TYPE_LIST, OPERATOR_LIST, NONE }

    private static final Map<String, Map<String, Ref>> TAGS = new HashMap<>();

    static {
        // Statements and clauses
        tag("QUERY");
        tag("TARGETENTRY", "resorigtbl", Ref.NONE);   // the output column's origin, already an RTE of its own
        tag("FROMEXPR");
        tag("JOINEXPR");
        tag("RANGETBLREF");
        tag("ALIAS");
        tag("SORTGROUPCLAUSE", "eqop", Ref.OPERATOR, "sortop", Ref.OPERATOR);
        tag("GROUPINGSET");
        tag("WINDOWCLAUSE", "startInRangeFunc", Ref.FUNCTION, "endInRangeFunc", Ref.FUNCTION);
        tag("COMMONTABLEEXPR", "ctecoltypes", Ref.TYPE_LIST);
        tag("CTESEARCHCLAUSE");
        tag("ROWMARKCLAUSE");   // FOR UPDATE and friends: noted by the walker as not only reading
        tag("CTECYCLECLAUSE", "cycle_mark_type", Ref.TYPE, "cycle_mark_neop", Ref.OPERATOR);
        tag("SETOPERATIONSTMT", "colTypes", Ref.TYPE_LIST);
        both("RTE", "RANGETBLENTRY", "relid", Ref.RELATION, "coltypes", Ref.TYPE_LIST);
        tag("RTEPERMISSIONINFO", "relid", Ref.RELATION);
        tag("RANGETBLFUNCTION", "funccoltypes", Ref.TYPE_LIST);
        tag("TABLESAMPLECLAUSE", "tsmhandler", Ref.FUNCTION);
        tag("TABLEFUNC", "coltypes", Ref.TYPE_LIST);

        // Expressions
        tag("VAR", "vartype", Ref.TYPE);
        tag("CONST", "consttype", Ref.TYPE);
        tag("PARAM", "paramtype", Ref.TYPE);
        tag("AGGREF", "aggfnoid", Ref.FUNCTION, "aggtype", Ref.TYPE, "aggtranstype", Ref.TYPE,
                "aggargtypes", Ref.TYPE_LIST);
        tag("GROUPINGFUNC");
        tag("WINDOWFUNC", "winfnoid", Ref.FUNCTION, "wintype", Ref.TYPE);
        tag("SUBSCRIPTINGREF", "refcontainertype", Ref.TYPE, "refelemtype", Ref.TYPE, "refrestype", Ref.TYPE);
        tag("FUNCEXPR", "funcid", Ref.FUNCTION, "funcresulttype", Ref.TYPE);
        tag("NAMEDARGEXPR");
        for (String op : new String[] {"OPEXPR", "DISTINCTEXPR", "NULLIFEXPR"}) {
            tag(op, "opno", Ref.OPERATOR, "opfuncid", Ref.FUNCTION, "opresulttype", Ref.TYPE);
        }
        tag("SCALARARRAYOPEXPR", "opno", Ref.OPERATOR, "opfuncid", Ref.FUNCTION, "hashfuncid", Ref.FUNCTION,
                "negfuncid", Ref.FUNCTION);
        tag("BOOLEXPR");
        tag("SUBLINK");
        tag("FIELDSELECT", "resulttype", Ref.TYPE);
        tag("FIELDSTORE", "resulttype", Ref.TYPE);
        tag("RELABELTYPE", "resulttype", Ref.TYPE);
        tag("COERCEVIAIO", "resulttype", Ref.TYPE);
        tag("ARRAYCOERCEEXPR", "resulttype", Ref.TYPE);
        tag("CONVERTROWTYPEEXPR", "resulttype", Ref.TYPE);
        both("COLLATE", "COLLATEEXPR");
        both("CASE", "CASEEXPR", "casetype", Ref.TYPE);
        both("WHEN", "CASEWHEN");
        tag("CASETESTEXPR", "typeId", Ref.TYPE);
        both("ARRAY", "ARRAYEXPR", "array_typeid", Ref.TYPE, "element_typeid", Ref.TYPE);
        both("ROW", "ROWEXPR", "row_typeid", Ref.TYPE);
        both("ROWCOMPARE", "ROWCOMPAREEXPR", "opnos", Ref.OPERATOR_LIST);
        both("COALESCE", "COALESCEEXPR", "coalescetype", Ref.TYPE);
        both("MINMAX", "MINMAXEXPR", "minmaxtype", Ref.TYPE);
        tag("SQLVALUEFUNCTION", "type", Ref.TYPE);
        tag("XMLEXPR", "type", Ref.TYPE);
        tag("NULLTEST");
        tag("BOOLEANTEST");
        tag("COERCETODOMAIN", "resulttype", Ref.TYPE);
        tag("COERCETODOMAINVALUE", "typeId", Ref.TYPE);
        tag("SETTODEFAULT", "typeId", Ref.TYPE);

        // SQL/JSON (16 and later)
        tag("JSONFORMAT");
        tag("JSONRETURNING", "typid", Ref.TYPE);
        tag("JSONVALUEEXPR");
        tag("JSONCONSTRUCTOREXPR");
        tag("JSONISPREDICATE");
        tag("JSONEXPR", "collation", Ref.NONE);
        tag("JSONBEHAVIOR");
        tag("JSONTABLEPATH");
        tag("JSONTABLEPATHSCAN");
        tag("JSONTABLESIBLINGJOIN");
    }

    /** Field names that refer to collations or other objects that cannot run code; never collected. */
    static final Set<String> IGNORED_OID_FIELDS = Set.of("varcollid", "constcollid", "inputcollid", "aggcollid",
            "wincollid", "funccollid", "opcollid", "resultcollid", "collOid", "casecollid", "coalescecollid",
            "minmaxcollid", "refcollid", "colcollations", "funccolcollations", "ctecolcollations", "inputcollids",
            "opfamilies", "collations", "colCollations", "cycle_mark_collation", "paramcollid", "inRangeColl",
            "resorigtbl", "resorigcol", "collation", "rowidcollid", "typmod", "consttypmod", "vartypmod");

    private NodeTags() {
    }

    static boolean known(String tag) {
        return TAGS.containsKey(tag);
    }

    static Map<String, Ref> fields(String tag) {
        Map<String, Ref> f = TAGS.get(tag);
        if (f == null) {
            throw new NodeTreeException("unknown parse node " + tag);
        }
        return f;
    }

    private static void both(String pg14, String pg16, Object... fields) {
        tag(pg14, fields);
        tag(pg16, fields);
    }

    private static void tag(String tag, Object... fields) {
        Map<String, Ref> f = new HashMap<>();
        for (int i = 0; i < fields.length; i += 2) {
            f.put((String) fields[i], (Ref) fields[i + 1]);
        }
        TAGS.put(tag, Map.copyOf(f));
    }
}
