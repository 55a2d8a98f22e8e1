#!/usr/bin/python3
"""Research prototype of the filtered catalog's statement rewrite (not pgward's implementation).

Every reference to a covered catalog relation, qualified (pg_catalog.pg_class) or not (pg_class), becomes a
subquery of the same name and columns that returns only built-in rows and rows of the selection:

    pg_catalog.pg_class c  →  (SELECT * FROM pg_catalog.pg_class WHERE <filter> OFFSET 0) c
    pg_class               →  (SELECT * FROM pg_catalog.pg_class WHERE <filter> OFFSET 0) AS pg_class

OFFSET 0 keeps the planner from pulling the subquery up or pushing the statement's own predicates below the
filter, so no expression of the statement is ever evaluated on a hidden row (see the design document).

The tokenizer here is a small stand-in for pgward's SqlLexer: strings, dollar quotes, quoted identifiers and
comments are skipped; a name counts as a relation reference unless it is followed by '.', or preceded by '.'
(other than pg_catalog.), '::' or AS. pgward does this on its real tokens and then proves the result with the
catalog check (every covered catalog relation must sit inside a filter subquery of the expected shape).
"""
import os, re

# " OFFSET 0" keeps the statement's own predicates above the filter; PGWARD_FENCE=off measures the unfenced shape.
FENCE = "" if os.environ.get("PGWARD_FENCE") == "off" else " OFFSET 0"

TOKEN = re.compile(r"""
    (?P<ws>\s+) | (?P<comment>--[^\n]*|/\*.*?\*/) |
    (?P<string>[Ee]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*') |
    (?P<dollar>\$(?P<tag>[A-Za-z_]*)\$.*?\$(?P=tag)\$) |
    (?P<qident>"(?:[^"]|"")*") | (?P<ident>[A-Za-z_][A-Za-z_0-9$]*) |
    (?P<num>\d+(?:\.\d*)?) | (?P<op>::|[^\sA-Za-z_0-9])
""", re.S | re.X)

# A bare alias can follow a table reference unless it is one of these (PostgreSQL reserved words that can
# follow a FROM item).
NOT_ALIAS = {"where", "join", "left", "right", "inner", "full", "cross", "natural", "on", "using", "group",
             "order", "limit", "offset", "union", "except", "intersect", "window", "having", "for", "fetch",
             "tablesample", "returning", "outer", "lateral", "and", "or", "then", "else", "end", "when"}

def tokens(sql):
    pos, out = 0, []
    while pos < len(sql):
        m = TOKEN.match(sql, pos)
        if not m:
            raise ValueError(f"cannot read the text at {pos}")
        kind = m.lastgroup if m.lastgroup != "tag" else "dollar"
        if m.group("dollar"):
            kind = "dollar"
        out.append((kind, m.group(0)))
        pos = m.end()
    return out

class Visible:
    """The per-catalog OID sets of one selection (visible_sets.sql), rendered as SQL constants."""
    def __init__(self, sets):
        self.sets = sets
    def arr(self, name):
        return "'{" + ",".join(str(o) for o in self.sets.get(name, [])) + "}'::pg_catalog.oid[]"

def filters(v):
    cls, typ, ns, con = v.arr("pg_class"), v.arr("pg_type"), v.arr("pg_namespace"), v.arr("pg_constraint")
    sel, roles = v.arr("selection"), v.arr("pg_roles")
    builtin_ns = "nspname IN ('pg_catalog', 'information_schema')"
    return {
        "pg_class": f"oid < 16384 OR oid = ANY ({cls})",
        "pg_attribute": f"attrelid < 16384 OR attrelid = ANY ({cls})",
        "pg_namespace": f"{builtin_ns} OR oid = ANY ({ns})",
        "pg_type": f"oid < 16384 OR oid = ANY ({typ})",
        "pg_enum": f"enumtypid = ANY ({typ})",
        "pg_range": f"rngtypid < 16384 OR rngtypid = ANY ({typ})",
        "pg_constraint": f"oid < 16384 OR oid = ANY ({con})",
        "pg_index": f"indexrelid < 16384 OR indexrelid = ANY ({cls})",
        "pg_attrdef": f"oid = ANY ({v.arr('pg_attrdef')})",
        "pg_inherits": f"inhrelid = ANY ({cls}) AND inhparent = ANY ({cls})",
        "pg_description": (f"objoid < 16384 AND classoid <> 2615 OR classoid = 1259 AND objoid = ANY ({cls})"
                           f" OR classoid = 1247 AND objoid = ANY ({typ}) OR classoid = 2615 AND objoid = ANY ({ns})"
                           f" OR classoid = 2606 AND objoid = ANY ({con})"),
        "pg_depend": f"(objid < 16384 OR objid = ANY ({cls}) OR objid = ANY ({typ}) OR objid = ANY ({con}))"
                     f" AND (refobjid < 16384 OR refobjid = ANY ({cls}) OR refobjid = ANY ({typ}))",
        "pg_rewrite": f"oid < 16384 OR oid = ANY ({v.arr('pg_rewrite')})",
        "pg_trigger": f"tgrelid = ANY ({sel}) AND tgfoid < 16384",
        "pg_policy": f"polrelid = ANY ({sel})",
        "pg_statistic_ext": f"stxrelid = ANY ({sel})",
        "pg_sequence": f"seqrelid = ANY ({cls})",
        "pg_proc": "oid < 16384", "pg_operator": "oid < 16384", "pg_am": "oid < 16384",
        "pg_collation": "oid < 16384", "pg_opclass": "oid < 16384", "pg_opfamily": "oid < 16384",
        "pg_cast": "oid < 16384", "pg_language": "oid < 16384", "pg_extension": "oid < 16384",
        "pg_conversion": "oid < 16384", "pg_ts_config": "oid < 16384", "pg_tablespace": "oid < 16384",
        "pg_publication": "false", "pg_publication_rel": "false", "pg_publication_namespace": "false",
        "pg_foreign_data_wrapper": "oid < 16384", "pg_foreign_server": "false", "pg_event_trigger": "false",
        "pg_roles": f"oid = ANY ({roles})", "pg_user": f"usesysid = ANY ({roles})",
        "pg_auth_members": f"roleid = ANY ({roles}) AND member = ANY ({roles})",
        "pg_database": "datname = pg_catalog.current_database()",
        "pg_db_role_setting": "false", "pg_shdescription": "false",
        "pg_stat_user_tables": f"relid = ANY ({sel})", "pg_statio_user_tables": f"relid = ANY ({sel})",
        "pg_stat_all_tables": f"relid = ANY ({sel})",
        "pg_stats": f"(schemaname || '.' || tablename)::pg_catalog.regclass = ANY ({sel})",
        "pg_tables": f"(schemaname || '.' || tablename)::pg_catalog.regclass = ANY ({sel})",
        "pg_views": f"(schemaname || '.' || viewname)::pg_catalog.regclass = ANY ({sel})",
        "pg_matviews": f"(schemaname || '.' || matviewname)::pg_catalog.regclass = ANY ({sel})",
        "pg_settings": "name = ANY ('{server_version,server_version_num,server_encoding,client_encoding,"
                       "DateStyle,IntervalStyle,TimeZone,integer_datetimes,standard_conforming_strings,"
                       "search_path,default_transaction_read_only,transaction_read_only,"
                       "max_identifier_length,lc_collate,lc_ctype,max_index_keys,block_size}'::text[])",
    }

