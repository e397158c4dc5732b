"""histostudy's reports: the appendix, its tables and figures, the reports, from data/ alone.

Modules: results (read and validate run files), selection (which runs feed which report: the manifest
data/paper-runs.csv, or a user's runs by content), published (the published figures), stats (medians,
intervals, verdicts), environment (what a run ran on), codegen (the codegen audit, when recorded), lesson /
versions / placement / hotcold / sweep / perf / claims / history (the reports' models and tables), document
(blocks written as Markdown or LaTeX), figures (the figures from their models), appendix (paper/appendix.md
and .tex), reports (paper/reports/), make_all (rebuild paper/), own_appendix (a user's own appendix), compare
(the regression audit).
"""
