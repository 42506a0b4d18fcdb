"""The analysis room: what every other room computes from measured figures and none of them draws — the 95 %
intervals (intervals.py), the verdicts on them (verdict.py), a results document's rows and their figures
(stats.py), and Little's law's bound of a design (bounds.py). Below measure, model and report; it imports only
run and record."""
