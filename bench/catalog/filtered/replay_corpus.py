#!/usr/bin/python3
"""Replays the tools' catalog SQL through a pgward login and, when given, directly against PostgreSQL.

    replay_corpus.py --proxy postgresql://analyst:analyst@127.0.0.1:6470/shop \
                     [--direct postgresql://pgward_analyst:PW@127.0.0.1:PORT/shop] \
                     [--corpus ../shared/catalog-corpus/tool-catalog-sql.json] [--json out.json] [--forbid a,b]

Each statement runs alone in autocommit mode on one connection per target (a failed statement does not
abort the next). Prints one line per statement (ok / refused / error, with the message's first line), then
counts. With --forbid, a statement that runs through the proxy and shows any forbidden word is a LEAK.
"""
import argparse, json, sys, collections
import psycopg2

def run(conn, sql):
    cur = conn.cursor()
    try:
        cur.execute(sql)
        rows = cur.fetchall() if cur.description else []
        return ("ok", None, rows)
    except psycopg2.Error as e:
        msg = (e.pgerror or str(e)).strip().splitlines()[0] if (e.pgerror or str(e)) else ""
        return ("refused" if e.pgcode == "42501" else "error", f"{e.pgcode} {msg}", None)
    finally:
        cur.close()

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--proxy", required=True)
    ap.add_argument("--direct")
    ap.add_argument("--corpus", default="/work/shared/catalog-corpus/tool-catalog-sql.json")
    ap.add_argument("--json")
    ap.add_argument("--forbid", default="salaries,payment_tokens")
    a = ap.parse_args()
    corpus = json.load(open(a.corpus))
    targets = {"proxy": a.proxy} | ({"direct": a.direct} if a.direct else {})
    conns = {}
    for k, dsn in targets.items():
        conns[k] = psycopg2.connect(dsn)
        conns[k].autocommit = True
    forbid = [w for w in a.forbid.split(",") if w]
    out, counts = [], collections.Counter()
    for i, case in enumerate(corpus):
        rec = {"i": i, "tool": case["tool"], "sql": case["sql"]}
        for k, c in conns.items():
            status, msg, rows = run(c, case["sql"])
            rec[k] = {"status": status, "msg": msg, "rows": None if rows is None else len(rows)}
            if k == "proxy" and rows is not None and forbid:
                text = repr(rows)
                leaks = [w for w in forbid if w in text]
                if leaks:
                    rec[k]["status"] = "LEAK"; rec[k]["leaks"] = leaks
        counts[rec["proxy"]["status"]] += 1
        d = rec.get("direct", {})
        print(f'{i:3} {case["tool"]:9} proxy={rec["proxy"]["status"]:7} rows={rec["proxy"]["rows"]}'
              + (f' direct={d["status"]} rows={d["rows"]}' if d else "")
              + (f' | {rec["proxy"]["msg"]}' if rec["proxy"]["msg"] else ""))
        out.append(rec)
    print("proxy:", dict(counts))
    if a.direct:
        print("direct:", dict(collections.Counter(r["direct"]["status"] for r in out)))
    if a.json:
        json.dump(out, open(a.json, "w"), indent=1, default=str)
    return 0

if __name__ == "__main__":
    sys.exit(main())
