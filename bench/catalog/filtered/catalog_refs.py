#!/usr/bin/python3
"""Lists what each catalog statement uses, as PostgreSQL resolves it: relations read (relid), functions called
(funcid) and object-identifier constants (consttype regclass, ...). Each SELECT is stored in a temporary view
(inside SELECT 1 FROM (...), so duplicate column names do not matter) in a transaction that rolls back, and the
stored parse tree is read back from pg_rewrite, the way pgward's catalog check reads it.

    catalog_refs.py DSN corpus.json [more.json ...] > refs.json     (DSN: a superuser or the backend role)
"""
import json, re, sys, collections
import psycopg2

REG = {2205: "regclass", 2206: "regtype", 24: "regproc", 2202: "regprocedure", 2203: "regoper",
       2204: "regoperator", 4089: "regnamespace", 4096: "regrole", 4191: "regcollation", 3734: "regconfig",
       3769: "regdictionary"}

def refs(conn, sql):
    cur = conn.cursor()
    try:
        cur.execute("BEGIN")
        cur.execute("CREATE TEMP VIEW pgward_refs_probe AS SELECT 1 AS one FROM (" + sql.rstrip().rstrip(";") + "\n) s")
        cur.execute("""SELECT r.ev_action FROM pg_rewrite r
                       WHERE r.ev_class = 'pgward_refs_probe'::regclass""")
        tree = cur.fetchone()[0]
        relids = sorted({int(x) for x in re.findall(r":relid (\d+)", tree)} - {0})
        funcids = sorted({int(x) for x in re.findall(r":(?:funcid|opfuncid) (\d+)", tree)} - {0})
        regs = sorted({REG[int(x)] for x in re.findall(r":consttype (\d+)", tree) if int(x) in REG}
                      | {REG[int(x)] for x in re.findall(r":resulttype (\d+)", tree) if int(x) in REG})
        cur.execute("SELECT c.oid, n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = ANY(%s)", (relids,))
        rels = sorted(r[1] for r in cur.fetchall())
        cur.execute("SELECT p.proname FROM pg_proc p WHERE p.oid = ANY(%s)", (funcids,))
        funcs = sorted({r[0] for r in cur.fetchall()})
        return {"relations": rels, "functions": funcs, "oid_types": regs}
    except psycopg2.Error as e:
        return {"error": (e.pgerror or str(e)).strip().splitlines()[0]}
    finally:
        conn.rollback() if not conn.autocommit else None
        try:
            cur.execute("ROLLBACK")
        except psycopg2.Error:
            pass

def main():
    conn = psycopg2.connect(sys.argv[1]); conn.autocommit = True
    out = []
    for path in sys.argv[2:]:
        for i, case in enumerate(json.load(open(path))):
            sql = case["sql"].strip()
            rec = {"file": path, "i": i, "tool": case["tool"], "source": case.get("source"), "sql": sql}
            if re.match(r"(?is)^\s*(select|with|values|table)\b", sql):
                rec |= refs(conn, sql)
            else:
                rec["skipped"] = "not a query"
            out.append(rec)
    json.dump(out, sys.stdout, indent=1)

if __name__ == "__main__":
    main()
