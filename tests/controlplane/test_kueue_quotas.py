"""Every PoolQuotas of the stacks and example programs (tests/controlplane/governance_programs.py)
against Kueue's own controller: Run:ai's over-quota semantics (seed 001), as Kueue enforces
them.

For each one, its objects applied as rendered, then:
- within quota: a Job in each project's LocalQueue, within the project's quota, is admitted
  on a pool the project has quota on, without borrowing;
- over quota with `over_quota` (the default): a project borrows the idle quota of its cohort
  (a Job as big as the whole cohort tree's quota on one pool is admitted, the ClusterQueue
  shows the GPUs borrowed); when a lender then submits a Job within its own quota, Kueue
  preempts the borrower (Preempted: InCohortReclamation), admits the lender's Job, and holds
  the borrower's (QuotaReserved False) until the quota is free again;
- over quota without it: the same program with that project's `over_quota: false` (rendered
  by PoolQuotas, applied over the original) holds a Job one GPU over its quota while the
  lender's quota is idle; with a single project (nothing to borrow) a Job over its quota is
  held as written.

Jobs are pinned to a pool by its node labels (Kueue considers only the flavors whose node
labels the pod's node selector matches). The objects are deleted after each program, since
programs reuse names (the TypeScript and YAML examples' `training` queue)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from nodepools import PoolQuotas
from nodepools.specs.core.kube import kube_name

from tests.controlplane.cluster import ControlPlane
from tests.controlplane.governance_programs import Governed, governed_components
from tests.controlplane.kueue import running_kueue
from tests.controlplane.kueue_jobs import PLAIN, Kueue, job
from tests.controlplane.objects import KubeObject, apply, apply_rank
from tests.controlplane.report import count
from tests.controlplane.test_stack_objects import apply_all, stack_objects


@pytest.fixture(scope="module")
def kueue(
    control_plane: ControlPlane,
    api_client: Any,
    dynamic_client: Any,
    installed_crds: list[str],
    controller_manager: ControlPlane,
) -> Iterator[Kueue]:
    with running_kueue(control_plane, api_client, dynamic_client):
        yield Kueue(control_plane, api_client, dynamic_client)


def _quota_programs() -> list[Governed]:
    return [g for g in governed_components() if g.component == "PoolQuotas"]


def _rendered(program: Governed, args: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    plan = PoolQuotas.preflight(program.name, program.args if args is None else args)
    return [r.manifest for r in plan.objects]


def _by_kind(manifests: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m for m in manifests if m["kind"] == kind]


def _gpu_quota(queue: dict[str, Any], flavor: str) -> tuple[str, int, bool] | None:
    """(accelerator resource, nominal quota, has a borrowingLimit) of QUEUE on FLAVOR."""
    for group in queue.get("spec", {}).get("resourceGroups", []):
        for entry in group["flavors"]:
            if entry["name"] != flavor:
                continue
            for resource in entry["resources"]:
                if resource["name"] not in PLAIN:
                    limited = "borrowingLimit" in resource
                    return resource["name"], int(resource["nominalQuota"]), limited
    return None


def _flavor_order(queue: dict[str, Any]) -> list[str]:
    return [f["name"] for g in queue["spec"]["resourceGroups"] for f in g["flavors"]]


def _covers(queue: dict[str, Any], resource: str) -> bool:
    return any(resource in g["coveredResources"] for g in queue["spec"]["resourceGroups"])


def _requests(queue: dict[str, Any], gpu_resource: str, gpus: int) -> dict[str, str]:
    """GPUS of GPU_RESOURCE and a little CPU and memory where the queue governs them (a
    resource a ClusterQueue doesn't cover can't be asked for)."""
    requests = {gpu_resource: str(gpus)}
    for resource, amount in (("cpu", "1"), ("memory", "1Gi")):
        if _covers(queue, resource):
            requests[resource] = amount
    return requests


def _root(cohorts: dict[str, str | None], name: str) -> str:
    while cohorts.get(name):
        name = cohorts[name] or name
    return name


def _lending_pair(
    manifests: list[dict[str, Any]],
) -> tuple[dict[str, Any], dict[str, Any], str, dict[str, int]] | None:
    """(borrower, lender, a pool with node labels the borrower has GPU quota on, the GPU quota
    of the borrower's cohort tree on each pool its queue lists): the first queue with
    unlimited borrowing and such a pool, and another queue of its tree with GPU quota there;
    None when no queue has anyone to borrow from."""
    cohorts = {
        c["metadata"]["name"]: c["spec"].get("parentName") for c in _by_kind(manifests, "Cohort")
    }
    capped = any(
        "borrowingLimit" in r
        for c in _by_kind(manifests, "Cohort")
        for g in c["spec"].get("resourceGroups", [])
        for f in g["flavors"]
        for r in f["resources"]
    )
    labelled = {
        f["metadata"]["name"]
        for f in _by_kind(manifests, "ResourceFlavor")
        if f.get("spec", {}).get("nodeLabels")
    }
    queues = [q for q in _by_kind(manifests, "ClusterQueue") if q["spec"].get("cohortName")]
    if capped:  # a department's borrowing cap would make the reachable quota a sum of caps
        return None
    for borrower in queues:
        tree = _root(cohorts, borrower["spec"]["cohortName"])
        peers = [
            q
            for q in queues
            if q is not borrower and _root(cohorts, q["spec"]["cohortName"]) == tree
        ]
        totals = {
            f: sum(_gpus(q, f) for q in [borrower, *peers]) + _cohort_gpus(manifests, tree, f)
            for f in _flavor_order(borrower)
        }
        for flavor in _flavor_order(borrower):
            own = _gpu_quota(borrower, flavor)
            if flavor not in labelled or own is None or own[1] == 0 or own[2]:
                continue
            lenders = [q for q in peers if _gpus(q, flavor) > 0]
            if lenders:
                return borrower, lenders[0], flavor, totals
    return None


def _gpus(queue: dict[str, Any], flavor: str) -> int:
    return (_gpu_quota(queue, flavor) or ("", 0, False))[1]


def _cohort_gpus(manifests: list[dict[str, Any]], name: str | None, flavor: str) -> int:
    """The GPUs Cohort NAME holds as its own quota on FLAVOR: what PoolQuotas lends of a
    pool beyond its projects' quotas (0 when the Cohort has none or doesn't exist)."""
    cohort = next((c for c in _by_kind(manifests, "Cohort") if c["metadata"]["name"] == name), None)
    return 0 if cohort is None else _gpus(cohort, flavor)


def _project_path(program: Governed, queue: str) -> tuple[int, int]:
    for d, department in enumerate(program.args["departments"]):
        for p, project in enumerate(department.get("projects", [])):
            if kube_name(project["name"]) == queue:
                return d, p
    raise AssertionError(f"no project renders ClusterQueue {queue!r}")


def _apply(dynamic_client: Any, program: Governed, manifests: list[dict[str, Any]]) -> None:
    objects = sorted((KubeObject(program.label, m) for m in manifests), key=apply_rank)
    apply_all(dynamic_client, objects)


def _delete(dynamic_client: Any, manifests: list[dict[str, Any]], kueue: Kueue) -> None:
    """The program's Kueue objects, queues first (the namespaces stay); waits until gone."""
    kinds = ("LocalQueue", "ClusterQueue", "Cohort", "ResourceFlavor")
    doomed = [m for kind in kinds for m in _by_kind(manifests, kind)]
    for manifest in doomed:
        api = dynamic_client.resources.get(
            api_version=manifest["apiVersion"], kind=manifest["kind"]
        )
        meta = manifest["metadata"]
        api.delete(name=meta["name"], namespace=meta.get("namespace"))

    def gone() -> bool:
        from kubernetes.dynamic.exceptions import NotFoundError

        for manifest in doomed:
            api = dynamic_client.resources.get(
                api_version=manifest["apiVersion"], kind=manifest["kind"]
            )
            try:
                api.get(
                    name=manifest["metadata"]["name"],
                    namespace=manifest["metadata"].get("namespace"),
                )
            except NotFoundError:
                continue
            return False
        return True

    kueue.wait("the program's Kueue objects deleted", gone)


