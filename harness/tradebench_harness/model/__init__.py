"""The model: what each design stores and costs at a load, from measurements the harness makes (docs/model.md).

predict.py is the arithmetic, params.py the parameter sets (parameters.json: the committed ones),
fit.py fits them from results folders, fsync.py measures what a durable database adds to a commit,
plan.py applies them to each design's manifest, check.py holds them against a map's cells, cli.py is
`./tradebench predict`.
"""
