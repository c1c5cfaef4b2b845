"""Benchmarks of nodepools, runnable as `python -m benchmarks` (`make bench`).

Five benchmarks, each measured in fresh processes where process state matters:

- `import`: `import nodepools` against `import pulumi, pydantic` (bench_import);
- `fleet`: a generated fleet of N pools planned offline, against the same registrations
  replayed as raw resources under the same mock monitor (bench_fleet);
- `validation`: 1,000 custom resources through the offline validator (bench_validation);
- `placement`: 10,000 recipes on 1,000 shared pools (bench_placement, once it exists);
- `suite`: `make test` on a fresh clone, virtualenv included (bench_suite, `--suite`).

The results table in `benchmarks/README.md` is regenerated from `benchmarks/results.json`;
never edit it by hand. Benchmarks record; tests never assert wall-clock times.
"""
