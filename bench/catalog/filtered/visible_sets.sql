-- The OIDs a read-only login with a selection may see, per catalog, computed once per selection (and again
-- after a schema change) on the control connection. :'selection' is a text[] of qualified names.
-- Built-in objects (oid < 16384, FirstNormalObjectId) are always visible and are not listed here.
WITH RECURSIVE
sel AS (SELECT pg_catalog.to_regclass(n)::pg_catalog.oid AS oid FROM pg_catalog.unnest(:'selection'::text[]) n),
rel AS (                      -- the selection, its indexes, owned sequences, TOAST tables and their indexes
    SELECT oid FROM sel WHERE oid IS NOT NULL
    UNION SELECT i.indexrelid FROM pg_catalog.pg_index i JOIN sel ON i.indrelid = sel.oid
    UNION SELECT d.objid FROM pg_catalog.pg_depend d JOIN sel ON d.refobjid = sel.oid
          WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refclassid = d.classid
            AND d.deptype IN ('a', 'i')
    UNION SELECT c.reltoastrelid FROM pg_catalog.pg_class c JOIN sel ON c.oid = sel.oid WHERE c.reltoastrelid <> 0
),
typ0 AS (                     -- row types of those relations and the types of their columns
    SELECT c.reltype AS oid FROM pg_catalog.pg_class c JOIN rel ON c.oid = rel.oid WHERE c.reltype <> 0
    UNION SELECT a.atttypid FROM pg_catalog.pg_attribute a JOIN sel ON a.attrelid = sel.oid WHERE NOT a.attisdropped
),
typ AS (                      -- closed over element, base, array, range-subtype and composite-attribute types
    SELECT oid FROM typ0
    UNION
    SELECT v.x FROM typ JOIN pg_catalog.pg_type t ON t.oid = typ.oid
    CROSS JOIN LATERAL (SELECT t.typelem UNION ALL SELECT t.typbasetype UNION ALL SELECT t.typarray
          UNION ALL SELECT r.rngsubtype FROM pg_catalog.pg_range r WHERE r.rngtypid = t.oid
          UNION ALL SELECT a.atttypid FROM pg_catalog.pg_attribute a
                    WHERE a.attrelid = t.typrelid AND t.typtype = 'c' AND a.attnum > 0) v(x)
    WHERE v.x <> 0
)
SELECT 'pg_class' AS catalog, pg_catalog.array_agg(oid ORDER BY oid) FROM rel WHERE oid >= 16384
UNION ALL SELECT 'selection', pg_catalog.array_agg(oid ORDER BY oid) FROM sel
UNION ALL SELECT 'pg_type', pg_catalog.array_agg(oid ORDER BY oid) FROM typ WHERE oid >= 16384
UNION ALL SELECT 'pg_namespace', pg_catalog.array_agg(DISTINCT c.relnamespace) FROM pg_catalog.pg_class c
          JOIN rel ON c.oid = rel.oid WHERE c.relnamespace >= 16384 OR c.relnamespace = 2200
UNION ALL SELECT 'pg_constraint', pg_catalog.array_agg(k.oid ORDER BY k.oid) FROM pg_catalog.pg_constraint k
          WHERE (k.conrelid IN (SELECT oid FROM sel) AND (k.confrelid = 0 OR k.confrelid IN (SELECT oid FROM sel)))
             OR k.contypid IN (SELECT oid FROM typ)
UNION ALL SELECT 'pg_attrdef', pg_catalog.array_agg(d.oid ORDER BY d.oid) FROM pg_catalog.pg_attrdef d
          WHERE d.adrelid IN (SELECT oid FROM sel)
UNION ALL SELECT 'pg_rewrite', pg_catalog.array_agg(r.oid ORDER BY r.oid) FROM pg_catalog.pg_rewrite r
          WHERE r.ev_class IN (SELECT oid FROM sel)
UNION ALL SELECT 'pg_roles', pg_catalog.array_agg(DISTINCT o) FROM (
          SELECT c.relowner AS o FROM pg_catalog.pg_class c JOIN rel ON c.oid = rel.oid
          UNION SELECT t.typowner FROM pg_catalog.pg_type t JOIN typ ON t.oid = typ.oid
          UNION SELECT n.nspowner FROM pg_catalog.pg_namespace n WHERE n.oid = 2200
          UNION SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = current_user) o;
