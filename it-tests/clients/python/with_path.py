"""Runs a scenario script with one more directory first on sys.path: a driver installed with
`pip install --target DIR` beside Debian's packages (psycopg 3.2 or newer, which Debian does not ship).

    /usr/bin/python3 -E -s with_path.py DIR <script> <postgresql-url> <scenario>,...
"""

import runpy
import sys

if __name__ == "__main__":
    sys.path.insert(0, sys.argv[1])
    sys.argv = sys.argv[2:]
    runpy.run_path(sys.argv[0], run_name="__main__")
