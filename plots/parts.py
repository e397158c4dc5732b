"""The paper's parts, listed once, in the appendix's order. Each experiment's module (its model, tables, appendix
section, report and figures) declares its Part (plots/document.py); make_all, the appendix, the reports and the
tests iterate this list, so a new experiment is a module and a line here (docs/paper.md says how)."""
from plots import (carryover, claims, count_bench, counters, environment_words, history, lesson, peers, perf,
                   placement, sizes, sweep, versions)
from plots.document import FigureBlock, Heading

PARTS = (lesson.PART, placement.PART, versions.PART, history.PART, sweep.PART, claims.PART, carryover.PART,
         counters.PART, environment_words.PART, perf.PART, sizes.PART, peers.PART, count_bench.PART,
         versions.CODEGEN)


def numbered(blocks, sections=False):
    """The blocks with their figures numbered in order (and, where `sections`, their level-2 headings: '1. ...')."""
    found, figure, section = [], 0, 0
    for b in blocks:
        if isinstance(b, FigureBlock):
            figure += 1
            b = FigureBlock(b.name, figure, b.caption, b.source)
        elif sections and isinstance(b, Heading) and b.level == 2:
            section += 1
            b = Heading(f"{section}. {b.text}", 2)
        found.append(b)
    return found


def sections(m):
    """The appendix's parts, numbered."""
    return [b for part in PARTS if part.section for b in part.section(m)]


def reports(m):
    """{report name: blocks} of every part with a report to write: a part that joins another ends its report."""
    pages = {}
    for part in PARTS:
        blocks = part.report(m) if part.report else []
        if blocks:
            pages.setdefault(part.joins or part.name, []).extend(blocks)
    return {name: numbered(blocks) for name, blocks in pages.items()}


def listed():
    """(report file, what it holds) of the reports the appendix lists."""
    return [(f"{part.name}.md", part.what) for part in PARTS if part.what]


def figures(m):
    """{figure name: (draw, model)} of every figure with data."""
    return {name: found for part in PARTS for name, found in part.figures(m).items() if found[1]}
