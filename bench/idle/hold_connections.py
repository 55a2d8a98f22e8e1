#!/usr/bin/python3
"""Opens N sessions through pgward, runs `select 1` once in each, then holds them idle.

Usage: hold_connections.py HOST PORT DATABASE COUNT LOGIN:PASSWORD [LOGIN:PASSWORD ...]
Logins are used in turn. Prints "ready N SECONDS" on stdout once every session has answered, then holds them
until SIGTERM or SIGINT (the caller measures meanwhile) and closes them with Terminate. Exits 1 at the first session that fails.
"""
import signal
import sys
import time

import psycopg2


def main():
    host, port, database, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    logins = [pair.split(":", 1) for pair in sys.argv[5:]]
    sessions = []
    started = time.monotonic()
    for i in range(count):
        user, password = logins[i % len(logins)]
        try:
            conn = psycopg2.connect(host=host, port=port, dbname=database, user=user, password=password,
                                    sslmode="disable", gssencmode="disable", connect_timeout=30)
            conn.autocommit = True
            with conn.cursor() as cur:
                cur.execute("select 1")
                if cur.fetchone() != (1,):
                    raise RuntimeError("select 1 did not return 1")
        except Exception as e:  # noqa: BLE001 - any failure ends the run with its message
            print(f"session {i + 1} ({user}) failed: {e}".strip(), file=sys.stderr, flush=True)
            sys.exit(1)
        sessions.append(conn)
        if (i + 1) % 100 == 0:
            print(f"{i + 1} sessions open", file=sys.stderr, flush=True)
    # Set before "ready", so that the caller's SIGTERM always lands in pause() and the sessions end cleanly.
    signal.signal(signal.SIGTERM, lambda *_: None)
    signal.signal(signal.SIGINT, lambda *_: None)
    print(f"ready {len(sessions)} {time.monotonic() - started:.1f}", flush=True)
    signal.pause()
    for conn in sessions:
        conn.close()


if __name__ == "__main__":
    main()
