"""The site: every run, committed and the user's, on one static site (`./tradebench site`, writer.py), drawn
from the results documents with report/'s pages and diff's verdicts. A room above report: report knows
nothing of it."""
