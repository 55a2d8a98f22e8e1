"""asyncpg (binary format for every type it knows, prepared statements) against a PostgreSQL URL; see
scenario_main.py."""

import asyncio
import json

import asyncpg

from scenario_main import ERROR_SQL, PARAMS, TIME_ZONES, TIMESTAMPTZ_SQL, TYPES_SQL, main, params_sql, row


async def fetch_row(connection, sql, *args):
    record = await connection.fetchrow(sql, *args)
    return row(list(record.keys()), list(record.values()))


async def with_connection(url, body):
    connection = await asyncpg.connect(url)
    try:
        return await body(connection)
    finally:
        await connection.close()


def types(url):
    async def body(connection):
        result = {"types": await fetch_row(connection, TYPES_SQL)}
        for zone in TIME_ZONES:
            await connection.execute(f"SET TimeZone = '{zone}'")
            # asyncpg decodes timestamptz as UTC whatever the session zone; the *_text columns show the zone.
            result[zone] = await fetch_row(connection, TIMESTAMPTZ_SQL)
        return result
    return asyncio.run(with_connection(url, body))


def params(url):
    # asyncpg takes json as text unless a codec is set; the rest are the shared Python values.
    values = dict(PARAMS, json=json.dumps(PARAMS["json"], ensure_ascii=False))
    async def body(connection):
        await connection.execute("SET TimeZone = 'UTC'")
        return await fetch_row(connection, params_sql(lambda i: f"${i}"), *values.values())
    return asyncio.run(with_connection(url, body))


def error(url):
    async def body(connection):
        try:
            await connection.fetch(ERROR_SQL)
            raise AssertionError("the query succeeded")
        except asyncpg.PostgresError as e:
            result = {
                "code": e.sqlstate,
                "severity": e.severity,
                "message": e.message,
                "position": int(e.position),
            }
        result["afterwards"] = await connection.fetchval("SELECT $1::int AS n", 7)
        return result
    return asyncio.run(with_connection(url, body))


if __name__ == "__main__":
    main({"types": types, "params": params, "error": error})
