"""psycopg 3's async COPY TO STDOUT in binary, round after round, as psycopg's own test_copy_to_leaks runs it.

    /usr/bin/python3 async_copy_rounds.py <postgresql-url> <rounds>

Each round: a new AsyncConnection, a table made and filled with executemany (pipeline mode), then
`COPY (SELECT ...) TO STDOUT (FORMAT BINARY)` read with read(), iteration, rows() or read_row() in turn, every
row compared with what was inserted. A round that does not end within 10 s is a failure, not a hang. Prints
{"rounds": n, "rows": total} and exits 0, or prints the failure on stderr and exits 1.
"""

import asyncio
import json
import sys

import psycopg
from psycopg import sql

RECORDS = [(i, f"row {i} " + "é" * (i % 7), i * 0.25, bytes(range(i % 256))) for i in range(1, 201)]
TYPES = ["int4", "text", "float8", "bytea"]
METHODS = ("read", "iter", "rows", "row")


async def one_round(url, number):
    method = METHODS[number % len(METHODS)]
    async with await psycopg.AsyncConnection.connect(url) as conn:
        async with conn.cursor(binary=True) as cur:
            await cur.execute("drop table if exists copied")
            await cur.execute("create table copied (id int4, t text, f float8, b bytea)")
            await cur.executemany("insert into copied values (%s, %s, %s, %s)", RECORDS)
            stmt = sql.SQL("copy (select id, t, f, b from copied order by id) to stdout (format binary)")
            got = []
            async with cur.copy(stmt) as copy:
                copy.set_types(TYPES)
                if method == "read":
                    while await copy.read():
                        pass
                    got = None
                elif method == "iter":
                    async for _ in copy:
                        pass
                    got = None
                elif method == "rows":
                    got = [row async for row in copy.rows()]
                else:
                    while (row := await copy.read_row()) is not None:
                        got.append(row)
            if got is not None and got != RECORDS:
                raise AssertionError(f"round {number}: the rows differ from what was inserted")
        return len(RECORDS)


async def main():
    url, rounds = sys.argv[1], int(sys.argv[2])
    total = 0
    for number in range(rounds):
        try:
            total += await asyncio.wait_for(one_round(url, number), 10)
        except asyncio.TimeoutError:
            raise AssertionError(f"round {number} ({METHODS[number % len(METHODS)]}) did not end within 10 s")
    print(json.dumps({"rounds": rounds, "rows": total}))


if __name__ == "__main__":
    asyncio.run(main())
