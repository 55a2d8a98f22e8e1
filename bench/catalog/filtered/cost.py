#!/usr/bin/python3
"""Server-side cost of the filtered catalog: each corpus statement as sent, and as rewritten, run directly
against PostgreSQL on one connection (median of N runs after a warm-up), so only the rewritten text's extra
work is measured (pgward's rewrite is cached per statement text after its first sight).

    cost.py DSN SELECTION(comma-separated) corpus.json [more.json ...]
"""
import json, statistics, sys, time, os, psycopg2
sys.path.insert(0, os.path.dirname(__file__))
import filtered_catalog as fc

N = 25

def visible(conn, selection):
    sql = open(os.path.join(os.path.dirname(__file__), "visible_sets.sql")).read()
    sql = sql.replace(":'selection'::text[]", "%s::text[]")
    with conn.cursor() as cur:
        cur.execute(sql, ("{" + ",".join(selection) + "}",))
        sets = {k: list(v or []) for k, v in cur.fetchall()}
    rels = [tuple(s.split(".")) for s in selection]
    return fc.Visible(sets), {"relations": rels,
                              "schemas": sorted({s for s, _ in rels} | {"pg_catalog", "information_schema"})}

def timed(cur, sql):
    cur.execute(sql); cur.fetchall() if cur.description else None
    xs = []
    for _ in range(N):
        t = time.perf_counter(); cur.execute(sql)
        if cur.description: cur.fetchall()
        xs.append(time.perf_counter() - t)
    return statistics.median(xs) * 1000

def main():
    conn = psycopg2.connect(sys.argv[1]); conn.autocommit = True
    v, names = visible(conn, sys.argv[2].split(","))
    rows = []
    for path in sys.argv[3:]:
        for i, case in enumerate(json.load(open(path))):
            sql = case["sql"]
            new = fc.rewrite(sql, v, names)
            if new == sql:
                continue
            with conn.cursor() as cur:
                try:
                    a = timed(cur, sql); b = timed(cur, new)
                except psycopg2.Error as e:
                    continue
            rows.append((os.path.basename(path), i, case.get("source", ""), a, b))
    rows.sort(key=lambda r: r[4] / r[3], reverse=True)
    for f, i, src, a, b in rows:
        print(f"{b / a:5.2f}x  {a:7.3f} ms -> {b:7.3f} ms  {f}#{i} {src[:50]}")
    ratios = [b / a for *_, a, b in rows]
    print(f"{len(rows)} statements; median {statistics.median(ratios):.2f}x, "
          f"over 2x: {sum(r > 2 for r in ratios)}; total {sum(r[3] for r in rows):.1f} ms -> {sum(r[4] for r in rows):.1f} ms")

if __name__ == "__main__":
    main()
