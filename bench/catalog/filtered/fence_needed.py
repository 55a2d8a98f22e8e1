#!/usr/bin/python3
"""Which statements would need the fence (OFFSET 0): those whose quals (WHERE, JOIN ... ON, HAVING is left
out) call a function or operator that is neither leakproof nor on the reviewed quiet list. Reads the parse
tree PostgreSQL stores for each statement (temporary view, rolled back), collects the funcid/opfuncid inside
every ':quals' subtree, and looks their names and proleakproof up.

    fence_needed.py DSN corpus.json [more.json ...]
"""
import json, re, sys, collections, psycopg2

QUIET = {"nameregexeq", "nameregexne", "textregexeq", "textregexne", "namelike", "namenlike", "textlike",
         "textnlike", "texticregexeq", "nameicregexeq", "pg_table_is_visible", "pg_type_is_visible",
         "pg_function_is_visible", "pg_operator_is_visible", "pg_opclass_is_visible", "pg_opfamily_is_visible",
         "pg_conversion_is_visible", "pg_ts_config_is_visible", "pg_collation_is_visible",
         "has_table_privilege", "has_schema_privilege", "has_any_column_privilege", "has_column_privilege",
         "current_schemas", "current_schema", "current_database", "array_eq", "array_ne", "unnest",
         "array_to_string", "text", "int8", "int4", "int2", "array_upper", "array_lower", "generate_series",
         "format_type", "current_setting", "nameeqtext", "textcat", "obj_description", "pg_get_userbyid"}

def quals_subtrees(tree):
    out = []
    for m in re.finditer(r":quals ", tree):
        i = m.end()
        if tree[i] != "{":
            continue
        depth, j = 0, i
        while j < len(tree):
            if tree[j] == "{": depth += 1
            elif tree[j] == "}":
                depth -= 1
                if depth == 0: break
            j += 1
        out.append(tree[i:j + 1])
    return out

def main():
    conn = psycopg2.connect(sys.argv[1]); conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SELECT oid, proname, proleakproof FROM pg_proc")
    procs = {o: (n, lp) for o, n, lp in cur.fetchall()}
    need, total, culprits = 0, 0, collections.Counter()
    for path in sys.argv[2:]:
        for i, case in enumerate(json.load(open(path))):
            sql = case["sql"].strip()
            if not re.match(r"(?is)^\s*(select|with)\b", sql) or not re.search(r"(?i)pg_|information_schema", sql):
                continue
            try:
                cur.execute("BEGIN")
                cur.execute("CREATE TEMP VIEW fence_probe AS SELECT 1 AS one FROM (" + sql.rstrip(";") + "\n) s")
                cur.execute("SELECT ev_action FROM pg_rewrite WHERE ev_class = 'fence_probe'::regclass")
                tree = cur.fetchone()[0]
            except psycopg2.Error:
                continue
            finally:
                cur.execute("ROLLBACK")
            total += 1
            ids = {int(x) for q in quals_subtrees(tree) for x in re.findall(r":(?:funcid|opfuncid) (\d+)", q)}
            bad = sorted({procs[o][0] for o in ids if o in procs and not procs[o][1] and procs[o][0] not in QUIET})
            if bad:
                need += 1
                culprits.update(bad)
                print(f"fence  {path.split('/')[-1]}#{i}: {', '.join(bad)}")
    print(f"{need} of {total} catalog statements need the fence; functions that cause it: {dict(culprits)}")

if __name__ == "__main__":
    main()
