"""Large JSON fixtures (MediaPipe's and LiteRT's answers past 1 MiB as text) are kept in git deflated: NAME.json.zip,
one member NAME.json, written deterministically (fixed timestamp and permissions) so that the same answers give the
same bytes. The tests read them through Repository.fixtureJSON (Tests/Support/TestSupport/Repository.swift)."""
import os
import zipfile


def write(path, text):
    """Writes `text` (str) as the zip at `path`, whose member is the zip's name without `.zip`."""
    member = os.path.basename(path)[:-len(".zip")] if path.endswith(".zip") else os.path.basename(path)
    info = zipfile.ZipInfo(member, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    with zipfile.ZipFile(path + ".partial", "w") as archive:
        archive.writestr(info, text.encode(), compresslevel=9)
    os.replace(path + ".partial", path)


def read(path):
    """The text of a fixture written by `write` (or of a plain JSON file)."""
    if not path.endswith(".zip"):
        return open(path).read()
    with zipfile.ZipFile(path) as archive:
        return archive.read(archive.namelist()[0]).decode()
