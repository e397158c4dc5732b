"""Your own appendix: your runs made into the study's appendix, your GPU beside the lesson's T4 and the study's.

    python3 -m plots.own_appendix [RUN.json ...] [-o DIR]      (./dev appendix)

RUN.json: result files of `./dev study` (default: every one in runs/, where it writes them) and of `histostudy
count-bench` (default: every one in runs/count-bench/, where it writes them). Each report takes
the newest of them that fits it; incomplete runs and runs without the study's controls are left out, each
named on stderr. The study's own runs (data/paper-runs.csv) stand beside yours in the lesson table, the sweep
and the claims. Written to DIR (default runs/appendix/): appendix.md, appendix.tex, tables/, figures/ and
reports/, as ./dev paper writes paper/, into a new folder beside DIR that replaces it once complete (DIR must be
new, empty or an earlier appendix whose SHA256SUMS vouches for every file in it: a file of yours there is never
lost). DIR may not be paper/ or inside it: the committed paper is never touched. Exit status 2 for unusable files,
arguments or output, 130 when interrupted (Ctrl-C; SIGTERM 143: DIR as it was), 0 otherwise.
"""
import argparse
import os
import pathlib
import sys

from plots import cli, count_bench, make_all, output, selection
from plots.results import ResultError, load_run, parse_json, path_text, read_text

REPO = make_all.REPO
USER_RUNS = REPO / "runs"
COMMAND = "./dev appendix (plots/own_appendix.py)"


def inside(path, folder):
    path, folder = path.resolve(), folder.resolve()
    return path == folder or folder in path.parents


def link(target, out_dir):
    """A relative link from out_dir to a file of the repository."""
    return path_text(os.path.relpath(target, out_dir).replace(os.sep, "/"))


def study_of(runs, out_dir, benches=()):
    """Your runs, chosen by content, with the study's beside them."""
    data = REPO / "data"
    return make_all.gather(data, selection.by_content(runs, "your runs", benches), beside=selection.load(data, "data/"),
                           paper_where="the study's appendix (`paper/appendix.md` of histostudy)",
                           spec_link=link(REPO / "docs" / "study-spec.md", out_dir))


def as_typed_here(path):
    """A path under the current folder as relative to it (./dev study names its result file by its absolute path,
    which an appendix to paste should not show); any other as given."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def run_paths(given):
    if given:
        return [pathlib.Path(p) for p in given]
    return sorted(USER_RUNS.glob("*.json")) + sorted((USER_RUNS / count_bench.FOLDER).glob("*.json"))


def load_files(paths):
    """([study runs], [count-bench files], {path: why left out}) from `paths`, each read by its format; an
    older or incomplete count-bench's file is left out, any other unusable file raises ResultError. Each is named
    by path_text, which any file can hold."""
    runs, benches, left_out = [], [], {}
    for path in paths:
        shown = path_text(as_typed_here(path))
        doc = parse_json(shown, read_text(path, shown))
        if not count_bench.is_bench_doc(doc):
            runs.append(load_run(path, shown))
            continue
        try:
            benches.append(count_bench.parse_bench(shown, doc))
        except count_bench.LeftOut as e:
            left_out[shown] = e.problem
    return runs, benches, left_out


def write_appendix(paths, out_dir, into):
    """The appendix of the result files `paths`, for out_dir, written into the folder `into`: (the paths written,
    {file: why left out})."""
    make_all.progress("reading your runs")
    runs, benches, old_benches = load_files(paths)
    study = study_of(runs, out_dir, benches)
    written = make_all.write_paper(study, into, COMMAND, make_all.data_files(study, "data/published/"))
    return written, {**study.sel.left_out, **old_benches}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m plots.own_appendix", description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="*", help="result files (default: every runs/*.json and runs/count-bench/*.json)")
    parser.add_argument("-o", "--out", type=pathlib.Path, default=USER_RUNS / "appendix",
                        help="where to write (default: runs/appendix/)")
    args = parser.parse_args(argv)
    if inside(args.out, REPO / "paper"):
        parser.error(f"{args.out} is the committed paper: write your appendix elsewhere")
    paths = run_paths(args.runs)
    if not paths:
        parser.error("no result files given and none in runs/ or runs/count-bench/: run ./dev study first")
    status, made = output.render("own_appendix", args.out, lambda into: write_appendix(paths, args.out, into), 2,
                                 [ResultError])
    if status:
        return status
    written, left_out = made
    for path, why in left_out.items():
        print(f"own_appendix: left out {path}: {why}", file=sys.stderr)
    print(f"own_appendix: wrote {len(written)} files under {args.out} ({args.out / 'appendix.md'})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(cli.guarded("own_appendix", main))
