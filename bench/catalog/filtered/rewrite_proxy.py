#!/usr/bin/python3
"""A research harness: a TCP relay that applies filtered_catalog.rewrite to every simple Query ('Q') and
forwards everything else as bytes, so psql's own meta-commands can be tried against the rewritten catalog.

    rewrite_proxy.py LISTEN_PORT BACKEND_HOST BACKEND_PORT CONTROL_DSN SELECTION(comma-separated) [LOG.jsonl]

Simple Query and Parse texts are rewritten; the optional log gets every text the clients sent.
"""
import asyncio, struct, sys, subprocess, psycopg2
sys.path.insert(0, __import__("os").path.dirname(__file__))
import filtered_catalog as fc

def visible(dsn, selection):
    sql = open(__import__("os").path.join(__import__("os").path.dirname(__file__), "visible_sets.sql")).read()
    sql = sql.replace(":'selection'::text[]", "%s::text[]")
    with psycopg2.connect(dsn) as c, c.cursor() as cur:
        cur.execute(sql, ("{" + ",".join(selection) + "}",))
        sets = {k: list(v or []) for k, v in cur.fetchall()}
    rels = [tuple(s.split(".")) for s in selection]
    return fc.Visible(sets), {"relations": rels, "schemas": sorted({s for s, _ in rels} | {"pg_catalog", "information_schema"})}

def log(sql, new):
    if len(sys.argv) > 6:
        with open(sys.argv[6], "a") as f:
            f.write(__import__("json").dumps({"sql": sql, "rewritten": new != sql}) + "\n")

async def pipe_client(reader, writer, v, names):
    b_reader, b_writer = await asyncio.open_connection(sys.argv[2], int(sys.argv[3]))
    async def backend_to_client():
        while data := await b_reader.read(65536):
            writer.write(data); await writer.drain()
        writer.close()
    task = asyncio.create_task(backend_to_client())
    # startup packet (no type byte); SSLRequest is answered 'N'
    while True:
        head = await reader.readexactly(4); n = struct.unpack("!I", head)[0]
        body = await reader.readexactly(n - 4)
        if n == 8 and body[:4] in (b"\x04\xd2\x16\x2f", b"\x04\xd2\x16\x30"):
            writer.write(b"N"); await writer.drain(); continue
        b_writer.write(head + body); break
    try:
        while True:
            t = await reader.readexactly(1); n = struct.unpack("!I", await reader.readexactly(4))[0]
            body = await reader.readexactly(n - 4)
            if t == b"Q":
                sql = body[:-1].decode()
                new = fc.rewrite(sql, v, names)
                log(sql, new)
                body = new.encode() + b"\0"
            elif t == b"P":  # Parse: cstring name | cstring query | int16 n | int32 oids[n]
                name_end = body.index(b"\0")
                query_end = body.index(b"\0", name_end + 1)
                sql = body[name_end + 1:query_end].decode()
                new = fc.rewrite(sql, v, names)
                log(sql, new)
                body = body[:name_end + 1] + new.encode() + body[query_end:]
            b_writer.write(t + struct.pack("!I", len(body) + 4) + body); await b_writer.drain()
    except asyncio.IncompleteReadError:
        pass
    b_writer.close()

async def main():
    v, names = visible(sys.argv[4], sys.argv[5].split(","))
    server = await asyncio.start_server(lambda r, w: pipe_client(r, w, v, names), "127.0.0.1", int(sys.argv[1]))
    async with server:
        await server.serve_forever()

if __name__ == "__main__":
    asyncio.run(main())
