#!/usr/bin/python3
"""Counts refusals by cause: reads the replay results (replay_corpus.py --json) and the references
(catalog_refs.py), prints (1) the rule that fired first, as pgward reported it, and (2) every cause a statement
carries, each counted once per statement, so what a filtered catalog must cover is visible.

    categorise.py DENIED_FUNCTIONS_TXT refs.json replay1.json[:corpusfile] ...
"""
import json, re, sys, collections, fnmatch

def denied(path):
    pats = []
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#") and not line.startswith("["):
            pats.append(line)
    return lambda name: any(fnmatch.fnmatchcase(name, p) for p in pats)

def first_rule(msg):
    if msg is None:
        return None
    if m := re.search(r"the function (\S+)\(\) is not allowed", msg):
        return "L2 denied function " + m.group(1)
    if m := re.search(r"type (\S+) is not allowed while a table selection", msg):
        return "L3 object-identifier type " + m.group(1)
    if "which this login's table selection does not include" in msg:
        return "L3 catalog relation outside the selection"
    return msg[:80]

def main():
    is_denied = denied(sys.argv[1])
    refs = json.load(open(sys.argv[2]))
    by_sql = {r["sql"].strip(): r for r in refs}
    first, causes, total, refused = collections.Counter(), collections.Counter(), 0, 0
    for path in sys.argv[3:]:
        for rec in json.load(open(path)):
            total += 1
            p = rec["proxy"]
            if p["status"] not in ("refused", "error"):
                continue
            refused += 1
            first[first_rule(p["msg"])] += 1
            r = by_sql.get(rec["sql"].strip(), {})
            cs = set()
            for rel in r.get("relations", []):
                cs.add("relation " + rel)
            for f in r.get("functions", []):
                if is_denied(f):
                    cs.add("function " + f)
            for t in r.get("oid_types", []):
                cs.add("type " + t)
            for c in cs:
                causes[c] += 1
    print(f"{refused} of {total} statements refused\n\nfirst rule that fired:")
    for k, v in first.most_common():
        print(f"  {v:3}  {k}")
    print("\nevery cause (statements carrying it):")
    for k, v in sorted(causes.items(), key=lambda kv: (kv[0].split()[0], -kv[1], kv[0])):
        print(f"  {v:3}  {k}")

if __name__ == "__main__":
    main()
