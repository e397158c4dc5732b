"""histostudy's reports: tables, figures and the paper, from data/ alone.

Modules: results (read and validate run files), published (the published
figures), stats (medians, intervals, verdicts), environment (what a run ran
on), codegen (the codegen audit, when recorded), lesson / versions / sweep /
claims (the reports), figures, paper, make_all (rebuild paper/), compare (the
regression audit).
"""
