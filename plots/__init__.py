"""histostudy's reports: the appendix, its tables and figures, the reports, from data/ alone.

One pipeline, data flowing one way: select -> models -> renderers.

  select     results (read and validate run files; a row's roles, from the row or data/registry.json: every
             kernel is found by role or policy axis, never by name), selection (which runs feed which report: the
             manifest data/paper-runs.csv, or a user's runs by content; the Study: a selection and the data
             beside it), published (the published figures), codegen (the codegen audit, when recorded)
  models     models (build: every report's model, computed once from a Study), from the model modules lesson,
             versions, placement, hotcold, sweep, perf, claims, history, with stats (medians, intervals, verdicts)
             and environment (what a run ran on)
  renderers  appendix (paper/appendix.md and .tex), reports (paper/reports/), the tables of each model module,
             figures (the figures), document (blocks written as Markdown or LaTeX), table (cells and tables)

make_all (./dev paper) and own_appendix (./dev appendix) run the pipeline; compare (the regression audit),
lesson and history also read a run file on their own.
"""
