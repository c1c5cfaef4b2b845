"""Benchmarks of nodepools, runnable as `python -m benchmarks` (`make bench`).

Five benchmarks, each measured in fresh processes where process state matters:

- `import`: `import nodepools` against `import pulumi, pydantic`, and first use against one
  pydantic model of one field (bench_import);
- `fleet`: a generated fleet of N pools planned offline, against the same registrations
  made through the typed provider SDK classes under the same mock monitor (bench_fleet);
- `validation`: 1,000 custom resources through the offline validator (bench_validation);
- `placement`: 10,000 recipes on 1,000 shared pools (bench_placement);
- `suite`: `make test` on a fresh clone, virtualenv included (bench_suite, `--suite`).

The results table in `benchmarks/README.md` is regenerated from `benchmarks/results.json`;
never edit it by hand. The floors are in `floors.py`, what is measured in `programs.py`; the
instruction counts that decide the plan and first-use targets in `instructions.py`.
"""
