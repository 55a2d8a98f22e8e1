"""What the Python clients learn from the catalog, item by item, for CatalogOracleIT.

    /usr/bin/python3 catalog_oracle.py <postgresql-url> <sqlalchemy|psycopg|asyncpg>

prints one JSON object {"<item>": "<text>"} on stdout and exits 0. An item that fails is the text
"ERROR <sqlstate>: <message>" (or "ERROR <exception class>: <message>" when the driver gives no SQLSTATE), so
a refusal is compared and checked for leaks like any answer. The same program runs against the oracle
database and through pgward, and the test compares the two outputs item by item.
"""

import asyncio
import json
import sys

# The demo's relations an analyst may see, and two that are hidden (probes: both must look absent).
TABLES = ["customers", "products", "orders", "order_items"]
VIEWS = ["v_sales"]
MATVIEWS = ["mv_region_revenue"]
HIDDEN = ["payment_tokens", "hr.salaries"]


def failure(error):
    code = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None)
    orig = getattr(error, "orig", None)  # SQLAlchemy wraps the driver's exception
    if code is None and orig is not None:
        code = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
        error = orig
    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"ERROR {code or type(error).__name__}: {message}"


def item(out, name, produce):
    try:
        out[name] = text(produce())
    except Exception as e:  # the failure is the item's result
        out[name] = failure(e)


def text(value):
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def sqlalchemy_items(url):
    import sqlalchemy as sa
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg2://", 1))
    out = {}
    try:
        inspector = sa.inspect(engine)
    except Exception as e:  # connect itself failed (psycopg2's hstore probe): every item says so
        out["connect"] = failure(e)
        return out
    out["connect"] = "ok"
    item(out, "schemas", lambda: inspector.get_schema_names())
    item(out, "tables", lambda: sorted(inspector.get_table_names()))
    item(out, "views", lambda: sorted(inspector.get_view_names()))
    def materialized_views():
        with engine.connect() as connection:
            return sorted(engine.dialect.get_view_names(connection, include=("materialized",)))
    item(out, "materialized views", materialized_views)
    item(out, "enums", lambda: inspector.get_enums())
    for relation in TABLES + VIEWS + MATVIEWS:
        item(out, f"columns {relation}", lambda r=relation: [
            {k: str(v) for k, v in c.items()} for c in inspector.get_columns(r)])
    for table in TABLES:
        item(out, f"pk {table}", lambda t=table: inspector.get_pk_constraint(t))
        item(out, f"fks {table}", lambda t=table: inspector.get_foreign_keys(t))
        item(out, f"indexes {table}", lambda t=table: inspector.get_indexes(t))
        item(out, f"unique {table}", lambda t=table: inspector.get_unique_constraints(t))
        item(out, f"checks {table}", lambda t=table: inspector.get_check_constraints(t))
        item(out, f"comment {table}", lambda t=table: inspector.get_table_comment(t))
    item(out, "view definition v_sales", lambda: inspector.get_view_definition("v_sales"))
    for hidden in HIDDEN:
        schema, _, name = hidden.rpartition(".")
        item(out, f"has_table {hidden}", lambda s=schema, n=name: inspector.has_table(n, schema=s or None))
        item(out, f"columns {hidden}", lambda s=schema, n=name: inspector.get_columns(n, schema=s or None))
    for table in TABLES + VIEWS:
        def autoload(t=table):
            loaded = sa.Table(t, sa.MetaData(), autoload_with=engine)
            return {"columns": [(c.name, str(c.type), c.nullable, c.primary_key) for c in loaded.columns],
                    "foreign keys": sorted(str(fk.column) for fk in loaded.foreign_keys),
                    "indexes": sorted(i.name for i in loaded.indexes)}
        item(out, f"autoload {table}", autoload)
    engine.dispose()
    return out


def psycopg_items(url):
    import psycopg
    from psycopg.types import TypeInfo
    from psycopg.types.composite import CompositeInfo
    from psycopg.types.enum import EnumInfo
    out = {}
    with psycopg.connect(url, autocommit=True) as connection:
        def info(found):
            return None if found is None else {"name": found.name, "oid": found.oid, "array_oid": found.array_oid}
        item(out, "TypeInfo order_status", lambda: info(TypeInfo.fetch(connection, "order_status")))
        item(out, "EnumInfo order_status",
             lambda: (lambda e: None if e is None else [info(e), list(e.labels)])(
                 EnumInfo.fetch(connection, "order_status")))
        item(out, "CompositeInfo orders",
             lambda: (lambda c: None if c is None else [info(c), c.field_names, c.field_types])(
                 CompositeInfo.fetch(connection, "orders")))
        for hidden in HIDDEN:
            item(out, f"TypeInfo {hidden}", lambda h=hidden: info(TypeInfo.fetch(connection, h)))

        def enum_column():
            EnumInfo.fetch(connection, "order_status")
            return connection.execute("SELECT status FROM orders ORDER BY id LIMIT 3").fetchall()
        item(out, "enum column", enum_column)
    return out


def asyncpg_items(url):
    import asyncpg

    async def run():
        out = {}
        connection = await asyncpg.connect(url)
        try:
            async def guarded(name, produce):
                try:
                    out[name] = text(await produce())
                except Exception as e:  # the failure is the item's result
                    out[name] = failure(e)
                    if connection.is_in_transaction():
                        await connection.execute("ROLLBACK")

            await guarded("enum column", lambda: rows(connection.fetch(
                "SELECT id, status FROM orders ORDER BY id LIMIT 3")))
            await guarded("enum parameter", lambda: connection.fetchval(
                "SELECT count(*) FROM orders WHERE status = $1", "paid"))
            await guarded("enum array parameter", lambda: connection.fetchval(
                "SELECT count(*) FROM orders WHERE status = ANY($1)", ["paid", "shipped"]))
            await guarded("composite column", lambda: rows(connection.fetch(
                "SELECT o FROM orders o ORDER BY id LIMIT 2")))
            await guarded("numeric and interval", lambda: rows(connection.fetch(
                "SELECT total, shipped_at - ordered_at AS took FROM orders WHERE shipped_at IS NOT NULL "
                "ORDER BY id LIMIT 2")))
        finally:
            await connection.close()
        return out

    async def rows(query):
        return [[str(v) for v in record.values()] for record in await query]

    return asyncio.run(run())


CLIENTS = {"sqlalchemy": sqlalchemy_items, "psycopg": psycopg_items, "asyncpg": asyncpg_items}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in CLIENTS:
        print(f"usage: {sys.argv[0]} <postgresql-url> <{'|'.join(CLIENTS)}>", file=sys.stderr)
        sys.exit(2)
    sys.stdout.reconfigure(encoding="utf-8")
    try:
        result = CLIENTS[sys.argv[2]](sys.argv[1])
    except Exception as e:  # connecting failed: one item says so
        result = {"connect": failure(e)}
    json.dump(result, sys.stdout, ensure_ascii=False, sort_keys=True)
    sys.stdout.write("\n")
