"""psycopg 3 in pipeline mode: a client reads an error and leaves without a Sync; how soon is the next one served?

    /usr/bin/python3 abandoned_pipeline.py <postgresql-url> <rounds>

Each round: connect, enter pipeline mode, send `select 1/0` with a Flush (no Sync), read the error, disconnect;
then connect again and run `select 1`. Prints {"sqlstates": [...], "slowestNextClientSeconds": s} and exits 0,
or prints the failure on stderr and exits 1. Behind a pool of one connection, the next client can only be
served once the abandoned backend connection was reset (or closed) for it.
"""

import json
import select
import sys
import time

import psycopg
from psycopg.pq import DiagnosticField


def leave_after_error(url):
    connection = psycopg.connect(url, autocommit=True)
    pgconn = connection.pgconn
    pgconn.enter_pipeline_mode()
    pgconn.send_query_params(b"select 1/0", None)
    pgconn.send_flush_request()
    while pgconn.flush():
        select.select([], [pgconn.socket], [], 5)
    deadline = time.monotonic() + 10
    pgconn.consume_input()
    while pgconn.is_busy():
        if time.monotonic() > deadline:
            raise TimeoutError("no answer to the pipelined select 1/0")
        select.select([pgconn.socket], [], [], 1)
        pgconn.consume_input()
    result = pgconn.get_result()
    sqlstate = result.error_field(DiagnosticField.SQLSTATE).decode()
    connection.close()  # Terminate, with the pipeline still open: no Sync was ever sent
    return sqlstate


def next_client_seconds(url):
    start = time.monotonic()
    with psycopg.connect(url, autocommit=True) as connection:
        assert connection.execute("select 1").fetchone() == (1,)
    return time.monotonic() - start


def main():
    url, rounds = sys.argv[1], int(sys.argv[2])
    sqlstates, slowest = [], 0.0
    for _ in range(rounds):
        sqlstates.append(leave_after_error(url))
        slowest = max(slowest, next_client_seconds(url))
    print(json.dumps({"sqlstates": sqlstates, "slowestNextClientSeconds": slowest}))


if __name__ == "__main__":
    main()
