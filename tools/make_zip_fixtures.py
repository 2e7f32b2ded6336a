#!/usr/bin/env python3
"""Write Tests/Fixtures/deflated.task with Python's zipfile: a deflated member, a stored nested bundle and an
empty member — the zip features our bundle reader must handle that the shipped bundles (all stored) do not use."""
import io
import zipfile

buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("labels.txt", "background\n" + "".join(f"class {i}\n" for i in range(200)))
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w", zipfile.ZIP_STORED) as y:
        y.writestr("notes.txt", "nested member\n")
    z.writestr("inner.task", inner.getvalue())
    z.writestr("empty.txt", "")
open("Tests/Fixtures/deflated.task", "wb").write(buf.getvalue())
