"""Writing what the plots tools make, losing nothing of a user's: standard output, a new file, a folder.

A report on standard output ends quietly where its reader closed the pipe. A file is written beside its place
and put there once complete, over an existing file only where the user says so (--force). A folder is written
beside its place and swapped in whole, with SHA256SUMS (`sha256sum -c SHA256SUMS` checks it) listing every file
written: an existing folder is replaced only where it is empty or its SHA256SUMS vouches for every file in it,
so that a file a user put there, or changed, is never lost. Anything that cannot be written is OutputError: one
line, nothing left behind.
"""
import contextlib
import errno
import hashlib
import os
import pathlib
import re
import shutil
import signal
import sys
import tempfile

MANIFEST = "SHA256SUMS"
STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)   # what cli.py turns into Stopped
_LINE = re.compile(r"([0-9a-f]{64})  (.+)")


class OutputError(Exception):
    """An output that cannot be written; the message names it."""


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised as Ctrl-C's KeyboardInterrupt is, so that the same cleanup runs."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def stopped_status(interrupt):
    """The exit status of a tool stopped by `interrupt`: 128 + the signal's number, as a shell reports it."""
    return 128 + getattr(interrupt, "signum", signal.SIGINT)


@contextlib.contextmanager
def signals_held():
    """Ctrl-C and the stopping signals wait until the block ends: a swap and its cleanup are never cut in half."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


# ---- standard output -----------------------------------------------------------

def write_stdout(text):
    """Writes `text` to standard output; a reader that closed the pipe (| head -1) ends it quietly. Raises
    OutputError where it cannot be written (a full disk, /dev/full)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
    except OSError as e:
        silence_stdout()
        raise OutputError(f"standard output: cannot write the report ({e.strerror or e})") from None


