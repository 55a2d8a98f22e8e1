#!/usr/bin/python3
"""Replays the guard corpus's catalog-metadata cases through a login (or the prototype relay) and reports,
per case, whether it ran, failed or showed one of its forbidden words.

    guard_corpus_catalog.py DSN [/work/shared/guard-corpus/cases.jsonl]
"""
import json, sys, psycopg2

def main():
    path = sys.argv[2] if len(sys.argv) > 2 else "/work/shared/guard-corpus/cases.jsonl"
    cases = [json.loads(l) for l in open(path)]
    conn = psycopg2.connect(sys.argv[1]); conn.autocommit = True
    for x in (c for c in cases if c["category"] == "catalog-metadata"):
        cur = conn.cursor()
        try:
            cur.execute(x["sql"])
            rows = cur.fetchall() if cur.description else []
            forbidden = x.get("forbidden") or ["secrets", "salaries", "v_leak", "tok_live"]
            leak = [w for w in forbidden if w in repr(rows)]
            status = f"LEAK {leak}" if leak else f"ran, {len(rows)} rows"
        except psycopg2.Error as e:
            status = "error " + (e.pgerror or str(e)).strip().splitlines()[0][:90]
        print(f"{x['id']:7} {x['expect']:8} {status}  | {x['sql'][:80]}")

if __name__ == "__main__":
    main()
