"""psycopg2 (text format throughout) against a PostgreSQL URL; see scenario_main.py."""

import contextlib

import psycopg2
import psycopg2.extras

from scenario_main import ERROR_SQL, PARAMS, TIME_ZONES, TIMESTAMPTZ_SQL, TYPES_SQL, main, params_sql, row

# psycopg2 has no uuid adapter until asked for one.
psycopg2.extras.register_uuid()


def connect(url):
    """An autocommit connection, closed on leaving the with block. (psycopg2's own "with connection" opens a
    transaction even in autocommit mode, and does not close.)"""
    connection = psycopg2.connect(url)
    connection.autocommit = True
    return contextlib.closing(connection)


def fetch_row(cursor, sql, params=None):
    cursor.execute(sql, params)
    return row([d.name for d in cursor.description], cursor.fetchone())


def types(url):
    with connect(url) as connection, connection.cursor() as cursor:
        result = {"types": fetch_row(cursor, TYPES_SQL)}
        for zone in TIME_ZONES:
            cursor.execute(f"SET TimeZone = '{zone}'")
            result[zone] = fetch_row(cursor, TIMESTAMPTZ_SQL)
        return result


def params(url):
    values = dict(PARAMS, json=psycopg2.extras.Json(PARAMS["json"]))
    names = list(values)
    with connect(url) as connection, connection.cursor() as cursor:
        cursor.execute("SET TimeZone = 'UTC'")
        sql = params_sql(lambda i: f"%({names[i - 1]})s")
        return fetch_row(cursor, sql, values)


def error(url):
    with connect(url) as connection, connection.cursor() as cursor:
        try:
            cursor.execute(ERROR_SQL)
            raise AssertionError("the query succeeded")
        except psycopg2.Error as e:
            result = {
                "code": e.pgcode,
                "severity": e.diag.severity,
                "message": e.diag.message_primary,
                "position": int(e.diag.statement_position),
            }
        cursor.execute("SELECT %s::int AS n", (7,))
        result["afterwards"] = cursor.fetchone()[0]
        return result


if __name__ == "__main__":
    main({"types": types, "params": params, "error": error})
