-- Hostile catalog statements an analyst might write by hand, run like the tool corpus (CatalogOracleIT): each
-- must give what the oracle gives (so a count or a gap never reveals a hidden row), and none may show a hidden
-- word. Blocks are separated by a blank line; each starts with "-- <item name>".

-- quoted catalog names
SELECT relname FROM "pg_catalog"."pg_class" WHERE relname ~ '^(orders|salaries|payment_tokens)$' ORDER BY 1

-- spaces and comments between the tokens
SELECT relname FROM pg_catalog /* c */ . /* d */ pg_class WHERE relname LIKE '%tokens%' OR relname = 'salaries'

-- unicode escapes in the name
SELECT relname FROM U&"pg\005fcatalog".U&"pg\005fclass" WHERE relname = 'salaries'

-- count of relations with six columns
SELECT count(*) FROM pg_catalog.pg_class WHERE relnatts = 6

-- counts by kind
SELECT relkind, count(*) FROM pg_class WHERE oid >= 16384 GROUP BY relkind ORDER BY 1

-- largest visible OIDs
SELECT max(oid)::text FROM pg_class WHERE oid >= 16384

-- a CTE over the catalog
WITH c AS (SELECT * FROM pg_class) SELECT relname FROM c WHERE relname LIKE '%sal%' OR relname LIKE '%tok%'

-- a CTE named like the catalog
WITH pg_class AS (SELECT 'decoy'::name AS relname) SELECT relname FROM pg_class

-- set operations
SELECT relname::text FROM pg_class WHERE relnamespace <> 11 UNION SELECT nspname::text FROM pg_namespace EXCEPT SELECT 'x' ORDER BY 1

-- LATERAL from schemas to relations
SELECT n.nspname, x.relname FROM pg_namespace n, LATERAL (SELECT relname FROM pg_class c WHERE c.relnamespace = n.oid AND c.relkind = 'r') x WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2

-- correlated subquery counting columns
SELECT c.relname, (SELECT count(*) FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0) FROM pg_class c WHERE c.relkind = 'r' AND c.oid >= 16384 ORDER BY 1

-- hidden columns by name
SELECT attname FROM pg_attribute WHERE attname IN ('token', 'salary', 'department', 'card_brand', 'bonus')

-- a division that fails on a hidden row (hr.orders is the only user table with three columns)
SELECT count(*) FROM pg_class c WHERE CASE WHEN c.relkind = 'r' AND c.oid >= 16384 THEN 10 / (c.relnatts - 3) ELSE 1 END > -100

-- namesakes: every relation called orders
SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = 'orders'

-- namesakes: every type called order_status and its labels
SELECT t.typname, e.enumlabel FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid WHERE t.typname = 'order_status' ORDER BY e.enumsortorder

-- constraints touching customers (payment_tokens has a foreign key to it)
SELECT conname, contype FROM pg_constraint WHERE conrelid = (SELECT oid FROM pg_class WHERE relname = 'customers' AND relnamespace = 2200) OR confrelid = (SELECT oid FROM pg_class WHERE relname = 'customers' AND relnamespace = 2200) ORDER BY 1

-- row types of relations
SELECT count(*) FROM pg_type WHERE typrelid <> 0 AND oid >= 16384

-- sequences and indexes by name
SELECT relname FROM pg_class WHERE relkind IN ('S', 'i') AND oid >= 16384 ORDER BY 1

-- attributes of a hidden relation by OID arithmetic
SELECT a.attrelid > 0, a.attname FROM pg_attribute a WHERE a.attrelid IN (SELECT generate_series(16384, 17000)::oid) AND a.attnum > 0 AND a.attname NOT IN (SELECT attname FROM pg_attribute WHERE attrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 2200)) ORDER BY 2

-- a regclass constant naming a hidden relation
SELECT 'hr.salaries'::regclass::oid

-- a regclass constant naming an absent relation in the hidden schema
SELECT 'hr.nosuch'::regclass::oid

-- a regclass constant naming a hidden relation in public
SELECT 'public.payment_tokens'::regclass::oid

-- a regclass constant naming an absent relation in public
SELECT 'public.nosuch'::regclass::oid

-- to_regclass of a hidden relation
SELECT to_regclass('public.payment_tokens') IS NULL

-- a catalog function on an invented OID range
SELECT count(pg_get_indexdef(i)) FROM generate_series(16384, 17000) i

-- an index definition through pg_index
SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid >= 16384 ORDER BY 1

-- comments of every relation
SELECT c.relname, d.description FROM pg_class c JOIN pg_description d ON d.objoid = c.oid AND d.objsubid = 0 WHERE c.oid >= 16384 ORDER BY 1

-- information_schema
SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2

-- statistics of every column
SELECT tablename, attname FROM pg_stats WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2

-- a prepared statement over the catalog
PREPARE p(name) AS SELECT relname FROM pg_class WHERE relname = $1; EXECUTE p('salaries')

-- roles
SELECT rolname FROM pg_roles ORDER BY 1

-- the schema's access privileges (pgward_app may create in public)
SELECT nspname, nspacl::text FROM pg_namespace WHERE nspname = 'public'

-- a table's access privileges and owner
SELECT relname, relacl::text, relowner > 0 FROM pg_class WHERE relname = 'orders' AND relnamespace = 2200

-- search_path pointing at the hidden schema
SET search_path = hr, public; SELECT count(*) FROM pg_class WHERE relname = 'orders'
