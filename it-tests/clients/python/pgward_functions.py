"""pgward.* functions with bound parameters through psycopg 3 (text and binary, unprepared and prepared); see
scenario_main.py for the calling convention."""

import psycopg

from scenario_main import main

NAMES = ["public.orders", "customers", "public.products", "orders", "customers", "public.orders", "products"]


def describe(url):
    """The same statement, executed with a new value each time: psycopg prepares it from the fifth time on."""
    with psycopg.connect(url, autocommit=True) as connection:
        results = []
        for i, name in enumerate(NAMES):
            cursor = connection.execute(
                "select d.value, count(*) over () as columns from pgward.describe(%s) as d "
                "where d.field = 'columns' order by d.value limit 1", [name], binary=(i % 2 == 1))
            row = cursor.fetchone()
            results.append([name, row[1], [c.name for c in cursor.description]])
        prepared = connection.execute("select field, value from pgward.describe(%s) where field = %s",
                                      ["public.orders", "name"], prepare=True).fetchall()
        again = connection.execute("select field, value from pgward.describe(%s) where field = %s",
                                   ["public.customers", "name"], prepare=True).fetchall()
        return {"describe": results, "prepared": [list(r) for r in prepared], "again": [list(r) for r in again]}


def joined(url):
    """A function joined to a selected relation, a parameter of the rest of the statement bound as well."""
    with psycopg.connect(url, autocommit=True) as connection:
        rows = connection.execute(
            "select r.name, (select count(*) from orders where status = %s) > 0 as has "
            "from pgward.relations() r where r.name = %s", ["paid", "public.orders"]).fetchall()
        return {"rows": [list(r) for r in rows]}


def unknown(url):
    with psycopg.connect(url, autocommit=True) as connection:
        try:
            connection.execute("select * from pgward.nosuch(%s)", ["x"])
            return {"error": None}
        except psycopg.Error as e:
            return {"code": e.sqlstate, "message": e.diag.message_primary}


def ask(url):
    """A bound question with a column definition list: three rows, then two of another question."""
    sql = "select t.name, t.revenue from pgward.ask(%s) as t(name text, revenue numeric) order by 2 desc"
    with psycopg.connect(url, autocommit=True) as connection:
        rows = connection.execute(sql, ["top 3 customers by revenue"]).fetchall()
        rows += connection.execute(sql, ["the 2 most expensive products"], prepare=True).fetchall()
        return {"rows": [[r[0], str(r[1])] for r in rows]}


if __name__ == "__main__":
    main({"describe": describe, "joined": joined, "unknown": unknown, "ask": ask})
