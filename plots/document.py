"""A document once, as blocks, written as Markdown (the appendix, the reports) or LaTeX (the appendix).

Paragraph text uses three inline marks, the same in both outputs: `code`, **bold** and [text](link) (LaTeX
keeps the text of a link and drops its target, which is a path inside paper/).
"""
import re
from dataclasses import dataclass
from typing import Callable, Optional

from plots.table import latex_escape


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Para:
    text: str


@dataclass(frozen=True)
class Items:
    items: tuple


@dataclass(frozen=True)
class Slot:
    """A place kept for results not measured yet, marked as such in both outputs."""
    title: str
    text: str


@dataclass(frozen=True)
class TableBlock:
    table: object           # plots.table.Table
    fragment: str = ""      # tables/<fragment>.tex holds it for LaTeX; "" where it is only Markdown
    wide: bool = False      # LaTeX: scaled to the text width


@dataclass(frozen=True)
class FigureBlock:
    name: str               # figures/<name>.{png,svg,pdf} (one column) and <name>-wide.* (full width)
    number: int
    caption: str            # what the figure shows, in a sentence or two
    source: str             # the data files it is drawn from


@dataclass(frozen=True)
class Raw:
    """Markdown only, as it is (the reports' collapsed environment records)."""
    text: str


def _no_figures(_m):
    return {}


@dataclass(frozen=True)
class Part:
    """One part of the paper, declared once in its experiment's module (plots/parts.py lists them): its model, what
    it puts in the appendix, the report it writes, the figures it draws. The renderers take the Models
    (plots/models.py) and compute nothing: what they show was computed once, before any rendering."""
    name: str                           # its report is reports/<name>.md
    what: str = ""                      # that report in a line, for the appendix's list ("" where not listed)
    section: Optional[Callable] = None  # Models -> its blocks in the appendix (level-2 headings numbered there)
    report: Optional[Callable] = None   # Models -> its report's blocks
    joins: str = ""                     # the part whose report its report's blocks end, where not its own
    figures: Callable = _no_figures     # Models -> {figure name: (draw, model)}, figures with data only
    model: Optional[Callable] = None    # Study -> its model, computed once by plots/models.py: Models.of(name)


WIDE_SUFFIX = "-wide"
FORMATS = ("png", "svg", "pdf")


def figure_files(name, root=""):
    """{width: {format: path}} of a figure's files, as seen from `root` ('../' from the reports)."""
    return {width: {ext: f"{root}figures/{name}{suffix}.{ext}" for ext in FORMATS}
            for width, suffix in (("one column", ""), ("full width", WIDE_SUFFIX))}


# ---- Markdown ----

def _markdown_figure(b, root):
    png = figure_files(b.name, root)["one column"]["png"]
    # the caption follows at once: the image's text names the figure and leaves the words to it
    return f"![Figure {b.number}, described below]({png})\n\n**Figure {b.number}.** {b.caption} Data: {b.source}.\n"


def _markdown(b, root):
    if isinstance(b, Heading):
        return f"{'#' * b.level} {b.text}\n"
    if isinstance(b, Para):
        return b.text + "\n"
    if isinstance(b, Items):
        return "\n".join(f"- {item}" for item in b.items) + "\n"
    if isinstance(b, Slot):
        return f"> **{b.title}** {b.text}\n"
    if isinstance(b, TableBlock):
        return b.table.markdown()
    if isinstance(b, FigureBlock):
        return _markdown_figure(b, root)
    return b.text + "\n"


def markdown(blocks, root=""):
    """The blocks as Markdown; figure paths as seen from `root`."""
    return "\n".join(_markdown(b, root) for b in blocks)


# ---- LaTeX ----

_INLINE = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)]+)\)")
_BREAKS = re.compile(r"(/|\\_|-|\.|,|=)")


def latex_code(text):
    """Code in typewriter type that may break after / _ - . , = (run file names and flags outrun a line)."""
    return r"\texttt{" + _BREAKS.sub(lambda m: m.group(1) + r"\allowbreak{}", latex_escape(text)) + "}"


def latex_inline(text):
    """Paragraph text as LaTeX: the inline marks converted, everything else escaped."""
    out, last = [], 0
    for m in _INLINE.finditer(text):
        out.append(latex_escape(text[last:m.start()]))
        code, bold, link = m.group(1), m.group(2), m.group(3)
        out.append(latex_code(code) if code else
                   rf"\textbf{{{latex_inline(bold)}}}" if bold else latex_inline(link))
        last = m.end()
    return "".join(out) + latex_escape(text[last:])


def _latex_table(b):
    body = rf"\input{{tables/{b.fragment}.tex}}"
    body = rf"\resizebox{{\linewidth}}{{!}}{{{body}}}" if b.wide else body
    notes = "".join(rf"\par\smallskip {latex_inline(n)}" for n in b.table.notes)
    return ("\\begin{table}[htbp]\n\\centering\\footnotesize\n"
            f"\\caption{{{latex_inline(b.table.title)}}}\n{body}\n"
            f"\\begin{{minipage}}{{\\linewidth}}\\raggedright{notes}\\end{{minipage}}\n\\end{{table}}\n")


def _latex_figure(b):
    return ("\\begin{figure}[htbp]\n\\centering\n"
            f"\\includegraphics[width=\\linewidth]{{{figure_files(b.name)['full width']['pdf']}}}\n"
            f"\\caption{{{latex_inline(b.caption)} Data: {latex_inline(b.source)}.}}\n\\end{{figure}}\n")


def _latex(b):
    if isinstance(b, Heading):
        return f"\\{'sub' * (b.level - 2)}section*{{{latex_inline(b.text)}}}\n" if b.level > 1 else ""
    if isinstance(b, Para):
        return latex_inline(b.text) + "\n"
    if isinstance(b, Items):
        return "\\begin{itemize}\n" + "".join(f"\\item {latex_inline(i)}\n" for i in b.items) + "\\end{itemize}\n"
    if isinstance(b, Slot):
        return f"\\noindent\\fbox{{\\parbox{{0.97\\linewidth}}{{\\textbf{{{latex_inline(b.title)}}} " \
               f"{latex_inline(b.text)}}}}}\n"
    if isinstance(b, TableBlock):
        return _latex_table(b)
    if isinstance(b, FigureBlock):
        return _latex_figure(b)
    return ""


LATEX_PREAMBLE = r"""\documentclass[10pt]{article}
\usepackage[margin=2.2cm]{geometry}
\usepackage{booktabs}
\usepackage{graphicx}
\usepackage{float}
\setlength{\parskip}{0.5em}
\setlength{\parindent}{0pt}
\sloppy
"""


def latex(blocks, title):
    """A complete LaTeX document: the tables come from tables/*.tex, the figures from figures/*-wide.pdf."""
    body = "\n".join(_latex(b) for b in blocks)
    return f"{LATEX_PREAMBLE}\\begin{{document}}\n\\section*{{{latex_inline(title)}}}\n{body}\n\\end{{document}}\n"


def fragments(blocks):
    """{fragment name: Table} of the tables LaTeX inputs."""
    return {b.fragment: b.table for b in blocks if isinstance(b, TableBlock) and b.fragment}
