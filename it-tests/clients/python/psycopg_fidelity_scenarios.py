"""psycopg 3: what the driver is told about its connection, and statements with tens of thousands of parameters.

See scenario_main.py for the calling convention.
"""

import time

import psycopg

from scenario_main import main


def connect(url):
    return psycopg.connect(url, autocommit=True)


def backend_pid(url):
    """conn.info.backend_pid (BackendKeyData) against pg_backend_pid(), pg_stat_activity and a notification."""
    with connect(url) as listener, connect(url) as notifier:
        received = []
        listener.add_notify_handler(received.append)
        listener.execute("LISTEN pgward_pid_channel")
        told = notifier.info.backend_pid
        own = notifier.execute("SELECT pg_backend_pid()").fetchone()[0]
        activity = listener.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE pid = %s AND datname = current_database()",
            (told,)).fetchone()[0]
        notifier.execute("NOTIFY pgward_pid_channel, 'from the notifier'")
        # The listener's backend sends the notification when it is idle; a query makes psycopg read it.
        deadline = time.monotonic() + 10
        while not received and time.monotonic() < deadline:
            listener.execute("SELECT 1")
            if not received:
                time.sleep(0.05)
        listener.execute("UNLISTEN *")
        return {
            "toldIsPgBackendPid": told == own,
            "inPgStatActivity": activity,
            "notifications": len(received),
            "notificationPidIsNotifiers": bool(received) and received[0].pid == told,
        }


def terminate_by_pid(url):
    """pg_terminate_backend() of the pid the victim was told ends the victim's session, as on PostgreSQL."""
    with connect(url) as killer:
        victim = connect(url)
        try:
            terminated = killer.execute("SELECT pg_terminate_backend(%s, 10000)",
                                        (victim.info.backend_pid,)).fetchone()[0]
            try:
                victim.execute("SELECT 1")
                afterwards = "still usable"
            except psycopg.OperationalError as e:
                afterwards = {"class": type(e).__name__, "sqlstate": e.sqlstate}
            return {"terminated": terminated, "victim": afterwards, "victimClosed": victim.closed,
                    "killerUsable": killer.execute("SELECT 1").fetchone()[0]}
        finally:
            victim.close()


def sum_of(cursor, count, extra=""):
    """A VALUES list of count parameters (the Parse carries count types), summed by the server."""
    rows = ", ".join(["(%s::int)"] * count)
    cursor.execute(f"SELECT count(*), sum(x)::text FROM (VALUES {rows}{extra}) v(x)", list(range(1, count + 1)))
    n, total = cursor.fetchone()
    return {"n": n, "total": total}


def many_parameters(url):
    """Up to 65,535 parameters work; past that, the server's own error (or libpq's, which counts them first)."""
    with connect(url) as connection, connection.cursor() as cursor:
        out = {str(count): sum_of(cursor, count) for count in (32_767, 32_768, 50_000, 65_535)}
        # The statement uses $65536 but a Bind carries at most 65,535 values: PostgreSQL's ERROR, not a FATAL.
        try:
            sum_of(cursor, 65_535, ", ($65536::int)")
            out["sixtyFiveThousandFiveHundredThirtySixth"] = "accepted"
        except psycopg.Error as e:
            out["sixtyFiveThousandFiveHundredThirtySixth"] = {
                "class": type(e).__name__, "sqlstate": e.sqlstate, "severity": e.diag.severity,
                "message": e.diag.message_primary}
        try:
            sum_of(cursor, 65_536)
            out["tooMany"] = "accepted"
        except psycopg.Error as e:
            out["tooMany"] = {"class": type(e).__name__, "sqlstate": e.sqlstate, "message": str(e)}
        out["afterwards"] = connection.execute("SELECT 1").fetchone()[0]
        return out


def prepared_parameter_types(url):
    """A Parse that gives up to 65,535 parameter types and a short text, then a Bind of as many values: what
    libpq's PQprepare and PQexecPrepared send. (Not described: libpq 15 takes a ParameterDescription longer than
    30,000 bytes for a lost sync and drops the connection, on PostgreSQL as anywhere.)"""
    with connect(url) as connection:
        pgconn = connection.pgconn
        # psycopg keeps libpq non-blocking; libpq's own exec functions wait for their results.
        pgconn.nonblocking = 0
        out = {}
        for count in (32_768, 65_535):
            sql = f"SELECT $1::int AS first, ${count}::int AS last".encode()
            prepared = pgconn.prepare(b"", sql, [23] * count)
            executed = pgconn.exec_prepared(b"", [str(i).encode() for i in range(1, count + 1)])
            out[str(count)] = {
                "prepared": prepared.status == psycopg.pq.ExecStatus.COMMAND_OK,
                "error": text(prepared.error_field(psycopg.pq.DiagnosticField.MESSAGE_PRIMARY)),
                "row": [text(executed.get_value(0, 0)), text(executed.get_value(0, 1))] if executed.ntuples else None,
            }
        out["afterwards"] = connection.execute("SELECT 1").fetchone()[0]
        return out


def text(value):
    return None if value is None else value.decode()


if __name__ == "__main__":
    main({"backendPid": backend_pid, "terminateByPid": terminate_by_pid, "manyParameters": many_parameters,
          "preparedParameterTypes": prepared_parameter_types})
