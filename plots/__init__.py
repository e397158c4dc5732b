"""histostudy's reports: tables, figures and the paper, from data/ alone.

Modules: results (read and validate run files), selection (which runs feed
which report; superseded runs), published (the published figures), stats
(medians, intervals, verdicts), environment (what a run ran on), codegen (the
codegen audit, when recorded), lesson / versions / placement / hotcold /
sweep / perf / claims (the reports), figures, paper, make_all (rebuild
paper/), compare (the regression audit).
"""
