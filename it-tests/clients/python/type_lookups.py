"""psycopg 3's type lookups by name (TypeInfo, EnumInfo, CompositeInfo: psycopg 3.1 binds the name to a regtype
parameter, 3.2 passes it to to_regtype) and the same lookup written by hand, unnamed and prepared, with every
error's SQLSTATE, message, CONTEXT and routine; see scenario_main.py.

    /usr/bin/python3 type_lookups.py <postgresql-url> lookups,enum column

The scenario "lookups" looks up each name of NAMES, "enum column" reads an enum after EnumInfo; PythonClientsIT compares a hidden name's result with an absent
one's, the name itself replaced.
"""

import psycopg
from psycopg.types import TypeInfo
from psycopg.types.composite import CompositeInfo
from psycopg.types.enum import EnumInfo, register_enum

from scenario_main import main

# A type modifier fails only once the type is found (to_regtype answers NULL for an absent name): the (1) forms are
# where a hidden name must bind as an absent one.
NAMES = ["pt_status", "pt_orders", "pt_hidden.kind", "pt_hidden.kind[]", "pt_hidden.secrets", "pt_secret_kind",
         "pt_secret_kind(1)", "pt_hidden.kind(1)",
         "pt_hidden.no_such", "pt_hidden.no_such[]", "pt_hidden.no_such_tab", "pt_no_such_kind",
         "pt_no_such_kind(1)", "pt_hidden.no_such(1)"]
LOOKUP = "SELECT t.typname, t.oid::regtype::text FROM pg_type t WHERE t.oid = %s::regtype"


def failure(error):
    d = error.diag
    return {"sqlstate": error.sqlstate, "message": d.message_primary, "context": d.context,
            "routine": d.source_function}


def attempt(produce):
    try:
        return {"result": produce()}
    except psycopg.Error as e:
        return {"error": failure(e)}


def info(found):
    return None if found is None else [found.name, str(found.regtype)]


def lookups(url):
    out = {"version": psycopg.__version__}
    with psycopg.connect(url, autocommit=True) as connection:
        for name in NAMES:
            out[name] = {
                "TypeInfo": attempt(lambda: info(TypeInfo.fetch(connection, name))),
                "EnumInfo": attempt(lambda: info(EnumInfo.fetch(connection, name))),
                "CompositeInfo": attempt(lambda: info(CompositeInfo.fetch(connection, name))),
                "unnamed": attempt(lambda: connection.execute(LOOKUP, [name]).fetchall()),
                "prepared": attempt(lambda: connection.execute(LOOKUP, [name], prepare=True).fetchall()),
            }
    return out


def enum_column(url):
    with psycopg.connect(url, autocommit=True) as connection:
        register_enum(EnumInfo.fetch(connection, "pt_status"), connection)
        return attempt(lambda: [r[0].name for r in connection.execute(
            "SELECT status FROM pt_orders ORDER BY id").fetchall()])


if __name__ == "__main__":
    main({"lookups": lookups, "enum column": enum_column})
