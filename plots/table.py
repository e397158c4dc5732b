"""A table once, written as Markdown (the paper) and LaTeX booktabs (the course text)."""
from dataclasses import dataclass, field

MISSING = "-"
MET, NOT_MET = "met", "not met"   # every verdict on a target


@dataclass
class Table:
    title: str
    columns: list
    rows: list = field(default_factory=list)   # lists of cell strings
    notes: list = field(default_factory=list)  # sentences shown under the table
    align: str = ""                            # per column 'l' or 'r'; default: first l, rest r

    def alignment(self):
        return self.align or "l" + "r" * (len(self.columns) - 1)

    def markdown(self):
        def line(cells):
            return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"
        rule = ["---:" if a == "r" else "---" for a in self.alignment()]
        out = [f"**{self.title}**", "", line(self.columns), "| " + " | ".join(rule) + " |"]
        out += [line(r) for r in self.rows] if self.rows else [line(["(no rows)"] + [""] * (len(self.columns) - 1))]
        if self.notes:
            out += [""] + [f"- {n}" for n in self.notes]
        return "\n".join(out) + "\n"

    def text(self):
        """Aligned plain text, for terminals."""
        cells = [list(map(str, self.columns))] + [list(map(str, r)) for r in self.rows]
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.columns))]
        def line(row):
            return "  ".join(c.rjust(w) if a == "r" else c.ljust(w)
                             for c, w, a in zip(row, widths, self.alignment())).rstrip()
        out = [self.title, line(cells[0]), line(["-" * w for w in widths])] + [line(r) for r in cells[1:]]
        return "\n".join(out + self.notes) + "\n"

    def latex(self):
        def line(cells):
            return " & ".join(latex_escape(c) for c in cells) + r" \\"
        out = [f"% {latex_escape(self.title)}", r"\begin{tabular}{" + self.alignment() + "}", r"\toprule",
               line(self.columns), r"\midrule"]
        out += [line(r) for r in self.rows]
        out += [r"\bottomrule", r"\end{tabular}"]
        out += [f"% note: {latex_escape(n)}" for n in self.notes]
        return "\n".join(out) + "\n"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "\u2264": r"$\le$", "\u2265": r"$\ge$",
                  "\u00d7": r"$\times$", "\u2192": r"$\to$"}


def latex_escape(text):
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


# ---- cell formats: one place, so every table prints a figure the same way ----

def ms(value):
    return MISSING if value is None else f"{value:.3f}"


def ratio(value, digits=1):
    return MISSING if value is None else f"{value:.{digits}f}x"


def pct(value, digits=1):
    return MISSING if value is None else f"{value:.{digits}f}%"


def count(value):
    return MISSING if value is None else f"{int(value):,}"


def plural(n, word):
    """'1 case', '2 cases': n and the word, with an s where n is not 1."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def and_list(items):
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    return " and ".join(items) if len(items) < 3 else f"{', '.join(items[:-1])} and {items[-1]}"


def number(value, digits=1):
    return MISSING if value is None else f"{value:,.{digits}f}"


def interval(low, high, digits=3):
    return f"{low:.{digits}f}..{high:.{digits}f}"


def p_value(p):
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def value_range(values, digits=1, suffix=""):
    """'8.3 to 17.6 ms', or one figure where the ends agree to the digits shown; '-' for no values."""
    values = [v for v in values if v is not None]
    if not values:
        return MISSING
    low, high = f"{min(values):,.{digits}f}", f"{max(values):,.{digits}f}"
    return f"{low}{suffix}" if low == high else f"{low} to {high}{suffix}"


def size_words(n):
    """'1 GiB', '64 MiB', or '67,109,475 bytes' where no binary unit divides it."""
    for unit, shift in (("GiB", 30), ("MiB", 20)):
        if n and n % (1 << shift) == 0:
            return f"{n >> shift:,} {unit}"
    return f"{n:,} bytes"
