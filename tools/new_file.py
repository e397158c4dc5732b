"""Result files written as histostudy writes its own (study/platform/files.cpp): whole, then put in place, never over
another file. Shared by the Python tools (ncu_profile.py, peers.py); standard library only."""
import errno
import os
import pathlib
import tempfile

NO_HARD_LINKS = (errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP)


def write_new(directory, stem, text):
    """directory/stem.json, or stem-002.json, ... where taken: written whole to a temporary beside it, then hard
    linked into place, or created exclusively where the filesystem has no hard links. Raises FileExistsError
    when 999 names are taken."""
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=".tmp", dir=directory)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # as any other file written here, not mkstemp's 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        linked = True
        for n in range(1, 1000):
            path = directory / (stem + (f"-{n:03d}" if n > 1 else "") + ".json")
            try:
                if linked:
                    os.link(tmp, path)
                else:
                    with open(path, "x", encoding="utf-8") as f:
                        f.write(text)
                return path
            except FileExistsError:
                continue
            except OSError as e:
                if not linked or e.errno not in NO_HARD_LINKS:
                    raise
                linked = False   # no hard links here: exclusive creates from now on
        raise FileExistsError(f"{directory}: too many files named {stem}")
    finally:
        os.unlink(tmp)
