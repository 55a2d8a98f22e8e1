import sqlalchemy as sa, sys, json
def dump(url):
    e = sa.create_engine(url); i = sa.inspect(e); out = {}
    out["schemas"] = i.get_schema_names(); out["tables"] = sorted(i.get_table_names())
    out["views"] = sorted(i.get_view_names(include=("plain",))); out["mviews"] = sorted(i.get_view_names(include=("materialized",)))
    out["enums"] = i.get_enums()
    for t in out["tables"] + out["views"] + out["mviews"]:
        out[t] = {"cols": [(c["name"], str(c["type"]), c["nullable"], str(c.get("default"))) for c in i.get_columns(t)]}
        if t in out["tables"]:
            out[t] |= {"pk": i.get_pk_constraint(t), "fks": i.get_foreign_keys(t), "idx": i.get_indexes(t),
                       "uq": i.get_unique_constraints(t), "ck": i.get_check_constraints(t), "comment": i.get_table_comment(t)}
    out["vdef"] = i.get_view_definition("v_sales")
    md = sa.MetaData(); t = sa.Table("orders", md, autoload_with=e); out["autoload"] = [c.name for c in t.columns] + [str(fk.column) for fk in t.foreign_keys]
    return out
a = dump(sys.argv[1]); b = dump(sys.argv[2])
same = a == b
print("identical" if same else "DIFFERENT")
for k in a:
    if a[k] != b.get(k): print(k, a[k], "\n  vs", b.get(k))
