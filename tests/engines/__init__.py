"""Every component and every example stack, under the three engines a program meets.

Users test their programs with a plain `pulumi.runtime.Mocks` (outputs = inputs), a real
`pulumi preview` leaves provider outputs unknown, and `nodepools plan` runs our offline
engine. `tests/engines/test_engines.py` builds everything in `COMPONENTS` and every
`stacks/Pulumi.<stack>.yaml` each way: a new stack file is picked up by itself; add a new
component (or a new backend of one) to `COMPONENTS`.
"""
