"""Validate drift scenarios (format "drift-scenario/1"); run it as bench/validate_scenarios.py.

Plain Python 3, no third-party packages. The modules:

* rules.py: what the format allows (fields, roles, ops, tags) and the thresholds of the checks;
* text.py: token estimate, question keywords, substring match, number and timestamp parsing;
* replay.py: the Report of one file and the canvas replay (ops applied turn by turn);
* kinds.py: the drift kind of a probe's expected string (which selection mechanism reaches it);
* validate.py: validate_file, every check of one scenario file;
* cli.py: main, the command line and the summary table.
"""