def silence_stdout():
    """Standard output to /dev/null: what is still buffered goes nowhere, not into a message at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):   # a stream without a file (a test's StringIO)
        pass
    finally:
        os.close(devnull)


# ---- a file --------------------------------------------------------------------------

def no_hard_links(e):
    """Hard links are missing on some filesystems (FAT, some network ones)."""
    return e.errno in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS, errno.EXDEV)


def write_file(path, text, replace=False):
    """Writes `text` to `path` through a temporary beside it, put in place once complete: a reader never sees
    half of it. An existing file is replaced only where `replace` (--force) says so. Raises OutputError."""
    path = pathlib.Path(path)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise OutputError(f"{path}: exists and is not a plain file")
    if path.exists() and not replace:
        raise OutputError(f"{path}: exists; --force replaces it")
    tmp = None
    try:
        with signals_held():   # as in replacing(): the temporary is known here before a stop can come
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            os.close(fd)
        pathlib.Path(tmp).write_text(text, encoding="utf-8")
        put_in_place(tmp, path, replace)
    except OSError as e:
        raise OutputError(f"{path}: cannot write{' there' if tmp is None else ''} ({e.strerror or e})") from None
    finally:
        with signals_held(), contextlib.suppress(FileNotFoundError):
            if tmp:
                os.unlink(tmp)


def put_in_place(tmp, path, replace):
    """tmp renamed onto path where it may replace a file, else linked: unlike a rename, a link fails where the
    name was taken meanwhile."""
    if replace:
        os.replace(tmp, path)
        return
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise OutputError(f"{path}: appeared while written; --force replaces it") from None
    except OSError as e:
        if not no_hard_links(e):
            raise
        os.rename(tmp, path)


# ---- a folder ------------------------------------------------------------------------

def file_digest(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def name_text(name):
    """A name as one line of text: escaped where it holds a newline, a control or a byte that is not UTF-8."""
    return name if name.isprintable() else ascii(name)


def files_under(folder):
    """{path relative to folder: absolute path} of every entry that is not a folder (links included, never
    followed), and [folder relative path] of every folder, walking the whole tree."""
    files, folders = {}, []
    for root, dirs, names in os.walk(folder):
        for d in list(dirs):
            if os.path.islink(os.path.join(root, d)):   # a link to a folder is an entry, not a folder to enter
                dirs.remove(d)
                names.append(d)
        rel = os.path.relpath(root, folder)
        folders += [] if rel == "." else [rel]
        files.update({os.path.normpath(os.path.join(rel, n)): os.path.join(root, n) for n in names})
    return files, folders


def write_manifest(folder):
    """folder/SHA256SUMS: the SHA-256 of every file under folder, as `sha256sum` writes it."""
    files, _ = files_under(folder)
    lines = [f"{file_digest(path)}  {name}\n" for name, path in sorted(files.items())]
    pathlib.Path(folder, MANIFEST).write_text("".join(lines), encoding="utf-8")


def read_manifest(folder):
    """{name: digest} of folder/SHA256SUMS; None where it is absent or is not one this module wrote."""
    try:
        text = pathlib.Path(folder, MANIFEST).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    lines = [_LINE.fullmatch(line) for line in text.splitlines()]
    if not all(lines):
        return None
    return {m[2]: m[1] for m in lines}


def foreign_entry(folder):
    """Why `folder` is not wholly an earlier output (the first thing its SHA256SUMS does not vouch for), or None
    where every file in it is one SHA256SUMS lists, unchanged, and none it lists is missing."""
    files, folders = files_under(folder)
    if not files and not folders:
        return None
    listed = read_manifest(folder)
    if listed is None:
        return f"holds {name_text(min(files) if files else min(folders))} and no {MANIFEST} of an earlier output"
    files.pop(MANIFEST)
    for name, path in sorted(files.items()):
        if name not in listed or os.path.islink(path) or not os.path.isfile(path):
            return f"holds {name_text(name)}, which its {MANIFEST} does not list"
        if file_digest(path) != listed[name]:
            return f"holds {name_text(name)}, changed since it was written (its {MANIFEST} says otherwise)"
    for name in sorted(folders):
        if not any(f.startswith(name + os.sep) for f in listed):
            return f"holds the folder {name_text(name)}, which its {MANIFEST} does not list"
    missing = sorted(set(listed) - set(files))
    return f"lacks {name_text(missing[0])}, which its {MANIFEST} lists" if missing else None


def check_replaceable(out_dir, shown):
    """Raises OutputError where out_dir exists and is not a folder an earlier output wholly made."""
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputError(f"{shown}: exists and is not a folder")
    if not out_dir.exists():
        return
    why = foreign_entry(out_dir)
    if why:
        raise OutputError(f"{shown}: {why}; the output replaces the folder as a whole, so that would be lost: "
                          "name a new or empty folder")
    if not os.access(out_dir, os.W_OK):
        raise OutputError(f"{shown}: cannot be replaced (not writable)")


def work_folder(out_dir, shown):
    """A new hidden folder beside out_dir, once out_dir is known to be one replacing() may replace."""
    try:
        check_replaceable(out_dir, shown)
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        return pathlib.Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    except OSError as e:
        raise OutputError(f"{shown}: cannot write there ({e.strerror or e})") from None


def swap(new, target, old, shown):
    """target's folder aside to old and new in its place (with SHA256SUMS), out_dir checked again first: a file
    put there while the output was made is not lost."""
    write_manifest(new)
    check_replaceable(target, shown)
    try:
        if target.exists():
            os.replace(target, old)
        os.replace(new, target)
    except OSError as e:   # an empty mount point (EBUSY), a full disk
        raise OutputError(f"{shown}: cannot be replaced ({e.strerror or e})") from None


@contextlib.contextmanager
def replacing(out_dir):
    """A new folder beside out_dir to write into, which replaces out_dir (the folder a link names) once the block
    completes; where the block fails or is interrupted it is removed and out_dir is left as it was. Raises
    OutputError, before the block runs, where out_dir cannot be replaced."""
    target = pathlib.Path(out_dir).resolve()
    work = None
    try:
        with signals_held():   # a stop comes before the work folder is made or once it is known here
            work = work_folder(target, out_dir)
        new, old = work / "new", work / "old"
        new.mkdir()
        yield new
        with signals_held():
            swap(new, target, old, out_dir)
    finally:
        with signals_held():
            if work and old.exists() and not target.exists():   # the swap failed half way
                os.replace(old, target)
            if work:
                shutil.rmtree(work, ignore_errors=True)


def render(tool, out_dir, make, data_status, data_errors=()):
    """(exit status, make(folder)), the folder replacing out_dir once make completes; where out_dir cannot be
    replaced or written (2), the data is unusable (data_errors: data_status) or a signal stops it (128 + its
    number), (status, None), one line on stderr and out_dir as it was."""
    try:
        with replacing(out_dir) as new:
            made = make(new)
        return 0, made
    except OutputError as e:
        print(f"{tool}: {e}", file=sys.stderr)
        return 2, None
    except tuple(data_errors) as e:
        print(f"{tool}: {e}", file=sys.stderr)
        return data_status, None
    except OSError as e:   # writing the output itself: a full disk
        print(f"{tool}: {e.filename or out_dir}: {e.strerror or e}; nothing written", file=sys.stderr)
        return 2, None
    except KeyboardInterrupt as e:
        print(f"{tool}: interrupted: nothing written", file=sys.stderr)
        return stopped_status(e), None
