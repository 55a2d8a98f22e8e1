"""Shared by the Python scenario scripts: calling convention, queries and the canonical JSON form.

    /usr/bin/python3 <driver>_scenarios.py <postgresql-url> <scenario>

prints one JSON object on stdout and exits 0, or prints the failure on stderr and exits 1. Values are turned
into text forms that keep what matters (digits, offsets, NULLs, bytes) and do not depend on the connection,
so two targets that behave alike print identical JSON.

    /usr/bin/python3 <driver>_scenarios.py <postgresql-url> <scenario>,<scenario>,...

runs several in one process and prints {"<scenario>": <result>, ...}; a scenario that fails is
{"scenarioFailed": "<traceback>"} there, and the exit status is 1. The tests use this form: starting the
interpreter and importing the driver is most of what a scenario costs.
"""

import datetime
import decimal
import json
import sys
import traceback
import uuid

# Two zones with different offsets, one of them not a whole hour; 1900 is before Kolkata's standard time.
TIME_ZONES = ("America/New_York", "Asia/Kolkata")

TIMESTAMPTZ_SQL = """SELECT
    '2024-02-29 23:59:59.999999+00'::timestamptz AS leap_day,
    '1999-12-31 23:30:00-05'::timestamptz AS y2k_eve,
    '1900-01-01 12:00:00+00'::timestamptz AS year_1900,
    '2024-02-29 23:59:59.999999+00'::timestamptz::text AS leap_day_text,
    '1900-01-01 12:00:00+00'::timestamptz::text AS year_1900_text"""

TYPES_SQL = r"""SELECT
    123456789012345678901234567890.123456789012345678901234567890::numeric AS numeric_long,
    -0.000000000000000000001::numeric AS numeric_tiny,
    'NaN'::numeric AS numeric_nan,
    0.1::float8 AS float8_tenth,
    1.7976931348623157e308::float8 AS float8_max,
    '-0'::float8 AS float8_negative_zero,
    '-Infinity'::float8 AS float8_negative_infinity,
    'NaN'::float8 AS float8_nan,
    9223372036854775807::int8 AS int8_max,
    (-9223372036854775807 - 1)::int8 AS int8_min,
    ARRAY[1, NULL, 3]::int4[] AS int_array,
    '{{1,2},{3,4}}'::int4[] AS int_matrix,
    ARRAY['a', NULL, 'with "quotes"', 'comma,here', 'NULL', '', E'back\\slash', '{brace}', 'ü'] AS text_array,
    '{"b": {"c": "ü"},  "a": [1, 2.5, null, true]}'::json AS json,
    '{"b": {"c": "ü"},  "a": [1, 2.5, null, true]}'::jsonb AS jsonb,
    (SELECT string_agg(set_byte('\x00'::bytea, 0, i), ''::bytea ORDER BY i) FROM generate_series(0, 255) i) AS bytea_all,
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS uuid"""

ERROR_SQL = "SELECT 1 FROM pg_class WHERE no_such_column = 1"

# Parameters sent by the drivers; PARAMS_SQL returns the server's text form of each, so the test sees
# exactly what the driver put on the wire, and the decoded value of a few to see them come back.
PARAMS = {
    "numeric": decimal.Decimal("-123456789012345678901234567890.000000000000000000000000000001"),
    "float8": 0.1,
    "int8": 2**63 - 1,
    "text": "héllo \"wörld\" \\ 'quoted'",
    "timestamptz": datetime.datetime(2024, 2, 29, 23, 59, 59, 123456,
                                     tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30))),
    "int_array": [1, None, 3],
    "text_array": ["a", None, 'with "quotes"', "comma,here", "NULL", ""],
    "json": {"b": {"c": "ü"}, "a": [1, 2.5, None, True]},
    "bytea": bytes(range(256)),
    "uuid": uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
}


def params_sql(placeholder):
    """PARAMS_SQL with the driver's placeholder style: placeholder(i) gives the i-th (1-based) marker.

    Each marker is parenthesised because psycopg2 inlines values as literals, and -1::numeric::text is
    -(1::numeric::text) to PostgreSQL.
    """
    def p(i):
        return f"({placeholder(i)})"
    return f"""SELECT
    {p(1)}::numeric::text AS numeric_text, {p(1)}::numeric AS numeric,
    {p(2)}::float8::text AS float8_text, {p(2)}::float8 AS float8,
    {p(3)}::int8::text AS int8_text, {p(3)}::int8 AS int8,
    {p(4)}::text AS text,
    {p(5)}::timestamptz::text AS timestamptz_text, {p(5)}::timestamptz AS timestamptz,
    {p(6)}::int4[]::text AS int_array_text, {p(6)}::int4[] AS int_array,
    {p(7)}::text[]::text AS text_array_text, {p(7)}::text[] AS text_array,
    {p(8)}::jsonb::text AS json_text,
    md5({p(9)}::bytea) AS bytea_md5, octet_length({p(9)}::bytea) AS bytea_length,
    {p(10)}::uuid::text AS uuid_text, {p(10)}::uuid AS uuid"""


def canonical(value):
    """A JSON-able text form; floats by repr so that -0.0, inf and nan survive."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "\\x" + bytes(value).hex()
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in value.items()}
    raise TypeError(f"no canonical form for {type(value).__name__}: {value!r}")


def type_name(value):
    """The Python type a driver chose, e.g. Decimal or list[int]; shows decoding choices that str() hides."""
    if isinstance(value, (list, tuple)):
        inner = sorted({type_name(v) for v in value if v is not None})
        return f"{type(value).__name__}[{'|'.join(inner)}]"
    return type(value).__name__


def row(columns, values):
    """A row as {column: canonical value} plus {column: Python type}."""
    return {
        "values": {c: canonical(v) for c, v in zip(columns, values)},
        "types": {c: type_name(v) for c, v in zip(columns, values)},
    }


def main(scenarios):
    names = sys.argv[2].split(",") if len(sys.argv) == 3 else []
    if not names or not all(name in scenarios for name in names):
        print(f"usage: {sys.argv[0]} <postgresql-url> <{'|'.join(scenarios)}>[,...]", file=sys.stderr)
        sys.exit(2)
    url = sys.argv[1]
    sys.stdout.reconfigure(encoding="utf-8")
    if len(names) == 1:
        try:
            result = scenarios[names[0]](url)
        except Exception:  # the scenario failed: say why on stderr, exit non-zero
            print(f"scenario {names[0]} failed:", file=sys.stderr)
            traceback.print_exc()
            sys.exit(1)
        print_json(result)
        return
    results = {}
    for name in names:
        try:
            results[name] = scenarios[name](url)
        except Exception:  # recorded in the output; the exit status says that one failed
            results[name] = {"scenarioFailed": traceback.format_exc()}
    print_json(results)
    sys.exit(1 if any("scenarioFailed" in r for r in results.values()) else 0)


def print_json(value):
    json.dump(value, sys.stdout, ensure_ascii=False, allow_nan=False)
    sys.stdout.write("\n")
