"""What every part's appendix section and report share: the page frame and a few words (plots/document.py blocks)."""
from plots.document import Heading, Para, TableBlock

NOT_HERE = "not measurable here"
BACK = "Part of [the appendix](../appendix.md)."


def page(title, *parts):
    """A report: its title, the link back to the appendix, then its parts' blocks."""
    return [Heading(title, 1), Para(BACK)] + [b for part in parts for b in part]


def tables(found):
    return [TableBlock(t) for t in found]


def sentence(words):
    return words[:1].upper() + words[1:]


def ratio(a, b):
    return a / b if a and b else None


def missing_detail(missing):
    """The part of a `missing` sentence ("not measured ...: none of your runs holds ...") after its verdict, as a
    sentence of its own."""
    return sentence(missing.partition(": ")[2])


def each_gpu(m, role, blocks_of):
    """blocks_of(g) for each GPU of this appendix's runs that has the role's runs, under a heading per GPU where
    there are several (a GPU without them says why); [] where none has."""
    has = [g for g in m.own if g.gpu.sel.roles.get(role)]
    if not has:
        return []
    if len(m.own) == 1:
        return blocks_of(has[0])
    return [b for g in m.own for b in [Heading(g.label)] + (blocks_of(g) if g in has else
                                                            [Para(sentence(g.missing(role)))])]


def runs_words(paths):
    """'`a.json` and `b.json`': the data files a figure or table is drawn from."""
    return " and ".join(f"`{p}`" for p in paths)
