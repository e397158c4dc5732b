"""The appendix a course author pastes (paper/appendix.md, paper/appendix.tex): at most 400 lines and 3,000 words.

A renderer: its blocks (plots/document.py) are written from the Models of plots/models.py, which computed every
number from the runs plots/selection.py chose and data/published/; nothing is typed, nothing computed here.
"""
from plots import parts
from plots.document import Heading, Items, Para

TITLE = "Appendix: the 256-bin histogram, re-measured"
MAX_LINES = 400
MAX_WORDS = 3000   # words as `wc -w` counts them, tables and the stamp included


def _studys_gpus(m):
    """'NVIDIA H200 and NVIDIA H100 80GB HBM3': the GPUs of the study's own runs, or 'GPUs' where it has none."""
    studys = [g for g in m.gpus if not g.gpu.yours] if m.study.beside else m.gpus
    return " and ".join(g.gpu.name for g in studys) or "GPUs"


def further_section(m):
    return [Heading("In full, and on your own GPU"),
            Items(tuple(f"[reports/{name}](reports/{name}): {what}" for name, what in parts.listed())),
            Para("On your own GPU, `./dev study` makes this appendix of its run, in `runs/<run>-appendix/`, beside the "
                 f"T4 and the study's {_studys_gpus(m)}. `./dev audit A.json B.json` audits one run against another, "
                 "`./dev audit 12.6 13.0` two CUDA releases: exit 1 on a regression, 2 where it cannot judge.")]


# ---- the whole ----

def intro(m, made_by, files):
    """files: the data the appendix is made from, in words."""
    return [Heading(TITLE, 1),
            Para(f"This appendix re-measures the course's histogram lesson and the textbook's contention sweep, and "
                 f"checks the course text's claims. {made_by} from {files}; every number in it is computed from those "
                 "files, and its tables and figures are also in `tables/` and `figures/`. How the study measures: "
                 f"[docs/study-spec.md]({m.study.spec_link}).")]


def blocks(m, made_by, files):
    """The appendix of Models `m`, as blocks: the intro, each part's section (plots/parts.py), then where to read on."""
    return parts.numbered(intro(m, made_by, files) + parts.sections(m) + further_section(m), sections=True)
