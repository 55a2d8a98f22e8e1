"""psycopg 3 in binary mode (binary results, binary parameters) against a PostgreSQL URL; see scenario_main.py."""

import psycopg
from psycopg.types.json import Jsonb

from scenario_main import ERROR_SQL, PARAMS, TIME_ZONES, TIMESTAMPTZ_SQL, TYPES_SQL, main, params_sql, row


def connect(url):
    return psycopg.connect(url, autocommit=True)


def fetch_row(cursor, sql, params=None):
    cursor.execute(sql, params, binary=True)
    result = row([d.name for d in cursor.description], cursor.fetchone())
    # The format code of each column in the RowDescription: 1 (binary) for all of them, or binary was lost.
    result["formats"] = sorted({cursor.pgresult.fformat(i) for i in range(cursor.pgresult.nfields)})
    return result


def types(url):
    with connect(url) as connection, connection.cursor(binary=True) as cursor:
        result = {"types": fetch_row(cursor, TYPES_SQL)}
        for zone in TIME_ZONES:
            cursor.execute(f"SET TimeZone = '{zone}'")
            # psycopg learns the zone from the ParameterStatus message that follows SET, and uses it for
            # the tzinfo of binary timestamptz values.
            result[zone] = fetch_row(cursor, TIMESTAMPTZ_SQL)
            result[zone]["connectionTimeZone"] = str(connection.info.timezone)
        return result


def params(url):
    values = dict(PARAMS, json=Jsonb(PARAMS["json"]))
    names = list(values)
    with connect(url) as connection, connection.cursor(binary=True) as cursor:
        cursor.execute("SET TimeZone = 'UTC'")
        # %(name)b: the parameter travels in binary format.
        sql = params_sql(lambda i: f"%({names[i - 1]})b")
        return fetch_row(cursor, sql, values)


def error(url):
    with connect(url) as connection, connection.cursor(binary=True) as cursor:
        try:
            cursor.execute(ERROR_SQL)
            raise AssertionError("the query succeeded")
        except psycopg.Error as e:
            result = {
                "code": e.sqlstate,
                "severity": e.diag.severity,
                "message": e.diag.message_primary,
                "position": int(e.diag.statement_position),
            }
        cursor.execute("SELECT %b::int AS n", (7,))
        result["afterwards"] = cursor.fetchone()[0]
        return result


if __name__ == "__main__":
    main({"types": types, "params": params, "error": error})