INFO_SCHEMA = {  # information_schema views: filtered on the names they expose (schema, name)
    "tables": ("table_schema", "table_name"), "columns": ("table_schema", "table_name"),
    "views": ("table_schema", "table_name"), "table_constraints": ("table_schema", "table_name"),
    "key_column_usage": ("table_schema", "table_name"), "schemata": ("schema_name", None),
}

def rewrite(sql, v, info_names):
    """info_names: the selection as (schema, name) pairs plus built-in schemas, for information_schema views."""
    f = filters(v)
    toks = tokens(sql)
    sig = [i for i, (k, _) in enumerate(toks) if k not in ("ws", "comment")]
    out, skip = [], set()
    def low(i):
        k, t = toks[i]
        return t.lower() if k == "ident" else t[1:-1].replace('""', '"') if k == "qident" else t
    named = {low(i) for i in sig if toks[i][0] in ("ident", "qident")}
    system_columns = "".join(c + ", " for c in ("tableoid", "xmin", "xmax", "cmin", "cmax", "ctid") if c in named)
    for n, i in enumerate(sig):
        if i in skip:
            continue
        k, text = toks[i]
        if k not in ("ident", "qident"):
            continue
        name = low(i)
        prev = low(sig[n - 1]) if n > 0 else ""
        prev2 = low(sig[n - 2]) if n > 1 else ""
        nxt = low(sig[n + 1]) if n + 1 < len(sig) else ""
        nxt2 = sig[n + 2] if n + 2 < len(sig) else None
        schema = None
        if prev == "." and prev2 in ("pg_catalog", "information_schema"):
            schema = prev2
        elif prev in (".", "::", "as"):
            continue
        if nxt == "." or nxt == "(":
            continue
        if schema in (None, "pg_catalog") and name in f:
            body = f"(SELECT {system_columns}* FROM pg_catalog.{name} WHERE {f[name]}{FENCE})"
        elif schema == "information_schema" and name in INFO_SCHEMA:
            s, t = INFO_SCHEMA[name]
            cond = (f"({s}, {t}) IN (" + ", ".join(f"('{a}', '{b}')" for a, b in info_names["relations"]) + ")"
                    if t else f"{s} = ANY ('{{{','.join(info_names['schemas'])}}}'::text[])")
            body = f"(SELECT * FROM information_schema.{name} WHERE {cond}{FENCE})"
        else:
            continue
        start = sig[n - 2] if schema else i
        has_alias = nxt == "as" or (n + 1 < len(sig) and toks[sig[n + 1]][0] in ("ident", "qident")
                                    and nxt not in NOT_ALIAS)
        replacement = body if has_alias else f"{body} AS {name}"
        for j in range(start, i + 1):
            skip.add(j)
        out.append((start, i, replacement))
    # splice
    res, last = [], 0
    texts = [t for _, t in toks]
    offsets = []
    pos = 0
    for t in texts:
        offsets.append(pos); pos += len(t)
    for start, end, rep in sorted(out):
        res.append(sql[last:offsets[start]]); res.append(rep); last = offsets[end] + len(texts[end])
    res.append(sql[last:])
    return "".join(res)
