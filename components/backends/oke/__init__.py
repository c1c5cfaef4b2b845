"""OKE node pools and cluster add-ons. The only room that imports `pulumi_oci`.

May import: `nodepools.specs`, `nodepools.backends` (the registry), `nodepools.json_values`.
"""