@pytest.mark.parametrize("program", _quota_programs(), ids=lambda g: g.label)
def test_each_programs_quotas_admit_within_borrow_and_reclaim_and_hold_over(
    program: Governed, kueue: Kueue, dynamic_client: Any
) -> None:
    manifests = _rendered(program)
    if program.source.startswith("stacks/"):
        stack = program.source.removeprefix("stacks/")
        captured = [o.manifest for o in stack_objects(stack)[0]]
        assert all(m in captured for m in manifests), f"{program.label}: args read wrongly"
    queues = {q["metadata"]["name"]: q for q in _by_kind(manifests, "ClusterQueue")}
    local_queues = _by_kind(manifests, "LocalQueue")
    namespaces = sorted({q["metadata"]["namespace"] for q in local_queues})
    flavors = {
        f["metadata"]["name"]: f.get("spec", {}).get("nodeLabels")
        for f in _by_kind(manifests, "ResourceFlavor")
    }
    kueue.clear(namespaces)  # what an earlier module left
    _apply(dynamic_client, program, manifests)
    kueue.wait(
        f"{program.label}: {len(queues)} ClusterQueues Active",
        lambda: all(kueue.active(n) for n in queues),
    )
    admitted = held = preempted = 0

    # Within quota: each project's LocalQueue, on a pool it has quota on.
    within: dict[str, tuple[str, str]] = {}
    for local in local_queues:
        queue = queues[local["spec"]["clusterQueue"]]
        owned = [f for f in _flavor_order(queue) if (_gpu_quota(queue, f) or ("", 0, False))[1] > 0]
        assert owned, f"{program.label}: {queue['metadata']['name']} has no GPU quota"
        resource, _, _ = _gpu_quota(queue, owned[0]) or ("", 0, False)
        name = f"within-{local['metadata']['name']}"
        ref = kueue.submit(
            job(
                name,
                local["metadata"]["namespace"],
                local["metadata"]["name"],
                _requests(queue, resource, 1),
            )
        )
        within[ref] = (queue["metadata"]["name"], resource)
    for ref, (queue_name, resource) in within.items():
        kueue.wait(f"{program.label}: {ref} admitted", lambda r=ref: kueue.admitted(r))
        owned = [
            f
            for f in _flavor_order(queues[queue_name])
            if (_gpu_quota(queues[queue_name], f) or ("", 0, False))[1] > 0
        ]
        assert kueue.flavor(ref) in owned, (ref, kueue.flavor(ref), owned)
        assert kueue.usage(queue_name, resource, "borrowed") == 0, ref
        admitted += 1
    kueue.clear(namespaces)

    pair = _lending_pair(manifests)
    if pair is None:
        # Nobody to borrow from: over the project's quota is over the cohort's.
        queue = next(iter(queues.values()))
        local = next(
            lq for lq in local_queues if lq["spec"]["clusterQueue"] == queue["metadata"]["name"]
        )
        flavor = next(
            f
            for f in _flavor_order(queue)
            if flavors.get(f) and (_gpu_quota(queue, f) or ("", 0, False))[1] > 0
        )
        resource, nominal, _ = _gpu_quota(queue, flavor) or ("", 0, False)
        cohorts = {
            c["metadata"]["name"]: c["spec"].get("parentName")
            for c in _by_kind(manifests, "Cohort")
        }
        cohort = queue["spec"].get("cohortName")
        root = _root(cohorts, cohort) if cohort else None
        ref = kueue.submit(
            job(
                "over",
                local["metadata"]["namespace"],
                local["metadata"]["name"],
                # over what it holds and what its cohort tree lends of the pool
                _requests(queue, resource, nominal + _cohort_gpus(manifests, root, flavor) + 1),
                flavors[flavor],
            )
        )
        message = kueue.wait(f"{program.label}: {ref} held", lambda: kueue.held(ref))
        assert not kueue.admitted(ref), message
        print(f"{program.label}: over quota, nothing to borrow: {message}")
        held += 1
        kueue.clear(namespaces)
    else:
        borrower, lender, flavor, totals = pair
        b_name, l_name = borrower["metadata"]["name"], lender["metadata"]["name"]
        b_local = next(lq for lq in local_queues if lq["spec"]["clusterQueue"] == b_name)
        l_local = next(lq for lq in local_queues if lq["spec"]["clusterQueue"] == l_name)
        resource, nominal, _ = _gpu_quota(borrower, flavor) or ("", 0, False)
        selector = flavors[flavor]

        # Over quota with over_quota: the project borrows its whole cohort tree's idle quota,
        # pool by pool (Kueue v0.19 admits a pod on a flavor without node labels whatever its
        # node selector, so that pool is filled first, by a Job with no selector).
        borrows: list[str] = []
        for pool in sorted(totals, key=lambda f: bool(flavors.get(f))):
            if not totals[pool]:
                continue
            name = f"borrows-{pool}"
            manifest = job(
                name,
                b_local["metadata"]["namespace"],
                b_local["metadata"]["name"],
                _requests(borrower, resource, totals[pool]),
                flavors.get(pool),
            )
            ref = kueue.submit(manifest)
            kueue.wait(f"{program.label}: {ref} admitted", lambda r=ref: kueue.admitted(r))
            assert kueue.flavor(ref) == pool, (ref, kueue.flavor(ref))
            borrows.append(ref)
        lent = sum(totals.values()) - sum(_gpus(borrower, f) for f in totals)
        kueue.wait(
            f"{program.label}: {b_name} borrowing {lent} {resource}",
            lambda: kueue.usage(b_name, resource, "borrowed") == lent,
        )
        admitted += len(borrows)
        # A lender wants its quota back: a borrower is preempted.
        claim = kueue.submit(
            job(
                "reclaims",
                l_local["metadata"]["namespace"],
                l_local["metadata"]["name"],
                _requests(lender, resource, 1),
                selector,
            )
        )

        def preempted_one() -> tuple[str, dict[str, Any]] | None:
            for ref in borrows:
                condition = kueue.condition(ref, "Preempted")
                if condition is not None:
                    return ref, condition
            return None

        victim, reason = kueue.wait(f"{program.label}: a borrower preempted", preempted_one)
        assert reason["reason"] == "InCohortReclamation", reason
        kueue.wait(f"{program.label}: {claim} admitted", lambda: kueue.admitted(claim))
        kueue.wait(f"{program.label}: {victim} suspended again", lambda: not kueue.admitted(victim))
        message = kueue.wait(
            f"{program.label}: {victim} held after preemption", lambda: kueue.held(victim)
        )
        print(
            f"{program.label}: {victim} preempted ({reason.get('message')}), then held: {message}"
        )
        admitted, preempted, held = admitted + 1, preempted + 1, held + 1
        kueue.clear(namespaces)

        # Over quota without over_quota: held, though the lender's quota is idle.
        variant = copy.deepcopy(program.args)
        d, p = _project_path(program, b_name)
        variant["departments"][d]["projects"][p]["over_quota"] = False
        closed = next(
            m
            for m in _by_kind(_rendered(program, variant), "ClusterQueue")
            if m["metadata"]["name"] == b_name
        )
        apply(
            dynamic_client,
            KubeObject(f"{program.label} (over_quota: false)", closed),
            dry_run=False,
        )
        # Over the most it holds on any pool the Job's selector matches.
        most = max(_gpus(borrower, f) for f in totals if f == flavor or not flavors.get(f))
        over = kueue.submit(
            job(
                "over",
                b_local["metadata"]["namespace"],
                b_local["metadata"]["name"],
                _requests(borrower, resource, most + 1),
                selector,
            )
        )
        message = kueue.wait(f"{program.label}: {over} held", lambda: kueue.held(over))
        assert not kueue.admitted(over), message
        fits = kueue.submit(
            job(
                "fits",
                b_local["metadata"]["namespace"],
                b_local["metadata"]["name"],
                _requests(borrower, resource, nominal),
                selector,
            )
        )
        kueue.wait(f"{program.label}: {fits} admitted", lambda: kueue.admitted(fits))
        assert not kueue.admitted(over), message
        print(f"{program.label}: over quota with over_quota false: {message}")
        admitted, held = admitted + 1, held + 1
        kueue.clear(namespaces)

    _delete(dynamic_client, manifests, kueue)
    count("Kueue controller: PoolQuotas programs exercised")
    count("Kueue controller: Jobs admitted (within quota or borrowing)", admitted)
    count("Kueue controller: Jobs held over quota", held)
    count("Kueue controller: borrowers preempted by a lender", preempted)
